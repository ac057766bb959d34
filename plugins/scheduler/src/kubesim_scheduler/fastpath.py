"""The plain-pod fast path: Filter and Score of the default resource plugins in one pass.

For most pods of most clusters, the Filter and Score plugins that PreFilter and PreScore
left running are NodeUnschedulable, NodeName, TaintToleration, NodeResourcesFit,
NodeResourcesBalancedAllocation and ImageLocality, and on a cluster without taints,
unschedulable nodes or the pod's images, all but the two resource plugins give every node
the same answer. This path then computes exactly what the plugin-by-plugin runners would:
the same FilterOutcome (Fit's codes and reasons, the same plugins run) and the same
ScoreOutcome (raw, normalised and weighted columns in profile order, totals), from one
per-row cache of Fit's filter codes and LeastAllocated and BalancedAllocation scores.

Rows that changed since the last pod (usually the one it was bound to) are recomputed
with plain integer and float64 arithmetic in the plugins' own order of operations, or by
the plugins' vectorised functions when many changed or the values are out of the exact
range; anything else falls back to the runners (the caller runs them when this returns
None). PreFilter, PreScore and the binding cycle always run as usual, so the cycle state
the later extension points read is the same.

Disable with KUBESIM_SCHEDULER_FASTPATH=0 (read when a profile's framework is built), for
debugging or to compare; tests/test_fastpath.py checks both give the same results.
"""

# upstream: pkg/scheduler/framework/runtime/framework.go (RunFilterPlugins, RunScorePlugins),
# plugins/noderesources/fit.go (fitsRequest), least_allocated.go, balanced_allocation.go,
# plugins/helper/normalize_score.go (DefaultNormalizeScore, reverse for TaintToleration)

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

import numpy as np

from .framework.interface import MAX_NODE_SCORE, BatchFilterResult
from .framework.runtime import FilterOutcome, Rejection, ScoreOutcome
from .framework.status import Code
from .plugins.imagelocality import ImageLocality
from .plugins.noderesources import BalancedAllocation, Fit
from .plugins.noderesources.fit import LEAST_ALLOCATED
from .plugins.noderesources.resource_allocation import DEFAULT_RESOURCES
from .plugins.nodename import NodeName
from .plugins.nodeunschedulable import NodeUnschedulable
from .plugins.tainttoleration import TaintToleration

if TYPE_CHECKING:
    from .framework.cycle_state import CycleState
    from .framework.node_table import NodeTable
    from .framework.pod_info import PodInfo
    from .framework.runtime import Framework
    from .resources import Resource

__all__ = ["ENV_SWITCH", "FastPath", "fast_path_for", "fast_path_enabled"]

ENV_SWITCH = "KUBESIM_SCHEDULER_FASTPATH"

_FIT_FILTER_KEY = "PreFilterNodeResourcesFit"
_FIT_SCORE_KEY = "PreScoreNodeResourcesFit"
_BALANCED_KEY = "PreScoreNodeResourcesBalancedAllocation"
_MAX_SCALAR_ROWS = 8  # changed rows recomputed one by one; more go through numpy
_MAX_KEYS = 8  # request shapes with their own per-row values
_SMALL_SHARE = 32  # below 1/32 of the rows, a cache is not built (preemption's one-node checks)
_EXACT = 2**52  # below this, int64 arithmetic cannot overflow and floats convert exactly
_UNSCHEDULABLE, _UNRESOLVABLE = int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

# the plugins this path stands in for, by kind
_PASSING_FILTERS: dict[type, str] = {NodeUnschedulable: "unschedulable", NodeName: "nodename", TaintToleration: "taints"}


