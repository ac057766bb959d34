"""NodeResourcesFit: reject nodes without room for the pod's requests; score by a strategy."""

# upstream: pkg/scheduler/framework/plugins/noderesources/fit.go

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from kubesim.k8s.podrequests import pod_requests, resource_list

from ...framework.cycle_state import CycleState
from ...framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE, POD, QueueingHint
from ...framework.interface import (
    BatchFilterPlugin,
    BatchFilterResult,
    BatchScorePlugin,
    EnqueueExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
)
from ...framework.node_info import NodeInfoList
from ...framework.node_table import NodeTable
from ...framework.pod_info import PodInfo
from ...framework.status import Code, Status
from ...resources import Resource, is_extended_resource_name, max_resource_from_list, resource_from_list
from .resource_allocation import (
    Columns,
    allocatable_requested,
    least_allocated,
    most_allocated,
    requested_to_capacity_ratio,
    resource_specs,
)
from .row_memo import RowMemo

__all__ = ["Fit", "InsufficientResource", "fits_request"]

_PRE_FILTER_KEY = "PreFilterNodeResourcesFit"
_PRE_SCORE_KEY = "PreScoreNodeResourcesFit"

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

# (resource name, reason, requested, used, capacity, unresolvable)
InsufficientResource = tuple[str, str, int, int, int, bool]


def fits_request(
    req: Resource,
    alloc: Resource,
    requested: Resource,
    num_pods: int,
    ignored: frozenset[str] = frozenset(),
    ignored_groups: frozenset[str] = frozenset(),
) -> list[InsufficientResource]:
    """fitsRequest for one node, in upstream's order (pods, cpu, memory, ephemeral, scalars)."""
    out: list[InsufficientResource] = []
    if num_pods + 1 > alloc.allowed_pod_number:
        out.append(("pods", "Too many pods", 1, num_pods, alloc.allowed_pod_number, False))
    if req.is_zero():
        return out
    for name, want, cap, used in (
        ("cpu", req.milli_cpu, alloc.milli_cpu, requested.milli_cpu),
        ("memory", req.memory, alloc.memory, requested.memory),
        ("ephemeral-storage", req.ephemeral_storage, alloc.ephemeral_storage, requested.ephemeral_storage),
    ):
        if want > 0 and want > cap - used:
            out.append((name, f"Insufficient {name}", want, used, cap, want > cap))
    for name in sorted(req.scalar_resources):
        want = req.scalar_resources[name]
        if want == 0:
            continue
        if is_extended_resource_name(name) and (name in ignored or name.split("/")[0] in ignored_groups):
            continue
        cap = alloc.scalar_resources.get(name, 0)
        used = requested.scalar_resources.get(name, 0)
        if want > cap - used:
            out.append((name, f"Insufficient {name}", want, used, cap, want > cap))
    return out


