"""The scheduling cycle end to end: filter/score/select, results, rotation, requeueing, binding."""

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node, make_pod

from kubesim_scheduler import (
    BatchScorePlugin,
    Code,
    FilterPlugin,
    PreEnqueuePlugin,
    ProfileConfig,
    Scheduler,
    ScorePlugin,
    Status,
    default_profile,
    in_tree_registry,
    num_feasible_nodes_to_find,
)

SMALL = {"cpu": "1", "memory": "1Gi", "pods": "10"}
BIG = {"cpu": "8", "memory": "8Gi", "pods": "10"}


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_fit_error_message_and_filter_results() -> None:
    s = Scheduler()
    for i in range(3):
        s.add_node(make_node(f"n{i}", SMALL))
    s.add_node(make_node("t1", BIG, taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]))
    s.add_pod(make_pod("big", reqs=[{"cpu": "2"}]))
    a = s.schedule_one()
    assert a is not None and a.node is None
    assert a.status is not None and a.status.code == Code.UNSCHEDULABLE
    # DynamicResources has no claim to deallocate (v1.34's PostFilter reason for every pod), then
    # DefaultPreemption finds nothing to preempt: 2 CPU exceed every node's allocatable, so
    # NodeResourcesFit's rejection is unresolvable
    assert a.message() == (
        "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 3 Insufficient cpu."
        " no new claims to deallocate, preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    fr = a.filter_results()
    assert fr["t1"] == {"NodeUnschedulable": "passed", "NodeName": "passed",
                        "TaintToleration": "node(s) had untolerated taint {dedicated: gpu}"}
    assert fr["n0"]["NodeResourcesFit"] == "Insufficient cpu"
    assert a.reason_counts() == {"node(s) had untolerated taint {dedicated: gpu}": 1, "Insufficient cpu": 3}


def test_unschedulable_pod_requeued_by_node_add_and_bound() -> None:
    clock = Clock()
    s = Scheduler(now=clock)
    s.add_node(make_node("n0", SMALL))
    s.add_pod(make_pod("big", reqs=[{"cpu": "2"}]))
    assert s.schedule_one().node is None  # type: ignore[union-attr]
    assert len(s.queue.unschedulable) == 1
    s.add_node(make_node("n1", {**SMALL, "memory": "2Gi"}))  # does not fit either: hint skips it
    assert len(s.queue.unschedulable) == 1
    s.add_node(make_node("n9", BIG))
    assert len(s.queue.unschedulable) == 0 and len(s.queue.backoff) == 1
    a = s.schedule_one()  # activeQ empty: popped from backoffQ (SchedulerPopFromBackoffQ)
    assert a is not None and a.node == "n9" and a.bound
    assert s.pods[a.pod["metadata"]["uid"]]["spec"]["nodeName"] == "n9"
    assert s.table.get("n9").requested.milli_cpu == 2000  # type: ignore[union-attr]


def test_backoff_in_simulated_time() -> None:
    clock = Clock()
    s = Scheduler(now=clock)
    s.add_node(make_node("n0", SMALL))
    p = make_pod("big", reqs=[{"cpu": "2"}])
    s.add_pod(p)
    clock.t = 0.5
    s.schedule_one()
    qpi = s.queue.unschedulable[p["metadata"]["uid"]]
    # 1s initial backoff from the failure at 0.5s, aligned down to the 1s ordering window
    assert s.queue.backoff_time(qpi) == 1.0
    clock.t = 1.2
    assert s.queue.is_backing_off(qpi)  # aligned "now" is 1.0, not before the expiration
    clock.t = 2.0
    assert not s.queue.is_backing_off(qpi)
    assert [s.queue.backoff_duration(c) for c in range(1, 7)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_selection_is_deterministic_and_in_best() -> None:
    def run(seed: int) -> list[str]:
        s = Scheduler(seed=seed)
        for i in range(6):
            s.add_node(make_node(f"n{i}", BIG))
        for i in range(6):
            s.add_pod(make_pod(f"p{i}", reqs=[{"cpu": "100m", "memory": "100Mi"}]))
        return [a.node for a in s.run()]  # type: ignore[misc]

    assert run(1) == run(1)
    assert sorted(run(1)) == [f"n{i}" for i in range(6)]  # LeastAllocated spreads them


def test_evaluate_has_no_side_effects() -> None:
    s = Scheduler()
    s.add_node(make_node("n0", BIG))
    a = s.evaluate(make_pod("p", reqs=[{"cpu": "1"}]))
    assert a.node == "n0" and not a.bound
    # cpu (8000-1000)*100/8000 = 87; memory uses the 200Mi non-zero default: 97 -> (87+97)/2
    assert a.final_scores()["n0"]["NodeResourcesFit"] == 92
    assert s.table.get("n0").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert len(s.queue) == 0


@pytest.mark.parametrize("pct,n,want", [(0, 50, 50), (0, 100, 100), (0, 1000, 420), (0, 5000, 500), (0, 6000, 300),
                                        (100, 5000, 5000), (10, 500, 100), (30, 1000, 300)])
def test_num_feasible_nodes_to_find(pct: int, n: int, want: int) -> None:
    assert num_feasible_nodes_to_find(pct, n) == want


def test_percentage_of_nodes_to_score_rotates_start() -> None:
    s = Scheduler(percentage_of_nodes_to_score=10, detail="all")
    for i in range(200):
        s.add_node(make_node(f"n{i:03d}", BIG))
    a = s.evaluate(make_pod("p"))
    assert len(a.feasible_nodes()) == 100
    s.add_pod(make_pod("q"))
    first = s.schedule_one()
    assert first is not None and len(first.feasible_nodes()) == 100
    assert s.next_start_node_index == 100
    s.add_pod(make_pod("r"))
    second = s.schedule_one()
    assert second is not None and set(second.feasible_nodes()).isdisjoint(first.feasible_nodes())


def test_scheduling_gates_keep_pod_out_of_active_queue() -> None:
    s = Scheduler()
    s.add_node(make_node("n0", BIG))
    gated = make_pod("g", gates=["wait"])
    s.add_pod(gated)
    assert s.schedule_one() is None
    assert gated["metadata"]["uid"] in s.queue.unschedulable
    ungated = {**gated, "spec": {k: v for k, v in gated["spec"].items() if k != "schedulingGates"}}
    s.update_pod(ungated)
    a = s.schedule_one()
    assert a is not None and a.node == "n0"


def test_priority_order() -> None:
    s = Scheduler()
    s.add_node(make_node("n0", BIG))
    s.add_pod(make_pod("low", priority=1))
    s.add_pod(make_pod("high", priority=100))
    order = [a.pod["metadata"]["name"] for a in s.run()]
    assert order == ["high", "low"]


def test_assigned_pod_delete_requeues_resource_rejected_pod() -> None:
    s = Scheduler()
    s.add_node(make_node("n0", SMALL))
    filler = make_pod("filler", node="n0", reqs=[{"cpu": "1"}])
    s.add_pod(filler)
    s.add_pod(make_pod("p", reqs=[{"cpu": "500m"}]))
    assert s.schedule_one().node is None  # type: ignore[union-attr]
    s.remove_pod(filler)
    assert len(s.queue.unschedulable) == 0
    assert s.schedule_one().node == "n0"  # type: ignore[union-attr]


# --- custom plugins: per-node interface adapted by the framework ----------------------

class OnlyEven(FilterPlugin):
    name = "OnlyEven"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        if int(node_info.name[1:]) % 2:
            return Status(Code.UNSCHEDULABLE, "odd node")
        return None


class PreferHigh(ScorePlugin):
    name = "PreferHigh"

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        return int(node_info.name[1:])

    def normalize_score(self, state: Any, pod: Any, scores: Any) -> Status | None:
        top = max(s.score for s in scores) or 1
        for s in scores:
            s.score = s.score * 100 // top
        return None


class RejectAll(PreEnqueuePlugin):
    name = "RejectAll"

    def pre_enqueue(self, pod: Any) -> Status | None:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "nope") if pod["metadata"]["name"] == "blocked" else None


def test_custom_per_node_plugins() -> None:
    reg = {**in_tree_registry(), OnlyEven.name: OnlyEven, PreferHigh.name: PreferHigh, RejectAll.name: RejectAll}
    base = default_profile(reg)
    plugins = dict(base.plugins)
    plugins["filter"] = (*plugins["filter"], "OnlyEven")
    plugins["score"] = ("PreferHigh",)
    plugins["preEnqueue"] = (*plugins["preEnqueue"], "RejectAll")
    profile = ProfileConfig(plugins=plugins, weights={"PreferHigh": 5})
    s = Scheduler([profile], registry=reg)
    for i in range(5):
        s.add_node(make_node(f"n{i}", BIG))
    a = s.evaluate(make_pod("p"))
    assert sorted(a.feasible_nodes()) == ["n0", "n2", "n4"]
    assert a.filter_statuses()["n1"].format() == "Unschedulable: [odd node]"
    assert a.final_scores() == {"n0": {"PreferHigh": 0}, "n2": {"PreferHigh": 250}, "n4": {"PreferHigh": 500}}
    assert a.node == "n4"
    s.add_pod(make_pod("blocked"))
    assert s.schedule_one() is None


class BadScore(BatchScorePlugin):
    name = "BadScore"

    def score_batch(self, state: Any, pod_info: Any, rows: Any) -> Any:
        import numpy as np

        return np.full(len(rows), 101, dtype=np.int64)


def test_out_of_range_score_is_an_error() -> None:
    reg = {**in_tree_registry(), BadScore.name: BadScore}
    s = Scheduler([ProfileConfig(plugins={"score": ("BadScore",), "bind": ("DefaultBinder",)})], registry=reg)
    s.add_node(make_node("n0", BIG))
    s.add_node(make_node("n1", BIG))
    a = s.evaluate(make_pod("p"))
    assert a.status is not None and a.status.code == Code.ERROR
    assert "invalid score 101" in a.message()


def test_node_table_listener_sees_every_change() -> None:
    from kubesim_scheduler.framework import NodeTableListener

    events: list[tuple[str, int, str]] = []

    class Rec(NodeTableListener):
        def node_added(self, row, node):  # type: ignore[no-untyped-def]
            events.append(("node+", row, node["metadata"]["name"]))

        def node_removed(self, row, name):  # type: ignore[no-untyped-def]
            events.append(("node-", row, name))

        def pod_added(self, row, pi):  # type: ignore[no-untyped-def]
            events.append(("pod+", row, pi.name))

        def pod_removed(self, row, pi):  # type: ignore[no-untyped-def]
            events.append(("pod-", row, pi.name))

    s = Scheduler()
    s.add_node(make_node("n0", BIG))
    s.add_pod(make_pod("a", node="n0"))
    s.table.add_listener(Rec())
    s.add_pod(make_pod("b"))
    s.run()
    s.remove_node("n0")
    assert events == [("node+", 0, "n0"), ("pod+", 0, "a"), ("pod+", 0, "b"), ("node-", 0, "n0")]
