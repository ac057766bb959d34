"""The plain-pod fast path (kubesim_scheduler.fastpath) against the plugin-by-plugin runners.

Differential: the 300 conformance cases and seeded random clusters are scheduled with the
fast path on and off (KUBESIM_SCHEDULER_FASTPATH=0), and every attempt must record the same
placement, message, per-node filter results and per-plugin raw/normalised/final scores;
`kubesim run` must write the same result bytes either way. Each test also checks that the
fast path answered for a good share of the cycles, so that it is not vacuous.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance_data import cases
from kubesim_scheduler import Scheduler
from kubesim_scheduler.attempt import ScheduleAttempt
from kubesim_scheduler.fastpath import ENV_SWITCH, FastPath

Record = dict[str, Any]


@pytest.fixture
def fast_hits(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Counts of Filter/Score passes the fast path answered (not None)."""
    hits = {"filter": 0, "score": 0}
    orig_filter, orig_score = FastPath.filter, FastPath.score

    def count_filter(self: FastPath, *a: Any) -> Any:
        out = orig_filter(self, *a)
        hits["filter"] += out is not None
        return out

    def count_score(self: FastPath, *a: Any) -> Any:
        out = orig_score(self, *a)
        hits["score"] += out is not None
        return out

    monkeypatch.setattr(FastPath, "filter", count_filter)
    monkeypatch.setattr(FastPath, "score", count_score)
    yield hits


def record(a: ScheduleAttempt) -> Record:
    return {
        "node": a.node,
        "message": a.message(),
        "feasible": a.feasible_nodes(),
        "filter": a.filter_results(),
        "statuses": {n: (st.plugin, st.format()) for n, st in a.filter_statuses().items()},
        "reasons": a.reason_counts(),
        "scores": a.scores(),
        "totals": a.totals(),
        "plugins": a.filter_plugins,
    }


def _switch(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    if on:
        monkeypatch.delenv(ENV_SWITCH, raising=False)
    else:
        monkeypatch.setenv(ENV_SWITCH, "0")


# ------------------------------------------------------------------ conformance cases
def _evaluate(case: dict[str, Any]) -> Record:
    s = Scheduler(percentage_of_nodes_to_score=100, seed=1)
    for n in case["nodes"]:
        s.add_node(n)
    for p in case["existingPods"]:
        s.add_pod(p)
    return record(s.evaluate(case["pod"]))


def test_conformance_cases_same_with_and_without(monkeypatch: pytest.MonkeyPatch, fast_hits: dict[str, int]) -> None:
    all_cases = cases()
    _switch(monkeypatch, False)
    slow = [_evaluate(c) for c in all_cases]
    assert fast_hits == {"filter": 0, "score": 0}  # the switch turns it off
    _switch(monkeypatch, True)
    fast = [_evaluate(c) for c in all_cases]
    differ = [c["name"] for c, a, b in zip(all_cases, slow, fast) if a != b]
    assert not differ, f"{len(differ)} cases differ, first {differ[:5]}"
    # most cases exercise constraints, taints or images: only a few are plain enough
    assert fast_hits["filter"] >= 5 and fast_hits["score"] >= 5, fast_hits


# --------------------------------------------------------------------- random clusters
def _node(rng: random.Random, i: int, taints: bool, unschedulable: bool, images: bool) -> dict[str, Any]:
    cpu = rng.choice(["1", "2", "4", "3500m", "0"])
    mem = rng.choice(["1Gi", "4Gi", "32Gi", "1500Mi", "0"])
    node: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": f"node-{i:03d}", "labels": {"kubernetes.io/hostname": f"node-{i:03d}"}},
        "spec": {},
        "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": str(rng.randint(2, 12))}},
    }
    if taints and rng.random() < 0.3:
        effect = rng.choice(["PreferNoSchedule", "NoSchedule"])
        node["spec"]["taints"] = [{"key": "dedicated", "value": "x", "effect": effect}]
    if unschedulable and rng.random() < 0.2:
        node["spec"]["unschedulable"] = True
    if images and rng.random() < 0.5:
        node["status"]["images"] = [{"names": ["app:1"], "sizeBytes": rng.randint(1, 900) * 1024 * 1024}]
    return node


def _pod(rng: random.Random, i: int) -> dict[str, Any]:
    requests: dict[str, str] = {}
    if rng.random() < 0.8:
        requests["cpu"] = rng.choice(["100m", "250m", "1", "1500m", "5"])
    if rng.random() < 0.8:
        requests["memory"] = rng.choice(["100Mi", "500Mi", "2Gi", "40Gi"])
    container: dict[str, Any] = {"name": "c", "image": rng.choice(["app:1", "other:2"])}
    if requests:
        container["resources"] = {"requests": requests}
    spec: dict[str, Any] = {"containers": [container]}
    if rng.random() < 0.1:
        spec["initContainers"] = [{"name": "init", "image": "init:1", "resources": {"requests": {"cpu": "2"}}}]
    if rng.random() < 0.1:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i:03d}", "namespace": "default", "uid": f"uid-{i}"},
        "spec": spec,
    }


