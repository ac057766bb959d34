"""The scheduling framework: statuses, cycle state, pod/node info, node table, plugin interfaces, runtime."""

from .cycle_state import CycleState, StateNotFound
from .diagnosis import Diagnosis, FitError, NodeToStatus, NoNodesAvailable
from .events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    match_cluster_events,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from .handle import Binder, FrameworkHandle, Handle, ObjectLister
from .interface import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    BatchFilterPlugin,
    BatchFilterResult,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    NominatingInfo,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)
from .node_info import HostPortInfo, ImageStateSummary, NodeInfo, NodeInfoList
from .node_table import NodeTable, NodeTableListener
from .nominator import Nominator, nominated_node_name
from .normalize import default_normalize, default_normalize_scores, go_div, go_div_int
from .pod_info import AffinityTerm, PodInfo, WeightedAffinityTerm, normalized_image_name, pod_key
from .profile_config import DEFAULT_MULTI_POINT, DEFAULT_SCHEDULER_NAME, EXTENSION_POINTS, ProfileConfig
from .queued_pod_info import QueuedPodInfo
from .runtime import FilterOutcome, Framework, FrameworkError, ScoreOutcome
from .status import Code, Status
from .waiting_pods import MAX_PERMIT_TIMEOUT, WaitingPod, WaitingPodsMap
from .whatif import RowOverlay

__all__ = [
    "MAX_NODE_SCORE", "MAX_PERMIT_TIMEOUT", "MIN_NODE_SCORE", "ActionType", "AffinityTerm", "BatchFilterPlugin",
    "BatchFilterResult", "BatchScorePlugin", "BindPlugin", "Binder", "ClusterEvent",
    "ClusterEventWithHint", "Code", "CycleState", "DEFAULT_MULTI_POINT", "DEFAULT_SCHEDULER_NAME",
    "Diagnosis", "EXTENSION_POINTS", "EnqueueExtensions", "FilterOutcome", "FilterPlugin",
    "FitError", "Framework", "FrameworkError", "FrameworkHandle", "Handle", "HostPortInfo", "ImageStateSummary",
    "NoNodesAvailable", "NodeInfo", "NodeInfoList", "NodeScore", "NodeTable", "NodeTableListener", "NodeToStatus",
    "NominatingInfo", "Nominator", "ObjectLister", "PermitPlugin", "Plugin", "PodInfo", "PostBindPlugin",
    "PostFilterPlugin", "PostFilterResult", "PreBindPlugin", "PreEnqueuePlugin",
    "PreFilterExtensions", "PreFilterPlugin", "PreFilterResult", "PreScorePlugin",
    "ProfileConfig", "QueueSortPlugin", "QueuedPodInfo", "QueueingHint", "ReservePlugin", "RowOverlay",
    "ScoreOutcome", "ScorePlugin", "StateNotFound", "Status", "WaitingPod", "WaitingPodsMap", "WeightedAffinityTerm",
    "default_normalize", "default_normalize_scores", "go_div", "go_div_int",
    "match_cluster_events", "node_scheduling_properties_change", "nominated_node_name", "normalized_image_name",
    "pod_key", "pod_scheduling_properties_change",
]
