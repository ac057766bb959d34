"""PodTopologySpread PreScore/Score/NormalizeScore with Go's float64 and int64 arithmetic.

upstream: pkg/scheduler/framework/plugins/podtopologyspread/scoring.go
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesim.k8s.selectors import SelectorError

from ..interpodaffinity.podindex import ClusterIndex
from ..interpodaffinity.result import ERROR, SKIP, Outcome
from .constraints import (
    LABEL_HOSTNAME,
    SCHEDULE_ANYWAY,
    OwnerLookup,
    PodTopologySpreadArgs,
    SpreadConstraint,
    get_constraints,
)
from .counting import has_all_keys_mask, inclusion_mask, matching_counts
from .gomath import go_log, go_round
from .nodeinclusion import RequiredNodeAffinity

__all__ = ["MAX_NODE_SCORE", "PreScoreState", "normalize_scores", "pre_score", "score_node", "score_nodes"]

MAX_NODE_SCORE = 100
_INVALID_SCORE = -1


@dataclass
class PreScoreState:
    """preScoreState: matching pods per topology value of each ScheduleAnyway constraint."""

    constraints: list[SpreadConstraint] = field(default_factory=list)
    ignored_nodes: set[str] = field(default_factory=set)
    topology_value_to_pod_counts: list[dict[str, int]] = field(default_factory=list)
    topology_normalizing_weight: list[float] = field(default_factory=list)
    # Per-slot matching pods for hostname constraints (counted in Score upstream).
    host_counts: dict[int, np.ndarray] = field(default_factory=dict)


def topology_normalizing_weight(size: int) -> float:
    """log(size + 2), as Go computes it."""
    return go_log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    """float64(cnt)*weight + float64(maxSkew-1)."""
    return float(cnt) * weight + float(max_skew - 1)


def pre_score(
    pod: Mapping[str, Any],
    index: ClusterIndex,
    filtered: Sequence[int] | Callable[[], Sequence[int]],
    args: PodTopologySpreadArgs | None = None,
    owners: OwnerLookup | None = None,
    *,
    match_label_keys: bool = True,
) -> tuple[PreScoreState | None, Outcome | None]:
    """PreScore over the filtered node slots; Skip when there are no soft constraints or nodes.

    `filtered` may be a function giving the slots, called only when there are constraints.
    """
    args = args or PodTopologySpreadArgs()
    if not index.active_mask().any():
        return None, Outcome.of(SKIP)
    own = bool((pod.get("spec") or {}).get("topologySpreadConstraints"))
    require_all = own or not args.system_defaulted
    try:
        constraints = get_constraints(pod, SCHEDULE_ANYWAY, args, owners, match_label_keys=match_label_keys)
    except SelectorError as e:
        where = (
            "obtaining pod's soft topology spread constraints"
            if own
            else "setting default soft topology spread constraints"
        )
        return None, Outcome.of(ERROR, f"calculating preScoreState: {where}: {e}")
    if not constraints:
        return None, Outcome.of(SKIP)
    if callable(filtered):
        filtered = filtered()
    state = PreScoreState(constraints)
    counts_by_value: list[dict[str, int]] = [{} for _ in constraints]
    keys_ok = has_all_keys_mask(index, constraints)
    for slot in filtered:
        if require_all and not keys_ok[slot]:
            state.ignored_nodes.add(index.node_names[slot])
            continue
        labels = index.node_labels[slot]
        for i, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue
            counts_by_value[i].setdefault(labels.get(c.topology_key, ""), 0)
    for i, c in enumerate(constraints):
        size = len(counts_by_value[i])
        if c.topology_key == LABEL_HOSTNAME:
            size = len(filtered) - len(state.ignored_nodes)
        state.topology_normalizing_weight.append(topology_normalizing_weight(size))

    req = RequiredNodeAffinity(pod)
    ns = (pod.get("metadata") or {}).get("namespace", "") or ""
    base = keys_ok if require_all else index.active_mask()
    for i, c in enumerate(constraints):
        per_slot = matching_counts(index, c, ns)
        if c.topology_key == LABEL_HOSTNAME:
            state.host_counts[i] = per_slot
            continue
        values = counts_by_value[i]
        if not values:
            continue
        elig = base & inclusion_mask(index, pod, c, req)
        dom = index.domain(c.topology_key)
        sums = dom.sums(np.where(elig, per_slot, 0))
        for v in values:
            j = dom.pos.get(v)
            if j is not None:
                values[v] += int(sums[j])
        if "" in values:
            # Nodes without the key count under "" when not every key is required.
            values[""] += int(per_slot[elig & (dom.ids < 0)].sum())
    state.topology_value_to_pod_counts = counts_by_value
    return state, None


def score_node(state: PreScoreState, index: ClusterIndex, slot: int) -> int:
    """Score: weighted matching pods in the node's domains (lower is better before normalizing)."""
    if index.node_names[slot] in state.ignored_nodes:
        return 0
    labels = index.node_labels[slot]
    score = 0.0
    for i, c in enumerate(state.constraints):
        tv = labels.get(c.topology_key)
        if tv is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            cnt = int(state.host_counts[i][slot])
        else:
            cnt = state.topology_value_to_pod_counts[i].get(tv, 0)
        score += score_for_count(cnt, c.max_skew, state.topology_normalizing_weight[i])
    return int(go_round(score))


