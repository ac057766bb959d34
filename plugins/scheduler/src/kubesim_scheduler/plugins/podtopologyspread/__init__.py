"""PodTopologySpread: topology spread constraints with system defaults (kube-scheduler v1.34).

upstream: pkg/scheduler/framework/plugins/podtopologyspread/
"""

from .constraints import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    OwnerLookup,
    PodTopologySpreadArgs,
    SpreadConstraint,
    StaticOwners,
    default_selector,
    get_constraints,
)
from .filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PreFilterState,
    filter_node,
    filter_nodes,
    pre_filter,
)
from .plugin import PodTopologySpread
from .scoring import PreScoreState, normalize_scores, pre_score, score_node, score_nodes

NAME = "PodTopologySpread"
PLUGIN = PodTopologySpread

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "OwnerLookup",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "PreFilterState",
    "PreScoreState",
    "SpreadConstraint",
    "StaticOwners",
    "default_selector",
    "filter_node",
    "filter_nodes",
    "get_constraints",
    "normalize_scores",
    "pre_filter",
    "pre_score",
    "score_node",
    "score_nodes",
]
