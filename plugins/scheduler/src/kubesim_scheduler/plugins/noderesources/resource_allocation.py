"""Per-resource allocatable/requested columns and the three Fit scoring strategies, vectorised.

All arithmetic is int64 with Go's truncating division, so scores equal upstream's exactly.
"""

# upstream: pkg/scheduler/framework/plugins/noderesources/resource_allocation.go,
# least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go,
# plugins/helper/shape_score.go (BuildBrokenLinearFunction)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.interface import MAX_NODE_SCORE
from ...framework.node_table import NodeTable
from ...framework.normalize import go_div
from ...resources import is_scalar_resource_name

__all__ = [
    "Columns",
    "ResourceSpec",
    "resource_specs",
    "allocatable_requested",
    "least_allocated",
    "most_allocated",
    "requested_to_capacity_ratio",
    "broken_linear",
    "MAX_CUSTOM_PRIORITY_SCORE",
]

MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

# (name, weight)
ResourceSpec = tuple[str, int]
DEFAULT_RESOURCES: tuple[ResourceSpec, ...] = (("cpu", 1), ("memory", 1))


def resource_specs(raw: Sequence[Mapping[str, Any]] | None, path: str = "resources") -> tuple[ResourceSpec, ...]:
    """Resources from args: absent -> cpu and memory; an absent weight -> 1 (v1 defaulting).

    Weights given must lie in 1..100, as ValidateNodeResourcesFitArgs requires.
    """
    if raw is None:
        return DEFAULT_RESOURCES
    out = []
    for i, r in enumerate(raw):
        w = r.get("weight")
        w = 1 if w is None else int(w)
        if w <= 0 or w > MAX_NODE_SCORE:
            raise ValueError(f"{path}[{i}].weight: Invalid value: {w}: resource weight of {r.get('name')} should be in range [1, 100]")
        out.append((str(r["name"]), w))
    if not out:
        return DEFAULT_RESOURCES
    return tuple(out)


def allocatable_requested(
    table: NodeTable, rows: np.ndarray, resource: str, pod_request: int, use_requested: bool
) -> tuple[np.ndarray, np.ndarray]:
    """calculateResourceAllocatableRequest over rows: (allocatable, requested + pod request).

    Non-zero requested sums back cpu/memory unless use_requested; a zero pod request of a
    scalar resource, or a resource the node does not list, yields (0, 0) and is skipped.
    """
    n = len(rows)
    zeros = np.zeros(n, dtype=np.int64)
    if pod_request == 0 and is_scalar_resource_name(resource):
        return zeros, zeros
    if resource == "cpu":
        req = table.req_cpu if use_requested else table.nz_cpu
        return table.alloc_cpu[rows], req[rows] + pod_request
    if resource == "memory":
        req = table.req_mem if use_requested else table.nz_mem
        return table.alloc_mem[rows], req[rows] + pod_request
    if resource == "ephemeral-storage":
        return table.alloc_eph[rows], table.req_eph[rows] + pod_request
    sc = table.scalars.get(resource)
    if sc is None:
        return zeros, zeros
    has = sc.has[rows]
    return np.where(has, sc.alloc[rows], 0), np.where(has, sc.req[rows] + pod_request, 0)


Columns = list[tuple[np.ndarray, np.ndarray, int]]  # (allocatable, requested, weight)


def _weighted_mean(parts: list[tuple[np.ndarray | None, np.ndarray, int]], n: int) -> np.ndarray:
    """sum(score * w) / sum(w) over the resources a node lists (alloc != 0), integer division."""
    if all(ok is None for ok, _, _ in parts):
        total_w = sum(w for _, _, w in parts)
        if total_w == 0:
            return np.zeros(n, dtype=np.int64)
        acc = parts[0][1] * parts[0][2]
        for _, s, w in parts[1:]:
            acc = acc + s * w
        return acc // total_w
    node_score = np.zeros(n, dtype=np.int64)
    weight_sum = np.zeros(n, dtype=np.int64)
    for ok, s, w in parts:
        if ok is None:
            node_score += s * w
            weight_sum += w
        else:
            node_score += np.where(ok, s * w, 0)
            weight_sum += np.where(ok, w, 0)
    return np.where(weight_sum == 0, 0, node_score // np.maximum(weight_sum, 1))


def least_allocated(cols: Columns, n: int) -> np.ndarray:
    """leastResourceScorer: weighted mean of (alloc - req) * 100 / alloc over listed resources.

    All operands are non-negative where used, so floor division equals Go's truncation.
    """
    parts = []
    for alloc, req, w in cols:
        ok = alloc != 0
        all_ok = bool(ok.all())
        safe = alloc if all_ok else np.where(ok, alloc, 1)
        s = ((alloc - req) * MAX_NODE_SCORE) // safe
        s[req > alloc] = 0
        parts.append((None if all_ok else ok, s, w))
    return _weighted_mean(parts, n)


def most_allocated(cols: Columns, n: int) -> np.ndarray:
    """mostResourceScorer: weighted mean of min(req, alloc) * 100 / alloc."""
    parts = []
    for alloc, req, w in cols:
        ok = alloc != 0
        all_ok = bool(ok.all())
        safe = alloc if all_ok else np.where(ok, alloc, 1)
        s = (np.minimum(req, alloc) * MAX_NODE_SCORE) // safe
        parts.append((None if all_ok else ok, s, w))
    return _weighted_mean(parts, n)


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[np.ndarray], np.ndarray]:
    """helper.BuildBrokenLinearFunction over arrays: (utilization, score) points, Go int math."""
    utils = np.array([u for u, _ in shape], dtype=np.int64)
    scores = np.array([s for _, s in shape], dtype=np.int64)

    def f(p: np.ndarray) -> np.ndarray:
        i = np.searchsorted(utils, p, side="left")  # first i with p <= utils[i]
        out = np.empty(len(p), dtype=np.int64)
        beyond = i >= len(utils)
        out[beyond] = scores[-1]
        first = i == 0
        out[first & ~beyond] = scores[0]
        mid = ~beyond & ~first
        if mid.any():
            j = i[mid]
            u0, u1, s0, s1 = utils[j - 1], utils[j], scores[j - 1], scores[j]
            out[mid] = s0 + go_div((s1 - s0) * (p[mid] - u0), u1 - u0)
        return out

    return f


def requested_to_capacity_ratio(shape: Sequence[tuple[int, int]]) -> Callable[[Columns, int], np.ndarray]:
    """RequestedToCapacityRatio scorer; shape scores (0..10) are scaled to 0..100."""
    fn = broken_linear([(u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape])

    def score(cols: Columns, n: int) -> np.ndarray:
        node_score = np.zeros(n, dtype=np.int64)
        weight_sum = np.zeros(n, dtype=np.int64)
        for alloc, req, w in cols:
            ok = alloc != 0
            over = (alloc == 0) | (req > alloc)
            util = np.where(over, MAX_UTILIZATION, go_div(req * MAX_UTILIZATION, np.where(ok, alloc, 1)))
            s = fn(util)
            use = ok & (s > 0)
            node_score += np.where(use, s * w, 0)
            weight_sum += np.where(use, w, 0)
        x = node_score.astype(np.float64) / np.where(weight_sum == 0, 1, weight_sum).astype(np.float64)
        fl = np.floor(x)
        rounded = (fl + ((x - fl) >= 0.5)).astype(np.int64)  # math.Round: half away from zero (x >= 0)
        return np.where(weight_sum == 0, 0, rounded)

    return score
