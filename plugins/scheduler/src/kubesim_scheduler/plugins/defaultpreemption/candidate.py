"""Preemption candidates and the choice of the node to preempt on."""

# upstream: framework/preemption/preemption.go (Candidate, pickOneNodeForPreemption),
# kube-scheduler/extender/v1 (Victims)

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...framework.pod_info import PodInfo
from .podutil import Now, earliest_pod_start_time

__all__ = ["Candidate", "Victims", "default_score_funcs", "pick_one_node_for_preemption"]

MAX_INT32 = 2**31 - 1
MIN_INT64 = -(2**63)

ScoreFunc = Callable[[str], int]


@dataclass
class Victims:
    """Pods to evict on a node (most important first) and how many violate a PDB."""

    pods: list[PodInfo] = field(default_factory=list)
    num_pdb_violations: int = 0

    def pod_objects(self) -> list[Mapping[str, Any]]:
        return [p.pod for p in self.pods]


@dataclass
class Candidate:
    """A node the preemptor can be nominated to, with the victims to evict there."""

    name: str
    victims: Victims


def default_score_funcs(victims: Mapping[str, Victims], now_ns: Now = 0) -> list[ScoreFunc]:
    """The default tie-break order: fewest PDB violations, lowest highest priority, lowest
    sum of (shifted) priorities, fewest victims, latest start of the highest-priority victims."""

    def min_pdb_violations(node: str) -> int:
        return -victims[node].num_pdb_violations

    def min_highest_priority(node: str) -> int:
        return -victims[node].pods[0].priority

    def min_sum_priorities(node: str) -> int:
        # shifted by MaxInt32+1 so that fewer pods with negative priority win
        return -sum(p.priority + MAX_INT32 + 1 for p in victims[node].pods)

    def min_num_pods(node: str) -> int:
        return -len(victims[node].pods)

    def latest_start_time(node: str) -> int:
        t = earliest_pod_start_time(victims[node].pod_objects(), now_ns)
        return MIN_INT64 if t is None else t

    return [min_pdb_violations, min_highest_priority, min_sum_priorities, min_num_pods, latest_start_time]


def pick_one_node_for_preemption(
    victims: Mapping[str, Victims], score_funcs: Sequence[ScoreFunc] | None = None, now_ns: Now = 0
) -> str:
    """pickOneNodeForPreemption: apply the score functions in order until one node is left.

    Nodes are considered in the mapping's order (upstream iterates a Go map, so its final
    "first node" is arbitrary; here it is the first candidate found).
    """
    if not victims:
        return ""
    candidates = list(victims)
    funcs = list(score_funcs) if score_funcs else default_score_funcs(victims, now_ns)
    for f in funcs:
        best = MIN_INT64
        selected: list[str] = []
        for node in candidates:
            score = f(node)
            if score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        candidates = selected
    return candidates[0]
