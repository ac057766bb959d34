"""InterPodAffinity: required/preferred pod affinity and anti-affinity (kube-scheduler v1.34).

upstream: pkg/scheduler/framework/plugins/interpodaffinity/
"""

from .args import InterPodAffinityArgs
from .filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PreFilterState,
    filter_node,
    filter_nodes,
    pre_filter,
)
from .plugin import InterPodAffinity
from .podindex import ClusterIndex
from .result import Outcome
from .scoring import PreScoreState, normalize_scores, pre_score, score_node, score_nodes
from .terms import AffinityTerm, PodAffinityInfo, pod_affinity_info

NAME = "InterPodAffinity"
PLUGIN = InterPodAffinity

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "AffinityTerm",
    "ClusterIndex",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "Outcome",
    "PodAffinityInfo",
    "PreFilterState",
    "PreScoreState",
    "filter_node",
    "filter_nodes",
    "normalize_scores",
    "pod_affinity_info",
    "pre_filter",
    "pre_score",
    "score_node",
    "score_nodes",
]