def score_nodes(state: PreScoreState, index: ClusterIndex, slots: Sequence[int]) -> list[int]:
    """Score for many node slots at once (same float64 operations, elementwise)."""
    sl = np.asarray(slots, dtype=np.intp)
    score = np.zeros(len(sl), dtype=np.float64)
    for i, c in enumerate(state.constraints):
        dom = index.domain(c.topology_key)
        ids = dom.ids[sl]
        if c.topology_key == LABEL_HOSTNAME:
            cnt = state.host_counts[i][sl]
        else:
            per_domain = np.zeros(len(dom.values) + 1, dtype=np.int64)
            for v, n in state.topology_value_to_pod_counts[i].items():
                j = dom.pos.get(v)
                if j is not None:
                    per_domain[j] = n
            cnt = per_domain[ids]
        term = cnt.astype(np.float64) * state.topology_normalizing_weight[i] + float(c.max_skew - 1)
        score = np.where(ids >= 0, score + term, score)
    t = np.trunc(score)
    rounded = np.where(np.abs(score - t) >= 0.5, t + np.copysign(1.0, score), t).astype(np.int64)
    if state.ignored_nodes:
        names = index.node_names
        for k, slot in enumerate(sl.tolist()):
            if names[slot] in state.ignored_nodes:
                rounded[k] = 0
    result: list[int] = rounded.tolist()
    return result


def normalize_scores(state: PreScoreState, names: Sequence[str], scores: Sequence[int]) -> list[int]:
    """NormalizeScore: invert and scale to 0..100; ignored nodes get 0."""
    arr = np.asarray(scores, dtype=np.int64)
    valid = (
        np.array([n not in state.ignored_nodes for n in names], dtype=bool) if state.ignored_nodes else None
    )
    vals = arr if valid is None else arr[valid]
    out = np.zeros(len(arr), dtype=np.int64)
    if len(vals) == 0:
        result: list[int] = out.tolist()
        return result
    lo = int(vals.min())
    hi = max(0, int(vals.max()))
    if hi == 0:
        res = np.full(len(arr), MAX_NODE_SCORE, dtype=np.int64)
    else:
        num = MAX_NODE_SCORE * (hi + lo - arr)
        res = np.sign(num) * (np.abs(num) // hi)  # int64 division truncating toward zero
    if valid is None:
        result = res.tolist()
        return result
    out[valid] = res[valid]
    result = out.tolist()
    return result
