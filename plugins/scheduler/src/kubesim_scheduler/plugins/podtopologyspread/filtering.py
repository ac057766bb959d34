"""PodTopologySpread PreFilter/Filter (and the PreFilter AddPod/RemovePod extensions).

upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesim.k8s.selectors import SelectorError

from ..interpodaffinity.podindex import ClusterIndex
from ..interpodaffinity.result import ERROR, SKIP, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Outcome
from .constraints import (
    DO_NOT_SCHEDULE,
    OwnerLookup,
    PodTopologySpreadArgs,
    SpreadConstraint,
    get_constraints,
)
from .counting import has_all_keys_mask, inclusion_mask, matching_counts
from .nodeinclusion import RequiredNodeAffinity, has_untolerated_taint

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "CriticalPaths",
    "PreFilterState",
    "filter_node",
    "filter_nodes",
    "filter_verdicts",
    "pre_filter",
]

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_MISSING_LABEL = Outcome.of(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
_SKEW = Outcome.of(UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
_MAX_INT32 = 2**31 - 1


class CriticalPaths:
    """criticalPaths: two (value, count) entries; [0] always holds the minimum after PreFilter."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[list[Any]] | None = None) -> None:
        self.paths: list[list[Any]] = paths or [["", _MAX_INT32], ["", _MAX_INT32]]

    def copy(self) -> CriticalPaths:
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])

    def update(self, value: str, num: int) -> None:
        """criticalPaths.update."""
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]


@dataclass
class PreFilterState:
    """preFilterState: matching pods per topology value, per DoNotSchedule constraint."""

    constraints: list[SpreadConstraint] = field(default_factory=list)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)

    def min_match_num(self, i: int, min_domains: int) -> int:
        """The global minimum for skew, 0 while there are fewer eligible domains than minDomains."""
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return int(self.critical_paths[i].paths[0][1])

    def clone(self) -> PreFilterState:
        """Copy the counters (constraints are shared)."""
        return PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
        )

    def update_with_pod(
        self,
        updated_pod: Mapping[str, Any],
        preemptor_pod: Mapping[str, Any],
        node: Mapping[str, Any] | None,
        delta: int,
    ) -> None:
        """updateWithPod: a pod added to (1) or removed from (-1) `node`."""
        if node is None:
            return
        if _ns(updated_pod) != _ns(preemptor_pod):
            return
        node_labels = (node.get("metadata") or {}).get("labels") or {}
        if any(c.topology_key not in node_labels for c in self.constraints):
            return
        req = RequiredNodeAffinity(preemptor_pod)
        pod_labels = (updated_pod.get("metadata") or {}).get("labels") or {}
        for i, c in enumerate(self.constraints):
            if not c.selector.matches(pod_labels):
                continue
            if not _match_inclusion(c, preemptor_pod, node, req):
                continue
            v = node_labels[c.topology_key]
            m = self.tp_value_to_match_num[i]
            m[v] = m.get(v, 0) + delta
            self.critical_paths[i].update(v, m[v])


def _ns(pod: Mapping[str, Any]) -> str:
    return (pod.get("metadata") or {}).get("namespace", "") or ""


def _match_inclusion(
    c: SpreadConstraint, pod: Mapping[str, Any], node: Mapping[str, Any], req: RequiredNodeAffinity
) -> bool:
    if c.node_affinity_policy == "Honor" and not req.match(node):
        return False
    if c.node_taints_policy == "Honor":
        taints = (node.get("spec") or {}).get("taints") or []
        if has_untolerated_taint(taints, (pod.get("spec") or {}).get("tolerations") or []):
            return False
    return True


