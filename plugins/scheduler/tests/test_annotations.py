"""`kubesim run --annotations`: kube-scheduler-simulator's result annotations on pods, their
exact contents, the history across attempts, and trimming to the 256 KiB annotation limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim
from kubesim_scheduler import Scheduler
from kubesim_scheduler.annotations import (
    FILTER_RESULT,
    FINAL_SCORE_RESULT,
    PREFIX,
    RESULT_HISTORY,
    RESULT_TRUNCATED,
    SCORE_RESULT,
    SELECTED_NODE,
    TOTAL_ANNOTATION_SIZE_LIMIT,
    annotation_size,
    attempt_annotations,
    go_json,
)
from scheduler_harness import make_node, make_pod

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = REPO / "examples" / "quickstart" / "scenario.yaml"


def node(name: str, cpu: str, mem: str, *, taint: bool = False) -> dict[str, Any]:
    alloc = {"cpu": cpu, "memory": mem, "pods": "110"}
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                           "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}
    if taint:
        obj["spec"] = {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
    return obj


def pod(name: str, cpu: str = "500m", mem: str = "1Gi") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}}


def scenario(steps: list[list[dict[str, Any]]]) -> dict[str, Any]:
    ops = [{"id": f"op-{s}-{i}", "step": s, "createOperation": {"object": o}}
           for s, objs in enumerate(steps) for i, o in enumerate(objs)]
    ops.append({"id": "done", "step": len(steps), "doneOperation": {}})
    return {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
            "metadata": {"name": "annotations"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": ops}}


def run(tmp_path: Path, doc: dict[str, Any], *args: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    (tmp_path / "s.yaml").write_text(json.dumps(doc))  # JSON is YAML, and quicker to write and read
    proc = run_kubesim("run", "s.yaml", "-o", "result.json", "--export-cluster", "state.json", *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    state = json.loads((tmp_path / "state.json").read_text())
    return result, {o["metadata"]["name"]: o for o in state["items"] if o["kind"] == "Pod"}


def results_of(p: dict[str, Any]) -> dict[str, str]:
    return {k: v for k, v in (p["metadata"].get("annotations") or {}).items() if k.startswith(PREFIX)}


def test_exact_annotations_of_a_small_scenario(tmp_path: Path) -> None:
    doc = scenario([[node("node-a", "4", "16Gi"), node("node-b", "2", "8Gi"), node("node-c", "8", "32Gi", taint=True)],
                    [pod("web")]])
    result, pods = run(tmp_path, doc, "--annotations")
    got = results_of(pods["web"])
    history = json.loads(got.pop(RESULT_HISTORY))
    # PreFilter: only NodeResourcesFit has work for a pod with requests only; the others Skip,
    # which the simulator's wrapper records as the Skip status' empty message.
    prefilter = {"DynamicResources": "", "InterPodAffinity": "", "NodeAffinity": "", "NodePorts": "", "NodeResourcesFit": "success",
                 "NodeVolumeLimits": "", "PodTopologySpread": "", "VolumeBinding": "", "VolumeRestrictions": "",
                 "VolumeZone": ""}
    # Filter: plugins whose PreFilter skipped do not run; node-c's taint stops it at TaintToleration.
    passed = {"NodeName": "passed", "NodeResourcesFit": "passed", "NodeUnschedulable": "passed", "TaintToleration": "passed"}
    filt = {"node-a": passed, "node-b": passed,
            "node-c": {"NodeName": "passed", "NodeUnschedulable": "passed",
                       "TaintToleration": "node(s) had untolerated taint {dedicated: gpu}"}}
    # Score (LeastAllocated of 500m/1Gi): node-a cpu 87, memory 93 -> 90; node-b 75, 87 -> 81.
    # Balanced: node-a |0.125-0.0625|/2 -> 96; node-b |0.25-0.125|/2 -> 93. TaintToleration:
    # no PreferNoSchedule taints, raw 0, normalized 100, weight 3. No images: ImageLocality 0.
    raw = {"node-a": {"ImageLocality": "0", "NodeResourcesBalancedAllocation": "96", "NodeResourcesFit": "90", "TaintToleration": "0"},
           "node-b": {"ImageLocality": "0", "NodeResourcesBalancedAllocation": "93", "NodeResourcesFit": "81", "TaintToleration": "0"}}
    final = {n: {**v, "TaintToleration": "300"} for n, v in raw.items()}
    prescore = {"InterPodAffinity": "", "NodeAffinity": "", "NodeResourcesBalancedAllocation": "success",
                "NodeResourcesFit": "success", "PodTopologySpread": "", "TaintToleration": "success", "VolumeBinding": ""}
    expected = {
        PREFIX + "prefilter-result-status": go_json(prefilter),
        PREFIX + "prefilter-result": "{}",
        PREFIX + "filter-result": go_json(filt),
        PREFIX + "postfilter-result": "{}",
        PREFIX + "prescore-result": go_json(prescore),
        PREFIX + "score-result": go_json(raw),
        PREFIX + "finalscore-result": go_json(final),
        PREFIX + "reserve-result": '{"DynamicResources":"success","VolumeBinding":"success"}',
        PREFIX + "permit-result": "{}",
        PREFIX + "permit-result-timeout": "{}",
        PREFIX + "prebind-result": '{"DynamicResources":"success","VolumeBinding":"success"}',
        PREFIX + "bind-result": '{"DefaultBinder":"success"}',
        PREFIX + "selected-node": "node-a",
    }
    assert got == expected
    assert got[PREFIX + "filter-result"].startswith('{"node-a":{"NodeName":"passed","NodeResourcesFit":"passed",')
    assert history == [expected]
    assert pods["web"]["spec"]["nodeName"] == "node-a"
    # the podScheduled event carries the annotated pod
    scheduled = [e["podScheduled"] for e in result["status"]["scenarioResult"]["timeline"]["1"] if "podScheduled" in e]
    assert results_of(scheduled[0]["pod"])[SELECTED_NODE] == "node-a"


def test_no_annotations_without_the_flag(tmp_path: Path) -> None:
    _, pods = run(tmp_path, scenario([[node("node-a", "4", "16Gi")], [pod("web")]]))
    assert results_of(pods["web"]) == {}


def pod_events(result: dict[str, Any]) -> list[tuple[str, tuple[int, int], str, str | None]]:
    return [(kind, (e["step"]["major"], e["step"]["minor"]), e[kind]["pod"]["metadata"]["name"], e[kind].get("boundTo"))
            for events in result["status"]["scenarioResult"]["timeline"].values() for e in events
            for kind in ("podScheduled", "podUnscheduled") if kind in e]


def test_annotations_keep_one_minor_step_per_bind(tmp_path: Path) -> None:
    outs = []
    for i, extra in enumerate(((), ("--annotations",))):
        proc = run_kubesim("run", str(QUICKSTART), "-o", f"r{i}.json", "--seed", "3", *extra, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        outs.append(expand_pod_refs(json.loads((tmp_path / f"r{i}.json").read_text())))
    assert pod_events(outs[0]) == pod_events(outs[1])
    patches = [e for events in outs[1]["status"]["scenarioResult"]["timeline"].values() for e in events
               if "patch" in e and e.get("actor") == "scheduler"]
    # one annotation write per bind (3) and per changed PodScheduled=False condition (1)
    assert len(patches) == 4


def test_history_across_a_failed_and_a_successful_attempt(tmp_path: Path) -> None:
    doc = scenario([[node("small", "1", "4Gi")], [pod("big", cpu="3")], [node("large", "8", "32Gi")]])
    _, pods = run(tmp_path, doc, "--annotations")
    got = results_of(pods["big"])
    history = json.loads(got[RESULT_HISTORY])
    assert len(history) == 2  # the second failed try changed no condition, so wrote nothing
    first, second = history
    assert first[SELECTED_NODE] == "" and json.loads(first[FILTER_RESULT]) == {
        "small": {"NodeName": "passed", "NodeResourcesFit": "Insufficient cpu", "NodeUnschedulable": "passed",
                  "TaintToleration": "passed"}}
    assert second[SELECTED_NODE] == "large" == got[SELECTED_NODE]
    assert second == {k: v for k, v in got.items() if k != RESULT_HISTORY}
    assert RESULT_TRUNCATED not in got


# ------------------------------------------------------------- the size limit


def big_cluster(n: int = 600) -> Scheduler:
    s = Scheduler(seed=5, record_results=True, percentage_of_nodes_to_score=100)
    for i in range(n):
        taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}] if i % 7 == 0 else None
        s.add_node(make_node(f"worker-node-{i:04d}", {"cpu": str(2 + i % 13), "memory": f"{4 + i % 29}Gi", "pods": 110},
                             taints=taints))
    return s


def test_results_of_600_nodes_are_trimmed_to_the_limit() -> None:
    s = big_cluster()
    s.add_pod(make_pod("p", reqs=[{"cpu": "1", "memory": "1Gi"}]))
    attempt = s.schedule_one()
    assert attempt is not None and attempt.bound
    full = attempt_annotations(attempt, {}, limit=10**9)
    assert full is not None and not full[1]
    full_size = annotation_size({k: v for k, v in full[0].items() if v is not None})
    assert full_size > TOTAL_ANNOTATION_SIZE_LIMIT
    out = attempt_annotations(attempt, {"team": "a" * 1000})
    assert out is not None
    patch, truncated = out
    written = {k: v for k, v in patch.items() if v is not None}
    assert truncated and written[RESULT_TRUNCATED] == "true"
    size = annotation_size({**written, "team": "a" * 1000})
    # under the limit, and not by much: the space is used
    assert TOTAL_ANNOTATION_SIZE_LIMIT - 8192 < size <= TOTAL_ANNOTATION_SIZE_LIMIT
    values = {k: json.loads(v) for k, v in written.items() if k not in (SELECTED_NODE, RESULT_TRUNCATED)}
    selected = written[SELECTED_NODE]
    assert selected == attempt.node
    scores, filt = values[SCORE_RESULT], values[FILTER_RESULT]
    assert selected in scores and selected in filt and selected in values[FINAL_SCORE_RESULT]
    # the kept scored nodes are the best ones
    totals = attempt.totals()
    assert 20 < len(scores) < len(totals)
    worst_kept = min(totals[n] for n in scores)
    assert all(totals[n] <= worst_kept for n in totals if n not in scores)
    # the history holds this (trimmed) entry only
    assert values[RESULT_HISTORY] == [{k: v for k, v in written.items() if k != RESULT_HISTORY}]
    # a later untruncated write removes the marker
    small = Scheduler(record_results=True)
    small.add_node(make_node("n", {"cpu": "4", "memory": "4Gi", "pods": 10}))
    small.add_pod(make_pod("q"))
    again = attempt_annotations(small.schedule_one(), written)  # type: ignore[arg-type]
    assert again is not None and again[0][RESULT_TRUNCATED] is None and not again[1]
    assert len(json.loads(again[0][RESULT_HISTORY] or "")) == 2


def test_old_history_goes_before_nodes() -> None:
    s = big_cluster(40)
    s.add_pod(make_pod("p", reqs=[{"cpu": "1"}]))
    attempt = s.schedule_one()
    assert attempt is not None
    patch, _ = attempt_annotations(attempt, {}) or ({}, False)
    entry = {k: v for k, v in patch.items() if k != RESULT_HISTORY and v is not None}
    one = annotation_size({k: v for k, v in patch.items() if v is not None})
    # room for this entry and its history copy, but not for an old entry as well
    current = {RESULT_HISTORY: go_json([dict(sorted(entry.items()))])}
    out = attempt_annotations(attempt, current, limit=one + 200)
    assert out is not None and out[1]
    assert len(json.loads(out[0][RESULT_HISTORY] or "")) == 1
    assert json.loads(out[0][SCORE_RESULT] or "") == json.loads(entry[SCORE_RESULT])  # nodes kept whole


def test_no_room_next_to_the_pods_own_annotations() -> None:
    s = big_cluster(10)
    s.add_pod(make_pod("p"))
    attempt = s.schedule_one()
    assert attempt is not None
    assert attempt_annotations(attempt, {"huge": "x" * TOTAL_ANNOTATION_SIZE_LIMIT}) is None


def test_600_node_scenario_through_kubesim_run(tmp_path: Path) -> None:
    nodes = []
    for i in range(600):
        n = node(f"worker-node-{i:04d}", str(2 + i % 13), f"{4 + i % 29}Gi", taint=i % 7 == 0)
        nodes.append(n)
    doc = scenario([nodes, [pod("p0"), pod("p1")]])
    (tmp_path / "sched.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 100}))
    result, pods = run(tmp_path, doc, "--annotations", "--scheduler-config", "sched.yaml")
    for name in ("p0", "p1"):
        annotations = pods[name]["metadata"]["annotations"]
        assert annotation_size(annotations) <= TOTAL_ANNOTATION_SIZE_LIMIT
        assert annotations[RESULT_TRUNCATED] == "true"
        assert annotations[SELECTED_NODE] == pods[name]["spec"]["nodeName"]
        parsed = {k: json.loads(v) for k, v in annotations.items() if k not in (SELECTED_NODE, RESULT_TRUNCATED)}
        assert pods[name]["spec"]["nodeName"] in parsed[SCORE_RESULT]
        assert len(parsed[RESULT_HISTORY]) == 1
    # the timeline keeps its own (summary) detail for 600 nodes
    attempt = next(e["podScheduled"] for e in result["status"]["scenarioResult"]["timeline"]["1"]
                   if "podScheduled" in e)["scheduleResult"][0]
    assert attempt["candidateNodeCount"] == 600 and len(attempt["pluginResults"]["score"]) == 10
