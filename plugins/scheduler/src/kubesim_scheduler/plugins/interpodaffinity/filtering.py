"""InterPodAffinity PreFilter/Filter (and the PreFilter AddPod/RemovePod extensions).

upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .paircounts import Pair, PairCounts
from .podindex import ClusterIndex
from .result import ERROR, SKIP, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Outcome
from .terms import AffinityTerm, PodAffinityInfo, merge_namespace_selector, pod_affinity_info

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PreFilterState",
    "filter_node",
    "filter_nodes",
    "filter_verdicts",
    "pod_matches_all_terms",
    "pre_filter",
]

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

_AFFINITY_FAIL = Outcome.of(UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_FAIL = Outcome.of(UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_FAIL = Outcome.of(UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

def pod_matches_all_terms(terms: list[AffinityTerm], namespace: str, labels: Mapping[str, str]) -> bool:
    """podMatchesAllAffinityTerms: false for no terms (incoming terms have namespaces merged)."""
    if not terms:
        return False
    return all(t.matches(namespace, labels, None) for t in terms)


@dataclass
class PreFilterState:
    """preFilterState: counts per (topologyKey, value) pair (plain dicts given are converted)."""

    pod_info: PodAffinityInfo
    namespace_labels: Mapping[str, str]
    existing_anti_affinity_counts: PairCounts = field(default_factory=PairCounts)
    affinity_counts: PairCounts = field(default_factory=PairCounts)
    anti_affinity_counts: PairCounts = field(default_factory=PairCounts)

    def __post_init__(self) -> None:
        for name in ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts"):
            value: Mapping[Pair, int] = getattr(self, name)
            if not isinstance(value, PairCounts):
                setattr(self, name, PairCounts(dict(value)))

    def clone(self) -> PreFilterState:
        """Copy the counters (pod info and namespace labels are shared)."""
        return PreFilterState(
            self.pod_info,
            self.namespace_labels,
            self.existing_anti_affinity_counts.copy(),
            self.affinity_counts.copy(),
            self.anti_affinity_counts.copy(),
        )

    def update_with_pod(
        self, other: PodAffinityInfo, node_labels: Mapping[str, str], multiplier: int
    ) -> None:
        """updateWithPod: account for a pod added to (1) or removed from (-1) a node."""
        me = self.pod_info
        my_labels = me.labels
        for t in other.required_anti_affinity:
            if t.matches(me.namespace, my_labels, self.namespace_labels):
                _update(self.existing_anti_affinity_counts, node_labels, t.topology_key, multiplier)
        if pod_matches_all_terms(me.required_affinity, other.namespace, other.labels):
            for t in me.required_affinity:
                _update(self.affinity_counts, node_labels, t.topology_key, multiplier)
        for t in me.required_anti_affinity:
            if t.matches(other.namespace, other.labels, None):
                _update(self.anti_affinity_counts, node_labels, t.topology_key, multiplier)


def _update(m: PairCounts, node_labels: Mapping[str, str], key: str, value: int) -> None:
    tv = node_labels.get(key)
    if tv is None:
        return
    pair = (key, tv)
    n = m.get(pair, 0) + value
    if n == 0:
        m.pop(pair, None)
    else:
        m[pair] = n


def _add_domain_counts(m: PairCounts, index: ClusterIndex, key: str, per_slot: np.ndarray) -> None:
    dom = index.domain(key)
    m.add_domain(key, dom, dom.sums(per_slot))


def _existing_anti_affinity_counts(state: PreFilterState, index: ClusterIndex) -> PairCounts:
    """getExistingAntiAffinityCounts, over groups of identical terms that may match the pod."""
    me = state.pod_info
    out = PairCounts()
    per_key: dict[str, np.ndarray] = {}
    for _, g in index.candidate_anti_groups(me.labels):
        term = g.term
        if not term.matches(me.namespace, me.labels, state.namespace_labels):
            continue
        tk = term.topology_key
        c = g.counts[: index.size]
        per_key[tk] = per_key[tk] + c if tk in per_key else c.copy()
    for tk, vec in per_key.items():
        _add_domain_counts(out, index, tk, vec)
    return out


def _incoming_counts(state: PreFilterState, index: ClusterIndex) -> tuple[PairCounts, PairCounts]:
    """getIncomingAffinityAntiAffinityCounts, over groups of identically labelled pods."""
    me = state.pod_info
    aff = PairCounts()
    anti = PairCounts()
    req_aff = me.required_affinity
    req_anti = me.required_anti_affinity
    if req_aff:
        aff_vec: np.ndarray | None = None
        for _, g in index.candidate_label_groups(req_aff[0].selector):
            if pod_matches_all_terms(req_aff, g.namespace, g.labels):
                c = g.counts[: index.size]
                aff_vec = c.copy() if aff_vec is None else aff_vec + c
        if aff_vec is not None:
            for t in req_aff:
                _add_domain_counts(aff, index, t.topology_key, aff_vec)
    for t in req_anti:
        vec: np.ndarray | None = None
        for _, g in index.candidate_label_groups(t.selector):
            if t.matches(g.namespace, g.labels, None):
                c = g.counts[: index.size]
                vec = c.copy() if vec is None else vec + c
        if vec is not None:
            _add_domain_counts(anti, index, t.topology_key, vec)
    return aff, anti


def pre_filter(
    pod: Mapping[str, Any],
    index: ClusterIndex,
    namespaces: Mapping[str, Mapping[str, str]],
    pod_info: PodAffinityInfo | None = None,
) -> tuple[PreFilterState | None, Outcome | None]:
    """PreFilter: the state for Filter, or Skip when nothing can reject a node."""
    info = pod_info or pod_affinity_info(pod)
    if info.parse_error is not None:
        return None, Outcome.of(UNSCHEDULABLE_AND_UNRESOLVABLE, f"parsing pod: {info.parse_error}")
    info = _with_merged_namespaces(info, namespaces)
    ns_labels = dict(namespaces.get(info.namespace) or {})
    state = PreFilterState(info, ns_labels)
    state.existing_anti_affinity_counts = _existing_anti_affinity_counts(state, index)
    state.affinity_counts, state.anti_affinity_counts = _incoming_counts(state, index)
    if (
        not state.existing_anti_affinity_counts
        and not info.required_affinity
        and not info.required_anti_affinity
    ):
        return None, Outcome.of(SKIP)
    return state, None


def _with_merged_namespaces(
    info: PodAffinityInfo, namespaces: Mapping[str, Mapping[str, str]]
) -> PodAffinityInfo:
    if not any(
        not t.namespace_selector.empty for t in info.required_affinity + info.required_anti_affinity
    ):
        return info
    return PodAffinityInfo(
        pod=info.pod,
        namespace=info.namespace,
        labels=info.labels,
        required_affinity=[merge_namespace_selector(t, namespaces) for t in info.required_affinity],
        required_anti_affinity=[merge_namespace_selector(t, namespaces) for t in info.required_anti_affinity],
        preferred_affinity=info.preferred_affinity,
        preferred_anti_affinity=info.preferred_anti_affinity,
        has_affinity=info.has_affinity,
        has_required_anti_affinity=info.has_required_anti_affinity,
    )


# ----- Filter --------------------------------------------------------------------------


def _satisfy_existing_pods_anti_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    counts = state.existing_anti_affinity_counts
    if counts:
        for kv in node_labels.items():
            if counts.get(kv, 0) > 0:
                return False
    return True


def _satisfy_pod_anti_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    counts = state.anti_affinity_counts
    if counts:
        for t in state.pod_info.required_anti_affinity:
            tv = node_labels.get(t.topology_key)
            if tv is not None and counts.get((t.topology_key, tv), 0) > 0:
                return False
    return True


def _satisfy_pod_affinity(state: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    pods_exist = True
    counts = state.affinity_counts
    for t in state.pod_info.required_affinity:
        tv = node_labels.get(t.topology_key)
        if tv is None:
            return False
        if counts.get((t.topology_key, tv), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        me = state.pod_info
        return not counts and pod_matches_all_terms(me.required_affinity, me.namespace, me.labels)
    return True


def filter_node(state: PreFilterState, node_labels: Mapping[str, str]) -> Outcome | None:
    """Filter for one node given its labels."""
    if not _satisfy_pod_affinity(state, node_labels):
        return _AFFINITY_FAIL
    if not _satisfy_pod_anti_affinity(state, node_labels):
        return _ANTI_FAIL
    if not _satisfy_existing_pods_anti_affinity(state, node_labels):
        return _EXISTING_FAIL
    return None


#: filter_verdicts codes, in Filter's order of checks
PASS, AFFINITY_FAIL, ANTI_FAIL, EXISTING_FAIL = 0, 1, 2, 3
#: verdict -> outcome
VERDICT_OUTCOMES: tuple[Outcome | None, ...] = (None, _AFFINITY_FAIL, _ANTI_FAIL, _EXISTING_FAIL)


def filter_verdicts(state: PreFilterState, index: ClusterIndex) -> np.ndarray:
    """Filter's verdict for every node slot (int8: PASS or the first failing check)."""
    n = index.size
    me = state.pod_info
    verdict = np.zeros(n, dtype=np.int8)
    existing = state.existing_anti_affinity_counts
    if existing:
        for key in existing.topology_keys():
            verdict[existing.per_slot(index, key) > 0] = EXISTING_FAIL
    anti = state.anti_affinity_counts
    if anti:
        for t in me.required_anti_affinity:
            verdict[anti.per_slot(index, t.topology_key) > 0] = ANTI_FAIL
    if me.required_affinity:
        aff = state.affinity_counts
        has_all = np.ones(n, dtype=bool)
        exist = np.ones(n, dtype=bool)
        for t in me.required_affinity:
            has_all &= index.domain(t.topology_key).ids >= 0
            exist &= aff.per_slot(index, t.topology_key) > 0
        exception = not aff and pod_matches_all_terms(me.required_affinity, me.namespace, me.labels)
        verdict[~has_all | (~exist & (not exception))] = AFFINITY_FAIL
    return verdict


def filter_nodes(
    state: PreFilterState, index: ClusterIndex, slots: np.ndarray | None = None
) -> list[Outcome | None]:
    """Filter for many node slots at once (all live slots when `slots` is None)."""
    if slots is None:
        slots = np.flatnonzero(index.active_mask())
    verdict = filter_verdicts(state, index)
    return [VERDICT_OUTCOMES[v] for v in verdict[slots].tolist()]


def error_outcome(message: str) -> Outcome:
    """fwk.AsStatus(err)."""
    return Outcome.of(ERROR, message)
