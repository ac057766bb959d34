"""HTTP scheduler extenders against a real extender served on 127.0.0.1 (extender_server):
the request bodies on the wire, nodeCacheCapable, weights, ignorable extenders, upstream's
error texts, binding and preemption, and `kubesim run --scheduler-config` with `extenders:`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from extender_server import LabelExtender, closed_port_url, serve
from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim
from kubesim_scheduler import Scheduler
from kubesim_scheduler.config import Extender as ExtenderConfig
from kubesim_scheduler.config import load_config
from kubesim_scheduler.extender import Extender, build_extenders
from kubesim_scheduler.framework import Code
from scheduler_harness import make_node, make_pod

CAP = {"cpu": "4", "memory": "8Gi", "pods": 10}


def nodes3() -> list[dict[str, Any]]:
    """n1 rejected by the extender, n2 scored 2, n3 scored 9."""
    return [
        make_node("n1", CAP, labels={"reject": "true", "score": "10"}),
        make_node("n2", CAP, labels={"score": "2"}),
        make_node("n3", CAP, labels={"score": "9"}),
    ]


def config(*extenders: dict[str, Any]) -> Any:
    return load_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                        "extenders": list(extenders)})


def http_scheduler(nodes: list[dict[str, Any]], *extenders: dict[str, Any], **kw: Any) -> Scheduler:
    s = Scheduler(seed=3, extenders=build_extenders(config(*extenders).extenders), **kw)
    for n in nodes:
        s.add_node(n)
    return s


def test_filter_and_prioritize_requests_and_their_effect() -> None:
    nodes = nodes3()
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        s = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 2})
        pod = make_pod("p", reqs=[{"cpu": "1"}])
        s.add_pod(pod)
        a = s.schedule_one()
    assert a is not None and a.node == "n3"
    assert [p for p, _ in ext.requests] == ["/scheduler/filter", "/scheduler/prioritize"]
    assert ext.content_types == ["application/json", "application/json"]
    filt, prio = ext.requests[0][1], ext.requests[1][1]
    # ExtenderArgs: Go field names, Nodes a NodeList, NodeNames null
    assert list(filt) == ["Pod", "Nodes", "NodeNames"]
    assert filt["NodeNames"] is None and filt["Pod"] == pod
    assert list(filt["Nodes"]) == ["metadata", "items"] and filt["Nodes"]["metadata"] == {}
    assert [n["metadata"]["name"] for n in filt["Nodes"]["items"]] == ["n1", "n2", "n3"]
    assert filt["Nodes"]["items"][0] == nodes[0]
    # prioritize gets the nodes left by the filter
    assert [n["metadata"]["name"] for n in prio["Nodes"]["items"]] == ["n2", "n3"] and prio["NodeNames"] is None
    # results: the extender's verdicts and scores under its name (the urlPrefix)
    fr = a.filter_results()
    assert fr["n1"][url] == "node n1 is labelled reject" and fr["n2"][url] == "passed"
    assert a.scores()["n3"][url] == {"rawScore": 9, "normalizedScore": 90, "finalScore": 180}
    assert a.scores()["n2"][url] == {"rawScore": 2, "normalizedScore": 20, "finalScore": 40}


def test_node_cache_capable_sends_node_names() -> None:
    nodes = nodes3()
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        s = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize",
                                   "weight": 1, "nodeCacheCapable": True})
        a = s.evaluate(make_pod("p"))
    assert a.node == "n3"
    filt = ext.requests[0][1]
    assert list(filt) == ["Pod", "Nodes", "NodeNames"]
    assert filt["Nodes"] is None and filt["NodeNames"] == ["n1", "n2", "n3"]
    assert ext.requests[1][1]["NodeNames"] == ["n2", "n3"]
    assert a.filter_statuses()["n1"].format() == "Unschedulable: [node n1 is labelled reject]"


def test_weights_decide_between_extenders() -> None:
    nodes = nodes3()
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        up = {"urlPrefix": url + "/up", "prioritizeVerb": "prioritize", "weight": 1}
        down = {"urlPrefix": url + "/down", "prioritizeVerb": "prioritize-inverse", "weight": 3}
        a = http_scheduler(nodes, up, down).evaluate(make_pod("p"))
        b = http_scheduler(nodes, {**up, "weight": 5}, down).evaluate(make_pod("p"))
    # n1 (score 10) is not filtered here: up gives 10*1*10, down 0*3*10; n2: 20 + 240; n3: 90 + 30
    assert a.scores()["n2"][url + "/down"]["finalScore"] == 240
    assert a.node == "n2"
    # with weight 5 up: n1 500, n2 100 + 240, n3 450 + 30
    assert b.node == "n1"


def test_a_dead_extender_fails_the_attempt_unless_ignorable() -> None:
    dead = closed_port_url()
    nodes = nodes3()
    a = http_scheduler(nodes, {"urlPrefix": dead, "filterVerb": "filter"}).evaluate(make_pod("p"))
    port = dead.split(":")[2].split("/")[0]
    assert a.status is not None and a.status.code == Code.ERROR
    assert a.message() == f'Post "{dead}/filter": dial tcp 127.0.0.1:{port}: connect: connection refused'
    a = http_scheduler(nodes, {"urlPrefix": dead, "filterVerb": "filter", "ignorable": True}).evaluate(make_pod("p"))
    assert a.succeeded and a.node is not None
    # a prioritize failure never fails scheduling (upstream ignores it), ignorable or not
    a = http_scheduler(nodes, {"urlPrefix": dead, "prioritizeVerb": "prioritize", "weight": 1}).evaluate(make_pod("p"))
    assert a.succeeded and all(dead not in per for per in a.scores().values())


def unchecked_scheduler(nodes: list[dict[str, Any]], url_prefix: str, **fields: Any) -> Scheduler:
    """A scheduler with an extender config that validation would refuse (as the Python API allows)."""
    s = Scheduler(seed=3, extenders=build_extenders([ExtenderConfig(url_prefix=url_prefix, **fields)]))
    for n in nodes:
        s.add_node(n)
    return s


@pytest.mark.parametrize(("url", "message"), [
    ("localhost:8888", 'Post "localhost:8888/filter": unsupported protocol scheme "localhost"'),
    ("ftp://127.0.0.1:1", 'Post "ftp://127.0.0.1:1/filter": unsupported protocol scheme "ftp"'),
    ("http://", 'Post "http:/filter": http: no Host in request URL'),
    ("http://[::1", 'parse "http://[::1/filter": missing \']\' in host'),
])
def test_a_url_go_cannot_post_to(url: str, message: str) -> None:
    """What kube-scheduler says at call time; `kubesim validate` refuses these before the run."""
    a = unchecked_scheduler(nodes3(), url, filter_verb="filter").evaluate(make_pod("p"))
    assert a.status is not None and a.status.code == Code.ERROR
    assert a.message() == message


def test_http_error_texts() -> None:
    nodes = nodes3()
    failing = LabelExtender(nodes, status=500)
    with serve(failing) as url:
        a = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter"}).evaluate(make_pod("p"))
    assert a.message() == f"failed filter with extender at URL {url}/filter, code 500"
    with serve(LabelExtender(nodes)) as url:
        a = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "garbage"}).evaluate(make_pod("p"))
    assert a.message() == "invalid character '<' looking for beginning of value"
    slow = LabelExtender(nodes, delay=1.0)
    with serve(slow) as url:
        a = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter", "httpTimeout": "100ms"}).evaluate(make_pod("p"))
    assert a.message() == f'Post "{url}/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'


def test_managed_resources_limit_the_pods_sent() -> None:
    nodes = nodes3()
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        s = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter",
                                   "managedResources": [{"name": "example.com/gpu"}]})
        plain = s.evaluate(make_pod("plain", reqs=[{"cpu": "1"}]))
        assert ext.requests == []
        assert plain.node is not None
        gpu_nodes = [make_node(n["metadata"]["name"], {**CAP, "example.com/gpu": "2"}, labels=n["metadata"]["labels"])
                     for n in nodes]
        for n in gpu_nodes:
            s.update_node(n)
        gpu = s.evaluate(make_pod("gpu", reqs=[{"cpu": "1", "example.com/gpu": "1"}]))
    assert len(ext.requests) == 1 and gpu.node in ("n2", "n3")


def test_bind_request_and_binding() -> None:
    nodes = nodes3()
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        s = http_scheduler(nodes, {"urlPrefix": url, "filterVerb": "filter", "bindVerb": "bind"})
        pod = make_pod("p")
        s.add_pod(pod)
        a = s.schedule_one()
    assert a is not None and a.bound
    assert ext.bindings == [{"PodName": "p", "PodNamespace": "default", "PodUID": pod["metadata"]["uid"], "Node": a.node}]
    assert list(ext.bindings[0]) == ["PodName", "PodNamespace", "PodUID", "Node"]
    assert s.bindings == [(a.pod_key, a.node)]


@pytest.mark.parametrize("cache_capable", [False, True])
def test_preemption_candidates_narrowed_by_the_extender(cache_capable: bool) -> None:
    """Two full nodes: the extender's preempt verb drops n1, so the preemptor is nominated to n2."""
    nodes = [make_node("n1", {"cpu": "1", "pods": 10}, labels={"reject": "true"}),
             make_node("n2", {"cpu": "1", "pods": 10})]
    ext = LabelExtender(nodes)
    with serve(ext) as url:
        s = http_scheduler(nodes, {"urlPrefix": url, "preemptVerb": "preempt", "nodeCacheCapable": cache_capable},
                           record_results=True)
        for i, n in enumerate(("n1", "n2")):
            victim = make_pod(f"low{i}", node=n, reqs=[{"cpu": "1"}], priority=0)
            s.add_pod(victim)
        s.add_pod(make_pod("high", reqs=[{"cpu": "1"}], priority=100))
        a = s.schedule_one()
    assert a is not None and a.nominated_node == "n2"
    assert s.preemptions and all(node == "n2" for _, _, node in s.preemptions)
    path, args = ext.requests[0]
    assert path == "/scheduler/preempt"
    assert list(args) == ["Pod", "NodeNameToVictims", "NodeNameToMetaVictims"]
    if cache_capable:
        assert args["NodeNameToVictims"] is None
        assert set(args["NodeNameToMetaVictims"]) == {"n1", "n2"}
        assert args["NodeNameToMetaVictims"]["n2"]["NumPDBViolations"] == 0
        assert list(args["NodeNameToMetaVictims"]["n2"]["Pods"][0]) == ["UID"]
    else:
        assert args["NodeNameToMetaVictims"] is None
        assert args["NodeNameToVictims"]["n2"]["Pods"][0]["metadata"]["name"] == "low1"
    assert a.extender_responses["preempt"][url]["NodeNameToMetaVictims"].keys() == {"n2"}


