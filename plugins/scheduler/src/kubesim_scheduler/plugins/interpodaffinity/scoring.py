"""InterPodAffinity PreScore/Score/NormalizeScore.

upstream: pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .args import InterPodAffinityArgs
from .podindex import HARD_AFFINITY, PREFERRED_ANTI_AFFINITY, ClusterIndex
from .result import ERROR, SKIP, Outcome
from .terms import PodAffinityInfo, WeightedAffinityTerm, merge_namespace_selector, pod_affinity_info

__all__ = ["MAX_NODE_SCORE", "PreScoreState", "normalize_scores", "pre_score", "score_node", "score_nodes"]

MAX_NODE_SCORE = 100


@dataclass
class PreScoreState:
    """preScoreState: summed weights per topology key and value."""

    pod_info: PodAffinityInfo
    namespace_labels: Mapping[str, str]
    topology_score: dict[str, dict[str, int]] = field(default_factory=dict)


def _has_preferred(pod: Mapping[str, Any]) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = affinity.get(kind)
        if a is not None and a.get("preferredDuringSchedulingIgnoredDuringExecution"):
            return True
    return False


def pre_score(
    pod: Mapping[str, Any],
    index: ClusterIndex,
    namespaces: Mapping[str, Mapping[str, str]],
    args: InterPodAffinityArgs | None = None,
    pod_info: PodAffinityInfo | None = None,
) -> tuple[PreScoreState | None, Outcome | None]:
    """PreScore: topology scores from every bound pod, or Skip when no term touches any node."""
    args = args or InterPodAffinityArgs()
    has_constraints = _has_preferred(pod)
    if args.ignore_preferred_terms_of_existing_pods and not has_constraints:
        return None, Outcome.of(SKIP)
    info = pod_info or pod_affinity_info(pod)
    if info.parse_error is not None:
        return None, Outcome.of(ERROR, f"failed to parse pod: {info.parse_error}")
    pref_aff = [
        WeightedAffinityTerm(merge_namespace_selector(w.term, namespaces), w.weight)
        for w in info.preferred_affinity
    ]
    pref_anti = [
        WeightedAffinityTerm(merge_namespace_selector(w.term, namespaces), w.weight)
        for w in info.preferred_anti_affinity
    ]
    ns_labels = dict(namespaces.get(info.namespace) or {})
    state = PreScoreState(info, ns_labels)
    scores = state.topology_score
    touched = False

    # The incoming pod's preferred terms against every bound pod.
    for terms, sign in ((pref_aff, 1), (pref_anti, -1)):
        for wt in terms:
            term = wt.term
            vec: np.ndarray | None = None
            for _, g in index.candidate_label_groups(term.selector):
                if term.matches(g.namespace, g.labels, None):
                    c = g.counts[: index.size]
                    vec = c.copy() if vec is None else vec + c
            if vec is not None:
                touched |= _accumulate(scores, index, term.topology_key, vec, wt.weight * sign)

    # Bound pods' terms against the incoming pod.
    for (kind, _, weight), tg in index.candidate_score_groups(info.labels):
        if kind == HARD_AFFINITY:
            if args.hard_pod_affinity_weight <= 0:
                continue
            weight = args.hard_pod_affinity_weight
        term = tg.term
        if not term.matches(info.namespace, info.labels, ns_labels):
            continue
        sign = -1 if kind == PREFERRED_ANTI_AFFINITY else 1
        touched |= _accumulate(scores, index, term.topology_key, tg.counts[: index.size], weight * sign)

    if not touched:
        return None, Outcome.of(SKIP)
    return state, None


def _accumulate(
    scores: dict[str, dict[str, int]], index: ClusterIndex, key: str, per_slot: np.ndarray, weight: int
) -> bool:
    """Add weight x matching pods per domain; True if any pod sat on a node with the key."""
    dom = index.domain(key)
    sums = dom.sums(per_slot)
    nz = np.flatnonzero(sums)
    if len(nz) == 0:
        return False
    m = scores.setdefault(key, {})
    for j in nz:
        v = dom.values[j]
        m[v] = m.get(v, 0) + weight * int(sums[j])
    return True


def score_node(state: PreScoreState, node_labels: Mapping[str, str]) -> int:
    """Score: the summed weights of the node's topology values."""
    score = 0
    for key, values in state.topology_score.items():
        v = node_labels.get(key)
        if v is not None:
            score += values.get(v, 0)
    return score


def score_nodes(state: PreScoreState, index: ClusterIndex, slots: Sequence[int]) -> list[int]:
    """Score for many node slots at once."""
    total = np.zeros(index.size, dtype=np.int64)
    for key, values in state.topology_score.items():
        dom = index.domain(key)
        arr = np.zeros(len(dom.values) + 1, dtype=np.int64)
        for v, s in values.items():
            j = dom.pos.get(v)
            if j is not None:
                arr[j] = s
        total += arr[dom.ids]
    return [int(total[i]) for i in slots]


def normalize_scores(state: PreScoreState, scores: Sequence[int]) -> list[int]:
    """NormalizeScore: scale to 0..100 between the lowest and highest raw score."""
    if not state.topology_score or not scores:
        return list(scores)
    lo = min(scores)
    hi = max(scores)
    diff = hi - lo
    out = []
    for s in scores:
        f = 0.0
        if diff > 0:
            f = float(MAX_NODE_SCORE) * (float(s - lo) / float(diff))
        out.append(int(f))
    return out