def fast_path_enabled() -> bool:
    """False when KUBESIM_SCHEDULER_FASTPATH is 0, false, off or no."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "off", "no")


def _constant(n: int, value: int) -> np.ndarray:
    """A read-only int64 array of n times `value`, shared between pods (score columns are
    never written in place; the total is a fresh array)."""
    key = (n, value)
    hit = _CONSTANTS.get(key)
    if hit is None:
        if len(_CONSTANTS) >= 16:
            _CONSTANTS.clear()
        hit = _CONSTANTS[key] = np.full(n, value, dtype=np.int64)
        hit.flags.writeable = False
    return hit


_CONSTANTS: dict[tuple[int, int], np.ndarray] = {}


class _Changed:
    """Rows changed since a generation, found once for the caches that ask in turn."""

    __slots__ = ("key", "rows", "table")

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.key: tuple[int, int, int] | None = None
        self.rows = np.empty(0, dtype=np.intp)

    def since(self, generation: int) -> np.ndarray:
        t = self.table
        key = (t.generation, generation, t.high_water)
        if key != self.key:
            self.rows = np.flatnonzero(t.row_generation[: t.high_water] > generation)
            self.key = key
        return self.rows


class _RowCache:
    """Values of one per-row computation for every table row under one key, kept up to date
    by row generation (like RowMemo, with the few changed rows done one by one)."""

    __slots__ = ("changed", "generation", "in_range", "table", "values")

    def __init__(self, table: NodeTable, changed: _Changed) -> None:
        self.table = table
        self.changed = changed
        self.generation = -1
        self.values: np.ndarray | None = None
        self.in_range = False  # every value within 0..MAX_NODE_SCORE (scores only)

    def ready(self) -> bool:
        """Whether the values cover the table's rows (only changed rows left to compute)."""
        return self.values is not None and len(self.values) == self.table.high_water

    def get(
        self, rows: np.ndarray, bulk: Callable[[np.ndarray], np.ndarray], one: Callable[[int], int | None], scores: bool
    ) -> np.ndarray:
        t = self.table
        hw = t.high_water
        values = self.values
        if values is None or len(values) != hw:
            values = self.values = np.array(bulk(np.arange(hw, dtype=np.intp)))
            self.in_range = scores and self._check(values)
        else:
            dirty = self.changed.since(self.generation)
            if len(dirty):
                new: list[int | None] = []
                done = len(dirty) <= _MAX_SCALAR_ROWS
                if done:
                    new = [one(r) for r in dirty.tolist()]
                    done = None not in new
                    if done:
                        values[dirty] = new
                if not done:
                    values[dirty] = bulk(dirty)
                if scores:
                    if done and self.in_range:
                        self.in_range = all(0 <= v <= MAX_NODE_SCORE for v in new)  # type: ignore[operator]
                    else:
                        self.in_range = self._check(values)
        self.generation = t.generation
        if rows is t.order and t.order_is_range():
            # every row in row order (one zone, every node scored): a copy, not a gather
            result: np.ndarray = values.copy()
            return result
        result = values[rows]
        return result

    @staticmethod
    def _check(values: np.ndarray) -> bool:
        return bool(len(values) == 0 or (int(values.min()) >= 0 and int(values.max()) <= MAX_NODE_SCORE))


class _Caches:
    """_RowCaches by key (a pod request), the most recently used _MAX_KEYS of them: pods of a
    few workloads in turn each find their rows up to date but for the rows changed since."""

    __slots__ = ("by_key", "changed", "table")

    def __init__(self, table: NodeTable, changed: _Changed) -> None:
        self.table = table
        self.changed = changed
        self.by_key: dict[Hashable, _RowCache] = {}

    def get(
        self, key: Hashable, rows: np.ndarray, bulk: Callable[[np.ndarray], np.ndarray],
        one: Callable[[int], int | None], scores: bool,
    ) -> np.ndarray | None:
        """The values of `rows`, or None when they would have to be computed for every row
        for a small share of them (the runners compute just those)."""
        cache = self.by_key.pop(key, None)
        if cache is None or not cache.ready():
            if _SMALL_SHARE * len(rows) < self.table.high_water:
                if cache is not None:
                    self.by_key[key] = cache
                return None
            if cache is None:
                cache = _RowCache(self.table, self.changed)
        self.by_key[key] = cache  # most recently used last
        if len(self.by_key) > _MAX_KEYS:
            del self.by_key[next(iter(self.by_key))]
        values = cache.get(rows, bulk, one, scores)
        if scores and not cache.in_range:
            return None
        return values


