"""NodeResourcesBalancedAllocation: favour nodes whose resource fractions stay close together."""

# upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE, BatchScorePlugin, PreScorePlugin
from ...framework.node_info import NodeInfoList
from ...framework.pod_info import PodInfo
from ...framework.status import Code, Status
from .resource_allocation import allocatable_requested, resource_specs
from .row_memo import RowMemo

__all__ = ["BalancedAllocation", "balanced_score"]

_PRE_SCORE_KEY = "PreScoreNodeResourcesBalancedAllocation"


def balanced_score(cols: list[tuple[np.ndarray, np.ndarray]], n: int) -> np.ndarray:
    """balancedResourceScorer with the same float64 operations in the same order as Go."""
    if len(cols) == 2 and all(bool((a != 0).all()) for a, _ in cols):
        (a0, r0), (a1, r1) = cols
        f0 = np.minimum(r0 / a0, 1.0)
        f1 = np.minimum(r1 / a1, 1.0)
        std = np.abs((f0 - f1) / 2)
        result: np.ndarray = np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
        return result
    count = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    first = np.zeros(n, dtype=np.float64)
    second = np.zeros(n, dtype=np.float64)
    fractions = []
    for alloc, req in cols:
        ok = alloc != 0
        f = np.minimum(req.astype(np.float64) / np.where(ok, alloc, 1).astype(np.float64), 1.0)
        f = np.where(ok, f, 0.0)
        total = np.where(ok, total + f, total)
        first = np.where(ok & (count == 0), f, first)
        second = np.where(ok & (count == 1), f, second)
        count += ok
        fractions.append((ok, f))
    std = np.zeros(n, dtype=np.float64)
    two = count == 2
    if two.any():
        std = np.where(two, np.abs((first - second) / 2), std)
    many = count > 2
    if many.any():
        cnt = np.where(many, count, 1).astype(np.float64)
        mean = total / cnt
        acc = np.zeros(n, dtype=np.float64)
        for ok, f in fractions:
            acc = np.where(ok, acc + (f - mean) * (f - mean), acc)
        std = np.where(many, np.sqrt(acc / cnt), std)
    result = np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    return result


class BalancedAllocation(PreScorePlugin, BatchScorePlugin):
    name = "NodeResourcesBalancedAllocation"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.resources = resource_specs(self.args.get("resources"))
        self._memo = RowMemo(handle.node_table)  # scores of identical consecutive requests

    def _pod_requests(self, pod_info: PodInfo) -> list[int]:
        return [pod_info.score_request(name, True) for name, _ in self.resources]

    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        pi = state.pod_info or self.handle.pod_info(pod)
        reqs = self._pod_requests(pi)
        if not any(reqs):
            return Status(Code.SKIP)
        state.write(_PRE_SCORE_KEY, reqs)
        return None

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        reqs = state.get(_PRE_SCORE_KEY)
        if reqs is None:
            reqs = self._pod_requests(pod_info)
            if not any(reqs):
                return np.zeros(len(rows), dtype=np.int64)
        return self._memo.get(tuple(reqs), rows, lambda r: self._scores(reqs, r))

    def _scores(self, reqs: list[int], rows: np.ndarray) -> np.ndarray:
        t = self.handle.node_table
        cols = [allocatable_requested(t, rows, name, r, True) for (name, _), r in zip(self.resources, reqs)]
        return balanced_score(cols, len(rows))
