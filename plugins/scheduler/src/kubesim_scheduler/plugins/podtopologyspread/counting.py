"""Per-node counts of matching pods and per-node eligibility, computed over the pod index.

upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go (countPodsMatchSelector,
nodeLabelsMatchSpreadConstraints, matchNodeInclusionPolicies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..interpodaffinity.podindex import ClusterIndex
from .constraints import HONOR, SpreadConstraint
from .nodeinclusion import RequiredNodeAffinity, has_untolerated_taint

__all__ = ["has_all_keys_mask", "inclusion_mask", "matching_counts"]


def matching_counts(index: ClusterIndex, constraint: SpreadConstraint, namespace: str) -> np.ndarray:
    """countPodsMatchSelector for every node slot: non-terminating pods of `namespace` it selects."""
    out = np.zeros(index.size, dtype=np.int64)
    sel = constraint.selector
    if sel.empty():
        return out
    for _, g in index.candidate_label_groups(sel):
        if g.terminating or g.namespace != namespace:
            continue
        if sel.matches(g.labels):
            out += g.counts[: index.size]
    return out


def has_all_keys_mask(index: ClusterIndex, constraints: Sequence[SpreadConstraint]) -> np.ndarray:
    """nodeLabelsMatchSpreadConstraints for every slot (live slots only)."""
    mask = index.active_mask().copy()
    for c in constraints:
        mask &= index.domain(c.topology_key).ids >= 0
    result: np.ndarray = mask
    return result


def _affinity_mask(index: ClusterIndex, req: RequiredNodeAffinity) -> np.ndarray:
    def compute() -> np.ndarray:
        m = np.zeros(index.size, dtype=bool)
        for i, node in index.nodes():
            m[i] = req.match(node)
        return m

    result: np.ndarray = index.memoized(("naff", index.node_generation, req.key), compute)
    return result


def _taint_mask(index: ClusterIndex, tolerations: Sequence[Mapping[str, Any]]) -> np.ndarray:
    def compute() -> np.ndarray:
        m = np.zeros(index.size, dtype=bool)
        for i, node in index.nodes():
            taints = (node.get("spec") or {}).get("taints") or []
            m[i] = not has_untolerated_taint(taints, tolerations)
        return m

    key = ("taint", index.node_generation, repr(tolerations))
    result: np.ndarray = index.memoized(key, compute)
    return result


def inclusion_mask(
    index: ClusterIndex, pod: Mapping[str, Any], constraint: SpreadConstraint, req: RequiredNodeAffinity
) -> np.ndarray:
    """matchNodeInclusionPolicies for every slot."""
    mask = index.active_mask().copy()
    if constraint.node_affinity_policy == HONOR:
        mask &= _affinity_mask(index, req)
    if constraint.node_taints_policy == HONOR:
        tolerations = (pod.get("spec") or {}).get("tolerations") or []
        mask &= _taint_mask(index, tolerations)
    result: np.ndarray = mask
    return result
