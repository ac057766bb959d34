"""Deletion order of pods: ports of upstream's TestSortingActivePods,
TestSortingActivePodsWithRanks (pkg/controller/controller_utils_test.go) and TestGetPodsToDelete
(pkg/controller/replicaset/replica_set_test.go)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from kubesim.clock import format_time
from kubesim_replicaset.podstate import POD_DELETION_COST, deletion_cost
from kubesim_replicaset.ranking import (
    active_pods_less,
    get_pods_to_delete,
    logarithmic_rank_diff,
    ranked_pods_less,
    sort_active_pods,
)

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


def ts(t: datetime | None) -> str | None:
    return None if t is None else format_time(t)


def pod(name: str, node: str = "", phase: str = "Pending", ready: bool | None = None,
        ready_since: datetime | None = None, restarts: list[int] | None = None,
        created: datetime | None = None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if created is not None:
        meta["creationTimestamp"] = ts(created)
    if annotations:
        meta["annotations"] = annotations
    status: dict[str, Any] = {"phase": phase}
    if ready is not None:
        cond: dict[str, Any] = {"type": "Ready", "status": "True" if ready else "False"}
        if ready_since is not None:
            cond["lastTransitionTime"] = ts(ready_since)
        status["conditions"] = [cond]
    if restarts is not None:
        status["containerStatuses"] = [{"name": f"c{i}", "restartCount": r} for i, r in enumerate(restarts)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"nodeName": node}, "status": status}


def test_sorting_active_pods() -> None:
    """TestSortingActivePods: nine pods in their deletion order, whatever order they come in."""
    then = NOW - timedelta(days=30)
    pods = [
        pod("pod0", "", "Pending"),
        pod("pod1", "bar", "Pending"),
        pod("pod2", "foo", "Unknown"),
        pod("pod3", "foo", "Running"),
        pod("pod4", "foo", "Running", ready=True, restarts=[3, 0]),
        pod("pod5", "foo", "Running", ready=True, ready_since=NOW, restarts=[3, 0]),
        pod("pod6", "foo", "Running", ready=True, ready_since=then, restarts=[3, 0]),
        pod("pod7", "foo", "Running", ready=True, ready_since=then, restarts=[2, 1], created=NOW),
        pod("pod8", "foo", "Running", ready=True, ready_since=then, restarts=[2, 1], created=then),
    ]
    expected = [p["metadata"]["name"] for p in pods]
    rng = random.Random(7)
    for _ in range(20):
        shuffled = pods[:]
        rng.shuffle(shuffled)
        assert [p["metadata"]["name"] for p in sort_active_pods(shuffled)] == expected


# TestSortingActivePodsWithRanks
THEN_1_MONTH = NOW - timedelta(days=30)
THEN_2_HOURS = NOW - timedelta(hours=2)
THEN_5_HOURS = NOW - timedelta(hours=5)
THEN_8_HOURS = NOW - timedelta(hours=8)


def ranked(name: str, node: str, phase: str, ready: bool, restarts: int, ready_since: datetime | None,
           created: datetime | None, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    return pod(name, node, phase, ready=True if ready else None, ready_since=ready_since if ready else None,
               restarts=[restarts] if ready else None, created=created, annotations=annotations)


UNSCHEDULED = ranked("unscheduled", "", "Pending", False, 0, None, None)
SCHEDULED_PENDING = ranked("pending", "node", "Pending", False, 0, None, None)
UNKNOWN_PHASE = ranked("unknown-phase", "node", "Unknown", False, 0, None, None)
RUNNING_NOT_READY = ranked("not-ready", "node", "Running", False, 0, None, None)
READY_NO_LAST_TRANSITION = ranked("ready-no-last-transition-time", "node", "Running", True, 0, None, None)
READY_NOW = ranked("ready-now", "node", "Running", True, 0, NOW, NOW)
READY_THEN = ranked("ready-then", "node", "Running", True, 0, THEN_1_MONTH, THEN_1_MONTH)
READY_NOW_HIGH_RESTARTS = ranked("ready-high-restarts", "node", "Running", True, 9001, NOW, NOW)
READY_NOW_CREATED_THEN = ranked("ready-now-created-then", "node", "Running", True, 0, NOW, THEN_1_MONTH)
LOW_DELETION_COST = ranked("low-deletion-cost", "node", "Running", True, 0, NOW, THEN_1_MONTH,
                           {POD_DELETION_COST: "10"})
HIGH_DELETION_COST = ranked("high-deletion-cost", "node", "Running", True, 0, NOW, THEN_1_MONTH,
                            {POD_DELETION_COST: "100"})
UNSCHEDULED_5_HOURS = ranked("unscheduled-5-hours", "", "Pending", False, 0, THEN_5_HOURS, THEN_5_HOURS)
UNSCHEDULED_8_HOURS = ranked("unscheduled-10-hours", "", "Pending", False, 0, THEN_8_HOURS, THEN_8_HOURS)
READY_2_HOURS = ranked("ready-2-hours", "", "Running", True, 0, THEN_2_HOURS, THEN_1_MONTH)
READY_5_HOURS = ranked("ready-5-hours", "", "Running", True, 0, THEN_5_HOURS, THEN_1_MONTH)
READY_10_HOURS = ranked("ready-10-hours", "", "Running", True, 0, THEN_8_HOURS, THEN_1_MONTH)

EQUALITY = [
    (UNSCHEDULED, UNSCHEDULED), (SCHEDULED_PENDING, SCHEDULED_PENDING), (UNKNOWN_PHASE, UNKNOWN_PHASE),
    (RUNNING_NOT_READY, RUNNING_NOT_READY), (READY_NOW_CREATED_THEN, READY_NOW_CREATED_THEN),
    (READY_NOW, READY_NOW), (READY_THEN, READY_THEN), (READY_NOW_HIGH_RESTARTS, READY_NOW_HIGH_RESTARTS),
    (UNSCHEDULED_5_HOURS, UNSCHEDULED_8_HOURS), (READY_5_HOURS, READY_10_HOURS),
]


@pytest.mark.parametrize(("p1", "p2"), EQUALITY, ids=[f"{a['metadata']['name']}={b['metadata']['name']}" for a, b in EQUALITY])
def test_ranked_equivalent(p1: dict[str, Any], p2: dict[str, Any]) -> None:
    assert not ranked_pods_less(p1, 1, p2, 1, NOW)
    assert not ranked_pods_less(p2, 1, p1, 1, NOW)


# (lesser, its rank, greater, its rank); upstream's row with PodDeletionCost disabled is left
# out: the gate is on by default in v1.34 and kubesim has no feature gates.
INEQUALITY = [
    (UNSCHEDULED, 1, SCHEDULED_PENDING, 2),
    (UNSCHEDULED, 2, SCHEDULED_PENDING, 1),
    (SCHEDULED_PENDING, 1, UNKNOWN_PHASE, 2),
    (UNKNOWN_PHASE, 1, RUNNING_NOT_READY, 2),
    (RUNNING_NOT_READY, 1, READY_NO_LAST_TRANSITION, 1),
    (READY_NO_LAST_TRANSITION, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_NO_LAST_TRANSITION, 1),
    (READY_NOW, 1, READY_THEN, 1),
    (READY_NOW, 2, READY_THEN, 1),
    (READY_NOW_HIGH_RESTARTS, 1, READY_NOW, 1),
    (READY_NOW, 2, READY_NOW_HIGH_RESTARTS, 1),
    (READY_NOW, 1, READY_NOW_CREATED_THEN, 1),
    (READY_NOW_CREATED_THEN, 2, READY_NOW, 1),
    (LOW_DELETION_COST, 2, HIGH_DELETION_COST, 1),
    (READY_2_HOURS, 1, READY_5_HOURS, 1),
]


@pytest.mark.parametrize(("lesser", "lr", "greater", "gr"), INEQUALITY, ids=[str(i) for i in range(len(INEQUALITY))])
def test_ranked_less(lesser: dict[str, Any], lr: int, greater: dict[str, Any], gr: int) -> None:
    assert ranked_pods_less(lesser, lr, greater, gr, NOW)
    assert not ranked_pods_less(greater, gr, lesser, lr, NOW)


def test_logarithmic_rank_diff_buckets_by_powers_of_two() -> None:
    # 2h and 5h differ by more than a power of two, 5h and 8h do not (2^44 ns < 5h < 8h < 2^45 ns)
    assert logarithmic_rank_diff(THEN_2_HOURS, THEN_5_HOURS, NOW) < 0
    assert logarithmic_rank_diff(THEN_5_HOURS, THEN_8_HOURS, NOW) == 0
    assert logarithmic_rank_diff(NOW, THEN_8_HOURS, NOW) < 0  # no age at all ranks -1


@pytest.mark.parametrize(("value", "cost"), [("10", 10), ("-5", -5), ("0", 0), ("+10", 0), ("007", 0),
                                             ("abc", 0), ("2147483648", 0), ("-2147483648", -2147483648)])
def test_deletion_cost_parsing(value: str, cost: int) -> None:
    assert deletion_cost({"metadata": {"annotations": {POD_DELETION_COST: value}}}) == cost


def test_active_pods_less_prefers_unassigned() -> None:
    assert active_pods_less(pod("a"), pod("b", "node", "Running"))
    assert not active_pods_less(pod("b", "node", "Running"), pod("a"))


# TestGetPodsToDelete
UNSCHEDULED_PENDING_POD = pod("unscheduled-pending-pod", "", "Pending")
SCHEDULED_PENDING_POD = pod("scheduled-pending-pod", "fake-node", "Pending")
SCHEDULED_RUNNING_NOT_READY = pod("scheduled-running-not-ready-pod", "fake-node", "Running", ready=False)
READY_ON_NODE_1 = pod("scheduled-running-ready-pod-on-node-1", "fake-node-1", "Running", ready=True)
READY_ON_NODE_2 = pod("scheduled-running-ready-pod-on-node-2", "fake-node-2", "Running", ready=True)

GET_PODS_TO_DELETE = {
    "len(pods) = 0 (i.e., diff = 0 too)": ([], None, 0, []),
    "diff = len(pods)": ([SCHEDULED_RUNNING_NOT_READY, READY_ON_NODE_1], None, 2,
                         [SCHEDULED_RUNNING_NOT_READY, READY_ON_NODE_1]),
    "diff < len(pods)": ([READY_ON_NODE_1, SCHEDULED_RUNNING_NOT_READY], None, 1, [SCHEDULED_RUNNING_NOT_READY]),
    "various pod phases and conditions, diff = len(pods)": (
        [READY_ON_NODE_1, READY_ON_NODE_1, READY_ON_NODE_2, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_PENDING_POD,
         UNSCHEDULED_PENDING_POD], None, 6,
        [READY_ON_NODE_1, READY_ON_NODE_1, READY_ON_NODE_2, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_PENDING_POD,
         UNSCHEDULED_PENDING_POD]),
    "various pod phases and conditions, diff = len(pods), relatedPods empty": (
        [READY_ON_NODE_1, READY_ON_NODE_1, READY_ON_NODE_2, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_PENDING_POD,
         UNSCHEDULED_PENDING_POD], [], 6,
        [READY_ON_NODE_1, READY_ON_NODE_1, READY_ON_NODE_2, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_PENDING_POD,
         UNSCHEDULED_PENDING_POD]),
    "scheduled vs unscheduled, diff < len(pods)": ([SCHEDULED_PENDING_POD, UNSCHEDULED_PENDING_POD], None, 1,
                                                   [UNSCHEDULED_PENDING_POD]),
    "ready vs not-ready, diff < len(pods)": (
        [READY_ON_NODE_1, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_RUNNING_NOT_READY], None, 2,
        [SCHEDULED_RUNNING_NOT_READY, SCHEDULED_RUNNING_NOT_READY]),
    "ready and colocated with another ready pod vs not colocated, diff < len(pods)": (
        [READY_ON_NODE_1, READY_ON_NODE_2], [READY_ON_NODE_1, READY_ON_NODE_2, READY_ON_NODE_2], 1,
        [READY_ON_NODE_2]),
    "pending vs running, diff < len(pods)": ([SCHEDULED_PENDING_POD, SCHEDULED_RUNNING_NOT_READY], None, 1,
                                             [SCHEDULED_PENDING_POD]),
    "various pod phases and conditions, diff < len(pods)": (
        [READY_ON_NODE_1, READY_ON_NODE_2, SCHEDULED_RUNNING_NOT_READY, SCHEDULED_PENDING_POD,
         UNSCHEDULED_PENDING_POD], None, 3,
        [UNSCHEDULED_PENDING_POD, SCHEDULED_PENDING_POD, SCHEDULED_RUNNING_NOT_READY]),
}


@pytest.mark.parametrize("case", list(GET_PODS_TO_DELETE))
def test_get_pods_to_delete(case: str) -> None:
    pods, related, diff, expected = GET_PODS_TO_DELETE[case]
    got = get_pods_to_delete(pods, pods if related is None else related, diff, NOW)
    assert [p["metadata"]["name"] for p in got] == [p["metadata"]["name"] for p in expected]