class FastPath:
    """The fast path of one framework (profile); built only when its plugins allow it."""

    def __init__(self, fw: Framework, fit: Fit, balanced: BalancedAllocation | None) -> None:
        self.fw = fw
        self.table: NodeTable = fw.handle.node_table
        self.fit = fit
        self.balanced = balanced
        self.filter_kinds: dict[str, str] = {}
        for pl in fw.filter_plugins:
            kind = "fit" if pl is fit else _PASSING_FILTERS.get(type(pl))
            if kind is not None:
                self.filter_kinds[pl.name] = kind
        self.score_kinds: dict[str, str] = {}
        for spl in fw.score_plugins:
            if spl is fit:
                self.score_kinds[spl.name] = "least"
            elif balanced is not None and spl is balanced:
                self.score_kinds[spl.name] = "balanced"
            elif type(spl) is TaintToleration:
                self.score_kinds[spl.name] = "taints"
            elif type(spl) is ImageLocality:
                self.score_kinds[spl.name] = "images"
        changed = _Changed(self.table)
        self._node_flags_key: tuple[int, int] = (-1, -1)
        self._node_flags = (False, False)
        self._codes = _Caches(self.table, changed)
        self._least = _Caches(self.table, changed)
        self._balanced = _Caches(self.table, changed)

    def _unschedulable_or_tainted(self) -> tuple[bool, bool]:
        """(any unschedulable node, any tainted node), memoised by the table's node generation."""
        t = self.table
        key = (t.node_generation, t.high_water)
        if key != self._node_flags_key:
            hw = t.high_water
            self._node_flags = (bool(t.unschedulable[:hw].any()), bool(t.taint_sig[:hw].any()))
            self._node_flags_key = key
        return self._node_flags

    # ------------------------------------------------------------------ Filter
    def filter(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> FilterOutcome | None:
        """RunFilterPlugins' outcome over rows, or None when the runners must do it."""
        t = self.table
        skip = state.skip_filter_plugins
        kinds = self.filter_kinds
        active = [pl.name for pl in self.fw.filter_plugins if pl.name not in skip]
        unschedulable, tainted = self._unschedulable_or_tainted()
        for name in active:
            kind = kinds.get(name)
            if kind is None:
                return None
            if kind == "nodename" and pod_info.node_name:
                return None
            if kind == "unschedulable" and unschedulable:
                return None
            if kind == "taints" and tainted:
                return None
        req: Resource | None = state.get(_FIT_FILTER_KEY)
        fit_codes: np.ndarray | None = None
        if self.fit.name in active:
            if req is None:
                return None
            key = req.request_key()
            fit_codes = self._codes.get(key, rows, lambda r: self.fit._codes(t, req, r),  # noqa: SLF001
                                        lambda r: self._code_one(req, r), False)
            if fit_codes is None:
                return None
        # the loop of Framework.run_filter, with every plugin but Fit passing every node
        remaining = np.arange(len(rows), dtype=np.intp)
        whole = True
        rejections: list[Rejection] = []
        plugins_run: list[str] = []
        for name in active:
            if len(remaining) == 0:
                break
            plugins_run.append(name)
            if kinds[name] != "fit":
                continue
            assert fit_codes is not None and req is not None
            codes = fit_codes if whole else fit_codes[remaining]
            fail = codes != 0
            if fail.any():
                fit, table, fixed = self.fit, t, req
                res = BatchFilterResult(codes, lambda row: fit._reasons(table, fixed, row))  # noqa: SLF001
                rejections.append(Rejection(name, remaining[fail], codes[fail], res))
                remaining = remaining[~fail]
                whole = False
        return FilterOutcome(rows, remaining, rejections, plugins_run)

    def _code_one(self, req: Resource, row: int) -> int | None:
        """Fit._codes for one row (None: scalar resources or out of the exact range)."""
        if req.scalar_resources:
            return None
        t = self.table
        fail = int(t.pod_count[row]) + 1 > int(t.allowed_pods[row])
        unresolvable = False
        if not req.is_zero():
            for want, alloc, used in (
                (req.milli_cpu, t.alloc_cpu, t.req_cpu),
                (req.memory, t.alloc_mem, t.req_mem),
                (req.ephemeral_storage, t.alloc_eph, t.req_eph),
            ):
                if want > 0:
                    a, u = int(alloc[row]), int(used[row])
                    if abs(a) >= _EXACT or abs(u) >= _EXACT:
                        return None
                    fail |= want > a - u
                    unresolvable |= want > a
        if not fail:
            return 0
        return _UNRESOLVABLE if unresolvable else _UNSCHEDULABLE

    # ------------------------------------------------------------------- Score
    def score(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> ScoreOutcome | None:
        """RunScorePlugins' outcome over rows, or None when the runners must do it."""
        t = self.table
        skip = state.skip_score_plugins
        kinds = self.score_kinds
        active = [pl.name for pl in self.fw.score_plugins if pl.name not in skip]
        columns: dict[str, np.ndarray] = {}
        tainted = self._unschedulable_or_tainted()[1]
        for name in active:
            kind = kinds.get(name)
            if kind is None:
                return None
            if kind == "taints" and tainted:
                return None
            if kind == "images" and any(t.image_nodes.get(image) for image in pod_info.images):
                return None
            if kind == "least":
                reqs = state.get(_FIT_SCORE_KEY)
                if reqs is None:
                    return None
                fit, fixed = self.fit, list(reqs)
                col = self._least.get(tuple(fixed), rows, lambda r: fit._scores(fixed, r),  # noqa: SLF001
                                      lambda r: self._least_one(fixed, r), True)
                if col is None:
                    return None
                columns[name] = col
            elif kind == "balanced":
                breqs = state.get(_BALANCED_KEY)
                if breqs is None or self.balanced is None:
                    return None
                ba, bfixed = self.balanced, list(breqs)
                col = self._balanced.get(tuple(bfixed), rows, lambda r: ba._scores(bfixed, r),  # noqa: SLF001
                                         lambda r: self._balanced_one(bfixed, r), True)
                if col is None:
                    return None
                columns[name] = col
        # the loop of Framework.run_score: raw, normalised, weighted, totals
        n = len(rows)
        out = ScoreOutcome(rows)
        weights = self.fw.weights
        # the same constant column for every node is added once, as a number
        constant = 0
        for name in active:
            kind = kinds[name]
            weight = weights[name]
            if kind == "taints":  # no taint anywhere: raw 0, DefaultNormalizeScore reversed: 100
                raw = _constant(n, 0)
                norm = _constant(n, MAX_NODE_SCORE) if n else raw
                final = norm if weight == 1 else _constant(n, MAX_NODE_SCORE * weight)
                constant += MAX_NODE_SCORE * weight if n else 0
            elif kind == "images":  # none of the images on any node: 0, no NormalizeScore
                raw = norm = final = _constant(n, 0)
            else:
                raw = norm = columns[name]
                final = norm if weight == 1 else norm * weight
                out.total += final
            out.plugins.append(name)
            out.raw.append(raw)
            out.normalized.append(norm)
            out.final.append(final)
        if constant:
            out.total += constant
        return out

    def _least_one(self, reqs: list[int], row: int) -> int | None:
        """LeastAllocated over cpu and memory (weight 1 each) for one row, as least_allocated."""
        t = self.table
        score = weights = 0
        for alloc, requested, pod_req in ((t.alloc_cpu, t.nz_cpu, reqs[0]), (t.alloc_mem, t.nz_mem, reqs[1])):
            a, r = int(alloc[row]), int(requested[row]) + pod_req
            if abs(a) >= _EXACT or abs(r) >= _EXACT:
                return None
            if a == 0:
                continue
            s = 0 if r > a else ((a - r) * MAX_NODE_SCORE) // a
            score += s
            weights += 1
        return 0 if weights == 0 else score // weights

    def _balanced_one(self, reqs: list[int], row: int) -> int | None:
        """balanced_score over cpu and memory for one row, in float64 as Go."""
        t = self.table
        a0, a1 = int(t.alloc_cpu[row]), int(t.alloc_mem[row])
        r0, r1 = int(t.req_cpu[row]) + reqs[0], int(t.req_mem[row]) + reqs[1]
        if max(abs(a0), abs(a1), abs(r0), abs(r1)) >= _EXACT:
            return None
        if a0 == 0 or a1 == 0:  # fewer than two resources listed: the deviation is 0
            return MAX_NODE_SCORE
        f0 = min(float(r0) / float(a0), 1.0)
        f1 = min(float(r1) / float(a1), 1.0)
        std = abs((f0 - f1) / 2)
        return int((1 - std) * float(MAX_NODE_SCORE))


def fast_path_for(fw: Framework) -> FastPath | None:
    """A FastPath for the framework when its resource plugins have the default arguments
    (LeastAllocated over cpu and memory, BalancedAllocation over cpu and memory) and the
    switch is on; None otherwise."""
    if not fast_path_enabled():
        return None
    fit = next((pl for pl in fw.plugins.values() if type(pl) is Fit), None)
    if fit is None or fit.strategy != LEAST_ALLOCATED or tuple(fit.resources) != DEFAULT_RESOURCES:
        return None
    if fit.ignored or fit.ignored_groups:
        return None
    balanced = next((pl for pl in fw.plugins.values() if type(pl) is BalancedAllocation), None)
    if balanced is not None and tuple(balanced.resources) != DEFAULT_RESOURCES:
        balanced = None
    return FastPath(fw, fit, balanced)