# --------------------------------------------------------------- kubesim run


def scenario(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> dict[str, Any]:
    ops = [{"id": f"node-{i}", "step": 0, "createOperation": {"object": n}} for i, n in enumerate(nodes)]
    ops += [{"id": f"pod-{i}", "step": 1, "createOperation": {"object": p}} for i, p in enumerate(pods)]
    ops.append({"id": "done", "step": 2, "doneOperation": {}})
    return {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
            "metadata": {"name": "extenders"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": ops}}


def cluster_node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}


def cluster_pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]}}


def run_with_extenders(tmp_path: Path, extenders: list[dict[str, Any]], pods: int = 2) -> tuple[Any, dict[str, Any]]:
    nodes = [cluster_node("n1", {"reject": "true", "score": "10"}), cluster_node("n2", {"score": "2"}),
             cluster_node("n3", {"score": "9"})]
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(scenario(nodes, [cluster_pod(f"p{i}") for i in range(pods)])))
    (tmp_path / "sched.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "extenders": extenders}))
    proc = run_kubesim("run", "s.yaml", "--scheduler-config", "sched.yaml", "-o", "result.json",
                       "--export-cluster", "state.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    state = yaml.safe_load((tmp_path / "state.yaml").read_text())
    return result, {o["metadata"]["name"]: o for o in state["items"] if o["kind"] == "Pod"}


def scheduler_events(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(kind, e[kind]) for events in result["status"]["scenarioResult"]["timeline"].values()
            for e in events for kind in ("podScheduled", "podUnscheduled") if kind in e]


def test_kubesim_run_with_an_http_extender(tmp_path: Path) -> None:
    ext = LabelExtender()
    with serve(ext) as url:
        result, pods = run_with_extenders(tmp_path, [{
            "urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "bindVerb": "bind",
            "weight": 1, "httpTimeout": "2s"}])
    assert result["status"]["phase"] == "Succeeded"
    # the extender's score 9 on n3 (90 points) outweighs the plugins' preferences
    assert {n: p["spec"].get("nodeName") for n, p in pods.items()} == {"p0": "n3", "p1": "n3"}
    # the extender bound them (and kubesim wrote the bindings as its effect)
    assert [(b["PodName"], b["Node"]) for b in ext.bindings] == [("p0", "n3"), ("p1", "n3")]
    events = scheduler_events(result)
    assert [k for k, _ in events] == ["podScheduled", "podScheduled"]
    attempt = events[0][1]["scheduleResult"][0]
    assert attempt["pluginResults"]["filter"]["n1"][url] == "node n1 is labelled reject"
    assert attempt["pluginResults"]["filter"]["n3"][url] == "passed"
    assert attempt["pluginResults"]["score"]["n3"][url] == {"rawScore": 9, "normalizedScore": 90, "finalScore": 90}
    assert attempt["allFilteredNodes"] == ["n2", "n3"]


def test_kubesim_run_with_a_dead_extender(tmp_path: Path) -> None:
    dead = closed_port_url()
    result, pods = run_with_extenders(tmp_path, [{"urlPrefix": dead, "filterVerb": "filter"}], pods=1)
    events = scheduler_events(result)
    assert {k for k, _ in events} == {"podUnscheduled"}
    assert events[0][1]["scheduleResult"][0]["message"].startswith(f'Post "{dead}/filter": dial tcp 127.0.0.1:')
    assert pods["p0"]["spec"].get("nodeName") is None

    result, pods = run_with_extenders(tmp_path, [{"urlPrefix": dead, "filterVerb": "filter", "ignorable": True}], pods=1)
    assert pods["p0"]["spec"].get("nodeName") in ("n1", "n2", "n3")


def test_extender_objects_from_config() -> None:
    (ext,) = build_extenders(config({"urlPrefix": "http://127.0.0.1:1/x", "filterVerb": "f", "prioritizeVerb": "p",
                                     "weight": 4, "bindVerb": "b", "preemptVerb": "e", "ignorable": True,
                                     "nodeCacheCapable": True}).extenders)
    assert isinstance(ext, Extender)
    assert (ext.name, ext.filter_verb, ext.prioritize_verb, ext.bind_verb, ext.preempt_verb) == (
        "http://127.0.0.1:1/x", "f", "p", "b", "e")
    assert (ext.weight, ext.ignorable, ext.node_cache_capable) == (4, True, True)
    assert ext.transport.timeout == 5.0  # type: ignore[attr-defined]
