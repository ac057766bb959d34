"""DefaultPreemption: evict lower-priority pods so that a pending pod can be scheduled.

upstream: pkg/scheduler/framework/plugins/defaultpreemption/, pkg/scheduler/framework/preemption/
"""

from .args import DefaultPreemptionArgs
from .candidate import Candidate, Victims, default_score_funcs, pick_one_node_for_preemption
from .evaluator import Evaluator, PreemptionInterface, aggregate_errors
from .pdb import PDB, filter_pods_with_pdb_violation, parse_pdbs
from .plugin import NAME, DefaultPreemption, IsEligiblePodFunc, MoreImportantPodFunc
from .podutil import (
    disruption_target_condition,
    earliest_pod_start_time,
    more_important_pod,
    parse_time_ns,
    pod_priority,
    pod_start_time,
    pod_terminating_by_preemption,
)

PLUGIN = DefaultPreemption

__all__ = [
    "NAME",
    "PDB",
    "PLUGIN",
    "Candidate",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "Evaluator",
    "IsEligiblePodFunc",
    "MoreImportantPodFunc",
    "PreemptionInterface",
    "Victims",
    "aggregate_errors",
    "default_score_funcs",
    "disruption_target_condition",
    "earliest_pod_start_time",
    "filter_pods_with_pdb_violation",
    "more_important_pod",
    "parse_pdbs",
    "parse_time_ns",
    "pick_one_node_for_preemption",
    "pod_priority",
    "pod_start_time",
    "pod_terminating_by_preemption",
]