class Fit(PreFilterPlugin, BatchFilterPlugin, PreScorePlugin, BatchScorePlugin, EnqueueExtensions):
    name = "NodeResourcesFit"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.ignored = frozenset(self.args.get("ignoredResources") or ())
        self.ignored_groups = frozenset(self.args.get("ignoredResourceGroups") or ())
        # codes and scores of identical consecutive requests are reused on unchanged nodes
        self._filter_memo = RowMemo(handle.node_table)
        self._score_memo = RowMemo(handle.node_table)
        strategy = self.args.get("scoringStrategy") or {}
        self.strategy = strategy.get("type") or LEAST_ALLOCATED
        self.resources = resource_specs(strategy.get("resources"), "scoringStrategy.resources")
        self._scorer: Callable[[Columns, int], np.ndarray]
        if self.strategy == LEAST_ALLOCATED:
            self._scorer = least_allocated
        elif self.strategy == MOST_ALLOCATED:
            self._scorer = most_allocated
        elif self.strategy == REQUESTED_TO_CAPACITY_RATIO:
            shape = ((strategy.get("requestedToCapacityRatio") or {}).get("shape")) or []
            if not shape:
                raise ValueError("scoringStrategy.requestedToCapacityRatio.shape: Required value")
            self._scorer = requested_to_capacity_ratio([(int(p.get("utilization", 0)), int(p.get("score", 0))) for p in shape])
        else:
            raise ValueError(f"scoring strategy {self.strategy} is not supported")

    # PreFilter / Filter
    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        pi = state.pod_info or self.handle.pod_info(pod)
        state.write(_PRE_FILTER_KEY, pi.fit_request)
        return None, None

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        req: Resource | None = state.get(_PRE_FILTER_KEY)
        if req is None:
            return BatchFilterResult(np.full(len(rows), int(Code.ERROR), dtype=np.int8),
                                     lambda _r: (f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found',))
        t = self.handle.node_table
        key = req.request_key()
        codes = self._filter_memo.get(key, rows, lambda r: self._codes(t, req, r))
        return BatchFilterResult(codes, lambda row: self._reasons(t, req, row))

    def _codes(self, t: NodeTable, req: Resource, rows: np.ndarray) -> np.ndarray:
        """Filter codes of rows: 0, Unschedulable or UnschedulableAndUnresolvable."""
        fail = t.pod_count[rows] + 1 > t.allowed_pods[rows]
        unresolvable = np.zeros(len(rows), dtype=bool)
        if not req.is_zero():
            for want, alloc, used in (
                (req.milli_cpu, t.alloc_cpu, t.req_cpu),
                (req.memory, t.alloc_mem, t.req_mem),
                (req.ephemeral_storage, t.alloc_eph, t.req_eph),
            ):
                if want > 0:
                    a = alloc[rows]
                    fail |= want > a - used[rows]
                    unresolvable |= want > a
            for name, want in req.scalar_resources.items():
                if want == 0:
                    continue
                if is_extended_resource_name(name) and (name in self.ignored or name.split("/")[0] in self.ignored_groups):
                    continue
                sc = t.scalars.get(name)
                if sc is None:
                    fail[:] = True
                    unresolvable[:] = True
                    continue
                a = sc.alloc[rows]
                fail |= want > a - sc.req[rows]
                unresolvable |= want > a
        codes: np.ndarray = np.where(
            fail,
            np.where(unresolvable, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), np.int8(Code.UNSCHEDULABLE)),
            np.int8(0),
        ).astype(np.int8)
        return codes

    def _reasons(self, t: NodeTable, req: Resource, row: int) -> list[str]:
        ni = t.node_info(row)
        ins = fits_request(req, ni.allocatable, ni.requested, int(t.pod_count[row]), self.ignored, self.ignored_groups)
        return [r[1] for r in ins]

    # Score
    def _pod_requests(self, pod_info: PodInfo) -> list[int]:
        return [pod_info.score_request(name, False) for name, _ in self.resources]

    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        pi = state.pod_info or self.handle.pod_info(pod)
        state.write(_PRE_SCORE_KEY, self._pod_requests(pi))
        return None

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._pod_requests(pod_info)
        return self._score_memo.get(tuple(reqs), rows, lambda r: self._scores(reqs, r))

    def _scores(self, reqs: list[int], rows: np.ndarray) -> np.ndarray:
        t = self.handle.node_table
        cols = []
        for (name, weight), pod_req in zip(self.resources, reqs):
            alloc, requested = allocatable_requested(t, rows, name, pod_req, False)
            cols.append((alloc, requested, weight))
        return self._scorer(cols, len(rows))

    # Queueing
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(POD, ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN), self._after_pod_event),
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE), self._after_node_change),
        ]

    def _after_pod_event(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        if new is None:
            spec = (old or {}).get("spec") or {}
            if not spec.get("nodeName") and not ((old or {}).get("status") or {}).get("nominatedNodeName"):
                return QueueingHint.QUEUE_SKIP
            return QueueingHint.QUEUE
        if (new.get("metadata") or {}).get("uid") == (pod.get("metadata") or {}).get("uid"):
            return QueueingHint.QUEUE
        if not (new.get("spec") or {}).get("nodeName"):
            return QueueingHint.QUEUE_SKIP
        before = max_resource_from_list(pod_requests(old, use_status=True))
        after = max_resource_from_list(pod_requests(new, use_status=True))
        for name, q in pod_requests(pod, use_status=True).items():
            if q == 0:
                continue
            if name == "cpu" and before.milli_cpu > after.milli_cpu:
                return QueueingHint.QUEUE
            if name == "memory" and before.memory > after.memory:
                return QueueingHint.QUEUE
            if name == "ephemeral-storage" and before.ephemeral_storage > after.ephemeral_storage:
                return QueueingHint.QUEUE
            if before.scalar_resources.get(name, 0) > after.scalar_resources.get(name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _after_node_change(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        req = max_resource_from_list(pod_requests(pod))
        new_alloc = resource_from_list(resource_list((new.get("status") or {}).get("allocatable"), "status.allocatable"))
        if fits_request(req, new_alloc, Resource(), 0):
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        old_alloc = resource_from_list(resource_list((old.get("status") or {}).get("allocatable"), "status.allocatable"))
        if new_alloc.allowed_pod_number > old_alloc.allowed_pod_number:
            return QueueingHint.QUEUE
        if req.is_zero():
            return QueueingHint.QUEUE_SKIP
        if ((req.milli_cpu > 0 and new_alloc.milli_cpu > old_alloc.milli_cpu)
                or (req.memory > 0 and new_alloc.memory > old_alloc.memory)
                or (req.ephemeral_storage > 0 and new_alloc.ephemeral_storage > old_alloc.ephemeral_storage)):
            return QueueingHint.QUEUE
        for name, q in req.scalar_resources.items():
            if q and new_alloc.scalar_resources.get(name, 0) > old_alloc.scalar_resources.get(name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