def pre_filter(
    pod: Mapping[str, Any],
    index: ClusterIndex,
    args: PodTopologySpreadArgs | None = None,
    owners: OwnerLookup | None = None,
    *,
    match_label_keys: bool = True,
) -> tuple[PreFilterState | None, Outcome | None]:
    """PreFilter: count matching pods per domain of every DoNotSchedule constraint, or Skip."""
    args = args or PodTopologySpreadArgs()
    try:
        constraints = get_constraints(pod, DO_NOT_SCHEDULE, args, owners, match_label_keys=match_label_keys)
    except SelectorError as e:
        where = (
            "obtaining pod's hard topology spread constraints"
            if (pod.get("spec") or {}).get("topologySpreadConstraints")
            else "setting default hard topology spread constraints"
        )
        return None, Outcome.of(ERROR, f"get constraints from pod: {where}: {e}")
    if not constraints:
        return None, Outcome.of(SKIP)
    state = PreFilterState(constraints)
    base = has_all_keys_mask(index, constraints)
    req = RequiredNodeAffinity(pod)
    ns = _ns(pod)
    for c in constraints:
        elig = base & inclusion_mask(index, pod, c, req)
        dom = index.domain(c.topology_key)
        ids = dom.ids[elig]
        counts = matching_counts(index, c, ns)[elig]
        present = np.bincount(ids, minlength=len(dom.values))
        sums = np.bincount(ids, weights=counts, minlength=len(dom.values)).astype(np.int64)
        m = {dom.values[j]: int(sums[j]) for j in np.flatnonzero(present)}
        paths = CriticalPaths()
        for v, n in m.items():
            paths.update(v, n)
        state.tp_value_to_match_num.append(m)
        state.critical_paths.append(paths)
    return state, None


def filter_node(
    state: PreFilterState, pod_labels: Mapping[str, str], node_labels: Mapping[str, str]
) -> Outcome | None:
    """Filter for one node given its labels."""
    for i, c in enumerate(state.constraints):
        tv = node_labels.get(c.topology_key)
        if tv is None:
            return _MISSING_LABEL
        min_match = state.min_match_num(i, c.min_domains)
        self_match = 1 if c.selector.matches(pod_labels) else 0
        if state.tp_value_to_match_num[i].get(tv, 0) + self_match - min_match > c.max_skew:
            return _SKEW
    return None


#: filter_verdicts codes: pass, a constraint's key missing on the node, skew too large
PASS, MISSING_LABEL, SKEW = 0, 1, 2
#: verdict -> outcome
VERDICT_OUTCOMES: tuple[Outcome | None, ...] = (None, _MISSING_LABEL, _SKEW)


def filter_verdicts(state: PreFilterState, pod_labels: Mapping[str, str], index: ClusterIndex) -> np.ndarray:
    """Filter's verdict for every node slot (int8: PASS, MISSING_LABEL or SKEW), the first
    constraint that fails deciding, as in Filter's loop."""
    n = index.size
    verdict = np.zeros(n, dtype=np.int8)
    for i, c in enumerate(state.constraints):
        dom = index.domain(c.topology_key)
        undecided = verdict == 0
        missing = dom.ids < 0
        verdict[undecided & missing] = MISSING_LABEL
        arr = np.zeros(len(dom.values) + 1, dtype=np.int64)
        for v, num in state.tp_value_to_match_num[i].items():
            j = dom.pos.get(v)
            if j is not None:
                arr[j] = num
        self_match = 1 if c.selector.matches(pod_labels) else 0
        skew = arr[dom.ids] + self_match - state.min_match_num(i, c.min_domains)
        verdict[undecided & ~missing & (skew > c.max_skew)] = SKEW
    return verdict


def filter_nodes(
    state: PreFilterState,
    pod_labels: Mapping[str, str],
    index: ClusterIndex,
    slots: Sequence[int] | None = None,
) -> list[Outcome | None]:
    """Filter for many node slots at once (all live slots when `slots` is None)."""
    if slots is None:
        slots = np.flatnonzero(index.active_mask()).tolist()
    verdict = filter_verdicts(state, pod_labels, index)
    return [VERDICT_OUTCOMES[int(verdict[s])] for s in slots]