def _schedule(seed: int, variant: int, percentage: int) -> list[Record]:
    rng = random.Random(seed)
    s = Scheduler(percentage_of_nodes_to_score=percentage, seed=seed)
    taints, unschedulable, images = variant & 1, variant & 2, variant & 4
    for i in range(rng.randint(3, 40)):
        s.add_node(_node(rng, i, bool(taints), bool(unschedulable), bool(images)))
    n_nodes = len(s.table.order)
    for i in range(rng.randint(10, 80)):
        s.add_pod(_pod(rng, i))
    out = [record(a) for a in s.run(max_attempts=20)]
    for i in range(12):  # bound elsewhere: more changed rows than are recomputed one by one
        pod = _pod(rng, 500 + i)
        pod["spec"]["nodeName"] = f"node-{rng.randrange(n_nodes):03d}"
        s.add_pod(pod)
    return out + [record(a) for a in s.run(max_attempts=200)]


@pytest.mark.parametrize("variant", range(8), ids=lambda v: f"taints{v & 1}-unsched{v >> 1 & 1}-images{v >> 2 & 1}")
def test_random_clusters_same_with_and_without(
    monkeypatch: pytest.MonkeyPatch, fast_hits: dict[str, int], variant: int
) -> None:
    for seed in range(6):
        pct = (100, 0, 50)[seed % 3]
        _switch(monkeypatch, False)
        slow = _schedule(seed, variant, pct)
        _switch(monkeypatch, True)
        fast = _schedule(seed, variant, pct)
        assert len(slow) == len(fast)
        for k, (a, b) in enumerate(zip(slow, fast)):
            assert a == b, f"seed {seed}, attempt {k}: {a} != {b}"
    # a taint anywhere sends Filter and Score to the runners, an unschedulable node Filter
    if not variant & 1:
        assert fast_hits["score"] > 0, fast_hits
    if not variant & 3:
        assert fast_hits["filter"] > 0, fast_hits


def test_full_nodes_are_rejected_by_fit_on_the_fast_path(monkeypatch: pytest.MonkeyPatch, fast_hits: dict[str, int]) -> None:
    """Fit's rejections (Too many pods / Insufficient cpu) come out of the fast path as from the runners."""
    def run() -> list[Record]:
        s = Scheduler(percentage_of_nodes_to_score=100, seed=3)
        for i in range(4):
            s.add_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}, "spec": {},
                        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "3"}}})
        for i in range(16):
            s.add_pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:02d}", "namespace": "d", "uid": f"u{i}"},
                       "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "300m"}}}]}})
        return [record(a) for a in s.run(max_attempts=16)]

    _switch(monkeypatch, False)
    slow = run()
    _switch(monkeypatch, True)
    fast = run()
    assert slow == fast
    assert sum(r["node"] is not None for r in fast) == 12
    assert fast[-1]["reasons"] == {"Insufficient cpu": 4} or "Too many pods" in fast[-1]["reasons"]
    assert fast_hits["filter"] >= 16


# ------------------------------------------------------------------------ end to end
def test_kubesim_run_writes_the_same_result_with_and_without(run_kubesim: Any, tmp_path: Path) -> None:
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:02d}"}, "spec": {},
              "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}} for i in range(30)]
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i:02d}", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "pause",
                                      "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}}
            for i in range(60)]
    ops = [{"id": f"n{i}", "step": 0, "createOperation": {"object": o}} for i, o in enumerate(nodes)]
    ops += [{"id": f"p{i}", "step": 1, "createOperation": {"object": o}} for i, o in enumerate(pods)]
    ops.append({"id": "done", "step": 2, "doneOperation": {}})
    scenario = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
                "metadata": {"name": "fastpath"},
                "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": ops}}
    (tmp_path / "s.json").write_text(json.dumps(scenario), encoding="utf-8")
    outs = {}
    for switch in ("1", "0"):
        for detail in ("full", "summary"):
            out = tmp_path / f"r-{switch}-{detail}.json"
            r = run_kubesim("run", "s.json", "-o", out.name, "--detail", detail, "-q", env={ENV_SWITCH: switch})
            assert r.returncode == 0, r.stderr
            outs[switch, detail] = out.read_bytes()
    assert outs["1", "full"] == outs["0", "full"] and outs["1", "summary"] == outs["0", "summary"]
    bound = json.loads(outs["1", "summary"])["status"]["scenarioResult"]["timeline"]
    assert sum(1 for evs in bound.values() for e in evs if "podScheduled" in e) == 60


