"""Which pods a ReplicaSet deletes first when it scales down.

Ports of k8s.io/kubernetes pkg/controller/controller_utils.go (ActivePods.Less,
ActivePodsWithRanks.Less with PodDeletionCost and LogarithmicScaleDown, both on in v1.34)
and pkg/controller/replicaset/replica_set.go (getPodsToDelete,
getPodsRankedByRelatedPodsOnSameNode). "Less" means "delete first".

Go's sort.Sort is not stable: pods the comparison cannot tell apart come out in an
unspecified order upstream. Here the sort is stable, so such ties keep the order the pods
were listed in (namespace, then name), which makes runs repeatable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import cmp_to_key
from typing import Any

from .podstate import (
    deletion_cost,
    is_pod_active,
    is_pod_ready,
    max_container_restarts,
    parse_timestamp,
    pod_phase,
    pod_ready_time,
)

__all__ = [
    "active_pods_less",
    "get_pods_to_delete",
    "logarithmic_rank_diff",
    "ranked_pods_less",
    "ranks_by_related_pods_on_same_node",
    "sort_active_pods",
    "sort_ranked_pods",
]

Pod = Mapping[str, Any]

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def _node(pod: Pod) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _created(pod: Pod) -> datetime | None:
    return parse_timestamp((pod.get("metadata") or {}).get("creationTimestamp"))


def _uid(pod: Pod) -> str:
    return str((pod.get("metadata") or {}).get("uid") or "")


def _after_or_zero(t1: datetime | None, t2: datetime | None) -> bool:
    """afterOrZero: a zero time sorts first, else the later time does."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def _restarts_less(pi: Pod, pj: Pod) -> bool | None:
    """compareMaxContainerRestarts: more restarts first (regular, then sidecar containers)."""
    ri, si = max_container_restarts(pi)
    rj, sj = max_container_restarts(pj)
    if ri != rj:
        return ri > rj
    if si != sj:
        return si > sj
    return None


def _go_log2(x: float) -> float:
    """Go's math.Log2: exact for powers of two (frexp), else Log(frac)/Ln2 + exp."""
    frac, exp = math.frexp(x)
    if frac == 0.5:
        return float(exp - 1)
    return math.log(frac) * (1 / math.log(2)) + exp


def _nanos(d: timedelta) -> int:
    return (d.days * 86400 + d.seconds) * 1_000_000_000 + d.microseconds * 1000


def logarithmic_rank_diff(t1: datetime, t2: datetime, now: datetime) -> int:
    """logarithmicRankDiff: compare floor(log2(age in ns)) of two times (-1 for no age)."""
    d1, d2 = _nanos(now - t1), _nanos(now - t2)
    r1 = int(_go_log2(float(d1))) if d1 > 0 else -1
    r2 = int(_go_log2(float(d2))) if d2 > 0 else -1
    return r1 - r2


def active_pods_less(pi: Pod, pj: Pod) -> bool:
    """ActivePods.Less: should `pi` be deleted before `pj` (no ranks, no deletion cost)."""
    ni, nj = _node(pi), _node(pj)
    if ni != nj and (not ni or not nj):
        return not ni
    oi, oj = _PHASE_ORDINAL.get(pod_phase(pi), 0), _PHASE_ORDINAL.get(pod_phase(pj), 0)
    if oi != oj:
        return oi < oj
    ready_i, ready_j = is_pod_ready(pi), is_pod_ready(pj)
    if ready_i != ready_j:
        return not ready_i
    if ready_i and ready_j:
        ti, tj = pod_ready_time(pi), pod_ready_time(pj)
        if ti != tj:
            return _after_or_zero(ti, tj)
    res = _restarts_less(pi, pj)
    if res is not None:
        return res
    ci, cj = _created(pi), _created(pj)
    if ci != cj:
        return _after_or_zero(ci, cj)
    return False


