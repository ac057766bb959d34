"""kubesim-scheduler: a port of kube-scheduler v1.34's framework for kubesim.

`Scheduler` takes nodes and pods as plain dicts and runs scheduling attempts; the
framework package holds the plugin interfaces that custom plugins implement.
"""

from .attempt import PASSED, ScheduleAttempt
from .framework import (
    BatchFilterPlugin,
    BatchFilterResult,
    BatchScorePlugin,
    BindPlugin,
    Code,
    CycleState,
    FilterPlugin,
    FitError,
    Framework,
    Handle,
    NodeInfo,
    NodeTable,
    PermitPlugin,
    Plugin,
    PodInfo,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ProfileConfig,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from .plugins import in_tree_registry
from .scheduler import Scheduler, default_profile, num_feasible_nodes_to_find
from .scheduling_queue import SchedulingQueue

__all__ = [
    "PASSED", "BatchFilterPlugin", "BatchFilterResult", "BatchScorePlugin", "BindPlugin", "Code",
    "CycleState", "FilterPlugin", "FitError", "Framework", "Handle", "NodeInfo", "NodeTable",
    "PermitPlugin", "Plugin", "PodInfo", "PostBindPlugin", "PostFilterPlugin", "PreBindPlugin",
    "PreEnqueuePlugin", "PreFilterPlugin", "PreFilterResult", "PreScorePlugin", "ProfileConfig",
    "QueueSortPlugin", "ReservePlugin", "ScheduleAttempt", "Scheduler", "SchedulingQueue",
    "ScorePlugin", "Status", "default_profile", "in_tree_registry", "num_feasible_nodes_to_find",
]