@pytest.mark.parametrize("percentage", [0, 10])
def test_request_shapes_in_turn_and_partial_scoring(
    monkeypatch: pytest.MonkeyPatch, fast_hits: dict[str, int], percentage: int
) -> None:
    """Pods of three request shapes in turn (a per-row cache each), a share of 250 nodes scored."""
    def run() -> list[Record]:
        s = Scheduler(percentage_of_nodes_to_score=percentage, seed=7)
        for i in range(250):
            s.add_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i:03d}"}, "spec": {},
                        "status": {"allocatable": {"cpu": str(2 + i % 3), "memory": f"{4 + i % 5}Gi", "pods": "20"}}})
        for i in range(150):
            req = {"cpu": f"{100 + 150 * (i % 3)}m", "memory": f"{200 + 300 * (i % 3)}Mi"}
            s.add_pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:03d}", "namespace": "d", "uid": f"u{i}"},
                       "spec": {"containers": [{"name": "c", "resources": {"requests": req}}]}})
        return [record(a) for a in s.run(max_attempts=150)]

    _switch(monkeypatch, False)
    slow = run()
    _switch(monkeypatch, True)
    fast = run()
    assert slow == fast
    assert all(r["node"] is not None for r in fast)
    assert fast_hits["filter"] >= 150 and fast_hits["score"] >= 140, fast_hits


def test_shared_pod_requests_equal_parsing_each_pod(monkeypatch: pytest.MonkeyPatch) -> None:
    """PodInfo's requests shared between pods of equal containers equal each pod's own parse."""
    from kubesim_scheduler.framework import pod_info as pod_info_module
    from kubesim_scheduler.framework.pod_info import PodInfo

    def pod(requests: Any, **spec: Any) -> dict[str, Any]:
        c: dict[str, Any] = {"name": "c"}
        if requests is not None:
            c["resources"] = {"requests": requests}
        return {"metadata": {"name": "p", "namespace": "d"}, "spec": {"containers": [c, {"name": "s"}], **spec}}

    pods = [pod(None), pod({"cpu": "100m"}), pod({"cpu": 1}), pod({"cpu": "1"}), pod({"cpu": 1.5}),
            pod({"memory": "1Gi", "cpu": "250m"}), pod({"cpu": "250m", "memory": "1Gi"}), pod({"example.com/gpu": "2"}),
            pod({"cpu": "1"}, overhead={"cpu": "50m"}), pod({"cpu": "1"}, resources={"requests": {"memory": "2Gi"}}),
            pod({"cpu": "1"}, initContainers=[{"name": "i", "resources": {"requests": {"cpu": "3"}}}])]

    def view(pi: PodInfo) -> tuple[Any, ...]:
        return (pi.requests, pi.non0_cpu, pi.non0_mem, pi.fit_request,
                *(pi.score_request(r, u) for r in ("cpu", "memory", "example.com/gpu") for u in (True, False)))

    shared = [view(PodInfo(p)) for p in pods] + [view(PodInfo(p)) for p in pods]  # second round: from the cache
    monkeypatch.setattr(pod_info_module, "_shared_requests", lambda _pod: None)
    own = [view(PodInfo(p)) for p in pods] * 2
    assert shared == own
    assert view(PodInfo(pods[2])) != view(PodInfo(pods[1]))  # 1 CPU is not 100m


def test_nodes_tainted_and_cordoned_between_pods(monkeypatch: pytest.MonkeyPatch, fast_hits: dict[str, int]) -> None:
    """The fast path's memo of "any taint / any unschedulable node" follows node updates: a
    taint or cordon added between two pods sends them to the runners, and its removal back;
    the trim to the best nodes (summary) keeps the same nodes either way."""
    def run() -> list[Record]:
        rng = random.Random(11)
        s = Scheduler(percentage_of_nodes_to_score=100, seed=5)
        s.detail = 3  # the trim of --detail summary, to 3 nodes
        nodes = [_node(rng, i, False, False, False) for i in range(12)]
        for n in nodes:
            s.add_node(n)
        out: list[Record] = []
        for i in range(30):
            if i == 8:
                s.update_node({**nodes[2], "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}})
            elif i == 14:
                s.update_node({**nodes[2], "spec": {}})
            elif i == 18:
                s.update_node({**nodes[5], "spec": {"unschedulable": True}})
            elif i == 24:
                s.update_node({**nodes[5], "spec": {}})
            s.add_pod(_pod(rng, i))
            out.extend(record(a) for a in s.run(max_attempts=1))
        return out

    _switch(monkeypatch, False)
    slow = run()
    _switch(monkeypatch, True)
    fast = run()
    assert slow == fast
    assert all(len(r["scores"]) <= 3 for r in fast)
    # 8 + 4 + 6 untainted pods scored on the fast path, 6 tainted ones by the runners
    assert 0 < fast_hits["score"] < 30 and 0 < fast_hits["filter"] < 30, fast_hits


def test_order_is_range_only_for_rows_in_row_order() -> None:
    """The fast path slices its per-row caches instead of gathering them only when the node
    order is every row in row order: one zone, no released row."""
    s = Scheduler(percentage_of_nodes_to_score=100, seed=1)
    for i in range(4):
        s.add_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}, "spec": {},
                    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "3"}}})
    assert s.table.order_is_range()
    s.add_node({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": "z", "labels": {"topology.kubernetes.io/zone": "b"}}, "spec": {},
                "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "3"}}})
    assert s.table.order.tolist() == [0, 4, 1, 2, 3] and not s.table.order_is_range()
    s.remove_node("z")  # its row is released, so not in the order
    assert s.table.order.tolist() == [0, 1, 2, 3] and not s.table.order_is_range()
