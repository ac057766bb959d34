"""Pod requests, node allocatable, usage, the replayed cluster state and fragmentation."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from kubesim.results import (
    ClusterState,
    analyze,
    fragmentation,
    iter_events,
    node_allocatable,
    pod_requests,
    pod_usage,
    reference_pod,
)

GI = 1024**3
MI = 1024**2


def _c(cpu: str | None = None, memory: str | None = None, **extra: Any) -> dict[str, Any]:
    req = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    return {"name": "c", "resources": {"requests": req}, **extra}


def test_pod_requests_follow_the_effective_request_rule() -> None:
    # containers sum to 300m/300Mi; init steps: 500m alone; sidecar 100m joins the running total and
    # every later init step (a later init of 450m needs 550m); overhead adds 10m
    pod = {"spec": {
        "containers": [_c("100m", "100Mi"), _c("200m", "200Mi")],
        "initContainers": [_c("500m", "50Mi"), _c("100m", "10Mi", restartPolicy="Always"), _c("450m")],
        "overhead": {"cpu": "10m"},
    }}
    assert pod_requests(pod) == {"cpu": 560, "memory": 310 * MI}
    # pod-level requests replace the aggregate for cpu and memory only
    pod["spec"]["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}}
    pod["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = "1"
    assert pod_requests(pod) == {"cpu": 2010, "memory": GI, "example.com/gpu": 1}
    assert pod_requests({"spec": {"containers": [{"name": "c"}]}}) == {}
    assert pod_requests({}) == {}


def test_node_allocatable_and_usage() -> None:
    assert node_allocatable({"status": {"allocatable": {"cpu": "3500m", "memory": "1Gi", "pods": "10"}}}) == {
        "cpu": 3500, "memory": GI, "pods": 10}
    assert node_allocatable({"status": {"capacity": {"cpu": "2"}}}) == {"cpu": 2000}
    usage = {"metadata": {"annotations": {"kubesim.io/usage": json.dumps({"cpu": "250m", "memory": "64Mi"})}}}
    assert pod_usage(usage) == {"cpu": 250, "memory": 64 * MI}
    assert pod_usage({"metadata": {"annotations": {"kubesim.io/usage": "{}"}}}) == {}
    assert pod_usage({"metadata": {"annotations": {"kubesim.io/usage": "not json"}}}) is None
    assert pod_usage({"metadata": {}}) is None


def _state(build: SimpleNamespace, events: list[dict[str, Any]]) -> ClusterState:
    state = ClusterState()
    for e in iter_events(build.result({"0": events})):
        state.apply(e)
    return state


def test_state_follows_binds_terminal_pods_and_node_churn(build: SimpleNamespace) -> None:
    s = build.step
    done_pod = build.pod("done", "1", "1Gi", node_name="n1")
    done_pod["status"]["phase"] = "Succeeded"
    state = _state(build, [
        build.create("p", s(0), build.pod("p", "1", "1Gi", node_name="n1")),  # bound before its node exists
        build.create("n1", s(0), build.node("n1", "4", "8Gi")),
        build.create("q", s(0), build.pod("q", "2", "1Gi", node_name="n1")),
        build.patch("q-done", s(0), done_pod | {"metadata": {**done_pod["metadata"], "name": "q", "uid": "uid-q"}},
                    "{}", actor="kubelet"),
        build.create("r", s(0), build.pod("r", "1", "1Gi")),
    ])
    n1 = state.nodes["n1"]
    assert (n1.pods, n1.requested) == (1, {"cpu": 1000, "memory": GI})  # q finished, r is pending
    assert [p.key for p in state.pending_pods()] == ["default/r"]
    assert [p.key for p in state.pods_on("n1")] == ["default/p"]
    assert state.pods["default/q"].terminal


def test_pod_recreated_under_the_same_name_is_a_new_pod(build: SimpleNamespace) -> None:
    s = build.step
    second = build.pod("p", "2", "1Gi", node_name="n1")
    second["metadata"]["uid"] = "uid-p-2"
    result = build.result({"0": [
        build.create("n1", s(0), build.node("n1", "4", "8Gi")),
        build.create("p", s(0), build.pod("p", "1", "1Gi", node_name="n1")),
        build.create("p-again", s(0), second),
    ]})
    tables = analyze(result)
    assert [(r["uid"], r["state"]) for r in tables["pods"].records()] == [("uid-p", "deleted"), ("uid-p-2", "bound")]
    [n1] = tables["nodes"].where(node="n1")
    assert (n1["pods"], n1["cpu_requested"]) == (1, 2000)


def test_reference_pod_is_the_per_resource_median() -> None:
    assert reference_pod([]) is None
    assert reference_pod([{"cpu": 100, "memory": 5}, {"cpu": 300, "memory": 1}, {"cpu": 200}]) == {
        "cpu": 200, "memory": 1}
    assert reference_pod([{"cpu": 100}, {"cpu": 300}]) == {"cpu": 100, "memory": 0}


@pytest.mark.parametrize(("pending", "expected"), [
    # memory is full everywhere, so a node's weight is its free cpu share / 2: n1 3/20, n2 1/20, n3 3/20.
    # The median pending pod (2 cpu) fits only n3: n1 (no pod slot left) and n2 (1 cpu free) strand theirs
    (["2", "2", "3"], (3 / 20 + 1 / 20) / (7 / 20)),
    # a pod bigger than every node is not a sign of fragmentation: the 1-cpu pod is the reference,
    # and only n1 (no pod slot) cannot take it
    (["1", "64"], (3 / 20) / (7 / 20)),
    # nothing pending: the median of all pods asks for 8Gi, and no node has memory left: all cpu is stranded
    ([], 1.0),
])
def test_fragmentation(build: SimpleNamespace, pending: list[str], expected: float) -> None:
    s = build.step
    events = [
        build.create("n1", s(0), build.node("n1", "4", "8Gi", pods="1")),
        build.create("n2", s(0), build.node("n2", "2", "8Gi")),
        build.create("n3", s(0), build.node("n3", "4", "8Gi")),
        build.create("a", s(0), build.pod("a", "1", "8Gi", node_name="n1")),
        build.create("b", s(0), build.pod("b", "1", "8Gi", node_name="n2")),
        build.create("c", s(0), build.pod("c", "1", "8Gi", node_name="n3")),
    ]
    events += [build.create(f"w{i}", s(0), build.pod(f"w{i}", cpu, "0")) for i, cpu in enumerate(pending)]
    assert fragmentation(_state(build, events)) == pytest.approx(expected)


def test_fragmentation_of_cordoned_and_empty_clusters(build: SimpleNamespace) -> None:
    s = build.step
    assert fragmentation(ClusterState()) == 0.0
    events = [
        build.create("n1", s(0), build.node("n1", "4", "8Gi", unschedulable=True)),
        build.create("n2", s(0), build.node("n2", "4", "8Gi")),
        build.create("w", s(0), build.pod("w", "1", "1Gi")),
    ]
    assert fragmentation(_state(build, events)) == pytest.approx(0.5)
    full = [build.create("n1", s(0), build.node("n1", "1", "1Gi")),
            build.create("a", s(0), build.pod("a", "1", "1Gi", node_name="n1")),
            build.create("w", s(0), build.pod("w", "1", "1Gi"))]
    assert fragmentation(_state(build, full)) == 0.0  # nothing free, nothing stranded


def test_a_stale_pod_in_a_pod_event_does_not_undo_a_later_write(build: SimpleNamespace) -> None:
    s = build.step
    victim = build.pod("victim", "1", "1Gi", node_name="n1")
    victim["metadata"]["resourceVersion"] = "5"
    terminating = json.loads(json.dumps(victim))
    terminating["metadata"].update(resourceVersion="7", deletionTimestamp="2025-01-01T00:00:30Z")
    result = build.result({"0": [
        build.create("n1", s(0), build.node("n1", "4", "8Gi")),
        build.create("victim", s(0), victim),
    ], "1": [
        build.patch("evict", s(1, 1), terminating, "{}", actor="scheduler"),
        {"id": "preempted", "step": s(1, 1), "actor": "scheduler", "podPreempted": {
            "pod": victim, "createdAt": s(0), "boundTo": "n1", "preemptedBy": "default/high",
            "preemptedAt": s(1, 1)}},
    ]})
    [row] = analyze(result)["pods"].records()
    assert (row["state"], row["node"], row["preempted_by"], row["preempted_step"]) == (
        "terminating", "n1", "default/high", 1)
    # a terminating pod still holds its requests until it is gone
    assert [r["cpu_requested"] for r in analyze(result)["nodes"].records()] == [1000, 1000]
