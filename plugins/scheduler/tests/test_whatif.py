"""WhatIfScheduler: the scheduler `kubesim capacity` feeds one pod at a time over a fixed cluster
(upstream: kubernetes-sigs/cluster-capacity pkg/framework/simulator.go)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesim_scheduler.plugins.registry import in_tree_registry
from kubesim_scheduler.whatif import WhatIfScheduler

MOST_ALLOCATED = Path(__file__).resolve().parents[3] / "examples" / "compare" / "most-allocated.yaml"


def _node(name: str, cpu: str = "2") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, cpu: str = "1", node: str | None = None, phase: str | None = None,
         priority: int | None = None) -> dict[str, Any]:
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
                           "spec": {"containers": [{"name": "c", "image": "x",
                                                    "resources": {"requests": {"cpu": cpu}}}]}}
    if node:
        pod["spec"]["nodeName"] = node
    if phase:
        pod["status"] = {"phase": phase}
    if priority is not None:
        pod["spec"]["priority"] = priority
    return pod


def _sim(objects: list[dict[str, Any]], config: Path | None = None, seed: int = 0) -> WhatIfScheduler:
    return WhatIfScheduler(objects, {"scheduler_config": config}, in_tree_registry(), [], seed)


def test_bound_pods_count_and_pending_or_finished_ones_do_not() -> None:
    # n1 (2 cpu) holds a running 1-cpu pod; a pending pod and a Succeeded one take nothing
    sim = _sim([_node("n1"), _pod("running", node="n1"), _pod("pending"), _pod("done", cpu="2", node="n1",
                                                                              phase="Succeeded")])
    assert sim.schedule(_pod("x")).node == "n1"
    failed = sim.schedule(_pod("y"))
    assert failed.node is None
    assert failed.message == "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, " \
                             "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."


def test_a_pod_that_does_not_fit_takes_nothing_and_the_next_one_still_fits() -> None:
    sim = _sim([_node("n1")])
    assert sim.schedule(_pod("big", cpu="3")).node is None
    assert sim.schedule(_pod("a")).node == "n1"
    assert sim.schedule(_pod("b")).node == "n1"
    assert sim.schedule(_pod("c")).node is None


def test_preemption_is_explained_but_nobody_is_evicted() -> None:
    sim = _sim([_node("n1"), _pod("low", cpu="2", node="n1", priority=0)])
    high = sim.schedule(_pod("high", priority=1000))
    assert high.node is None and "Insufficient cpu" in high.message
    assert sim.schedule(_pod("high-2", priority=1000)).node is None  # "low" still holds the node


def test_without_explanation_the_decision_is_the_same_and_the_message_empty() -> None:
    a, b = _sim([_node("n1")]), _sim([_node("n1")])
    for i in range(3):
        pa, pb = a.schedule(_pod(f"p{i}")), b.schedule(_pod(f"p{i}"), explain=False)
        assert pa.node == pb.node
        assert pb.message == ""
    assert a.schedule(_pod("x")).message != ""


def test_removing_a_node_or_a_pod_frees_room() -> None:
    sim = _sim([_node("n1"), _node("n2", cpu="1"), _pod("a", cpu="2", node="n1")])
    assert sim.schedule(_pod("x", cpu="2")).node is None
    sim.remove_pod(_pod("a"))
    assert sim.schedule(_pod("x", cpu="2")).node == "n1"
    sim.remove_node("n1")
    assert sim.node_names() == ["n2"]
    sim.add_node(_node("n3", cpu="4"))
    assert sim.schedule(_pod("y", cpu="3")).node == "n3"


def test_the_scheduler_configuration_decides() -> None:
    # n1 is half full: LeastAllocated (default) picks the empty n2, MostAllocated the fuller n1
    objects = [_node("n1", cpu="4"), _node("n2", cpu="4"), _pod("half", cpu="2", node="n1")]
    assert _sim(objects).schedule(_pod("x")).node == "n2"
    assert _sim(objects, MOST_ALLOCATED).schedule(_pod("x")).node == "n1"


def test_ties_are_broken_the_same_way_for_the_same_seed() -> None:
    runs = []
    for _ in range(2):
        sim = _sim([_node(f"n{i}") for i in range(8)], seed=7)
        runs.append([sim.schedule(_pod(f"p{i}", cpu="100m")).node for i in range(6)])
    assert runs[0] == runs[1]
    assert len(set(runs[0])) == 6  # LeastAllocated spreads over the empty nodes