class _Facts:
    """What ActivePodsWithRanks.Less reads from a pod, read once per sort."""

    __slots__ = ("cost", "created", "node", "phase", "ready", "ready_time", "restarts", "uid")

    def __init__(self, pod: Pod) -> None:
        self.node = _node(pod)
        self.phase = _PHASE_ORDINAL.get(pod_phase(pod), 0)
        self.ready = is_pod_ready(pod)
        self.cost = deletion_cost(pod)
        self.ready_time = pod_ready_time(pod) if self.ready else None
        self.restarts = max_container_restarts(pod)
        self.created = _created(pod)
        self.uid = _uid(pod)


def _facts_less(fi: _Facts, rank_i: int, fj: _Facts, rank_j: int, now: datetime) -> bool:
    if fi.node != fj.node and (not fi.node or not fj.node):
        return not fi.node
    if fi.phase != fj.phase:
        return fi.phase < fj.phase
    if fi.ready != fj.ready:
        return not fi.ready
    if fi.cost != fj.cost:
        return fi.cost < fj.cost
    if rank_i != rank_j:
        return rank_i > rank_j
    if fi.ready and fj.ready:
        ti, tj = fi.ready_time, fj.ready_time
        if ti != tj:
            if ti is None or tj is None:
                return _after_or_zero(ti, tj)
            diff = logarithmic_rank_diff(ti, tj, now)
            if diff == 0:
                return fi.uid < fj.uid
            return diff < 0
    (ri, si), (rj, sj) = fi.restarts, fj.restarts
    if ri != rj:
        return ri > rj
    if si != sj:
        return si > sj
    ci, cj = fi.created, fj.created
    if ci != cj:
        if ci is None or cj is None:
            return _after_or_zero(ci, cj)
        diff = logarithmic_rank_diff(ci, cj, now)
        if diff == 0:
            return fi.uid < fj.uid
        return diff < 0
    return False


def ranked_pods_less(pi: Pod, rank_i: int, pj: Pod, rank_j: int, now: datetime) -> bool:
    """ActivePodsWithRanks.Less: unassigned < assigned, Pending < Unknown < Running, not ready
    < ready, lower deletion cost, more co-located related pods, shorter ready time, more
    restarts, newer; times compared on a log2 scale of their age at `now`."""
    return _facts_less(_Facts(pi), rank_i, _Facts(pj), rank_j, now)


def sort_active_pods(pods: Sequence[Pod]) -> list[Pod]:
    """The pods ordered by ActivePods.Less (stable)."""

    def cmp(a: Pod, b: Pod) -> int:
        return -1 if active_pods_less(a, b) else (1 if active_pods_less(b, a) else 0)

    return sorted(pods, key=cmp_to_key(cmp))


def sort_ranked_pods(pods: Sequence[Pod], ranks: Sequence[int], now: datetime) -> list[Pod]:
    """The pods ordered by ActivePodsWithRanks.Less (stable)."""
    items = [(p, _Facts(p), r) for p, r in zip(pods, ranks)]

    def cmp(a: tuple[Pod, _Facts, int], b: tuple[Pod, _Facts, int]) -> int:
        if _facts_less(a[1], a[2], b[1], b[2], now):
            return -1
        return 1 if _facts_less(b[1], b[2], a[1], a[2], now) else 0

    return [p for p, _, _ in sorted(items, key=cmp_to_key(cmp))]


def ranks_by_related_pods_on_same_node(pods: Sequence[Pod], related: Sequence[Pod]) -> list[int]:
    """Each pod's rank: how many active related pods share its node (unassigned pods count too)."""
    on_node: dict[str, int] = {}
    for p in related:
        if is_pod_active(p):
            on_node[_node(p)] = on_node.get(_node(p), 0) + 1
    return [on_node.get(_node(p), 0) for p in pods]


def get_pods_to_delete(pods: Sequence[Pod], related: Sequence[Pod], diff: int, now: datetime) -> list[Pod]:
    """getPodsToDelete: the `diff` pods to delete first (no sorting when all of them go)."""
    if diff < len(pods):
        pods = sort_ranked_pods(pods, ranks_by_related_pods_on_same_node(pods, related), now)
    return list(pods[:diff])
