"""The scheduler plugin API: everything a plugin may import, and nothing of the runtime.

Like upstream's staging/src/k8s.io/kube-scheduler/framework, this module is small and
separate from the runtime that runs plugins. Its names are stable: they keep their meaning
and signatures across kubesim-scheduler releases (see docs/scheduler-plugin-api.md).

- Plugin base classes for every extension point; Filter and Score also in batch form
  (`filter_batch` / `score_batch` over node-table rows, read through `NodeColumns`).
- Status and Code, CycleState, NodeScore and the PreFilter/PostFilter result types.
- Read-only views: NodeInfo, PodInfo, Resource, WaitingPod (protocols the runtime's
  objects satisfy), NodeColumns and LabelColumnView for batch plugins.
- Handle: the part of a plugin's `handle` it may use.
"""

# upstream: staging/src/k8s.io/kube-scheduler/framework (interface.go, types.go,
# cycle_state.go)

from __future__ import annotations

from typing import TYPE_CHECKING

from .framework.cycle_state import CycleState, StateNotFound
from .framework.interface import (
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
from .framework.node_columns import LabelColumnView, NodeColumns
from .framework.node_info import ImageStateSummary
from .framework.status import Code, Status
from .framework.views import NodeInfoListView as NodeInfoList
from .framework.views import NodeInfoView as NodeInfo
from .framework.views import PluginHandle as Handle
from .framework.views import PodInfoView as PodInfo
from .framework.views import ResourceView as Resource
from .framework.views import WaitingPodView as WaitingPod

__all__ = [
    # extension points (per-node and batch)
    "Plugin",
    "PreEnqueuePlugin",
    "QueueSortPlugin",
    "EnqueueExtensions",
    "PreFilterPlugin",
    "PreFilterExtensions",
    "FilterPlugin",
    "BatchFilterPlugin",
    "PostFilterPlugin",
    "PreScorePlugin",
    "ScorePlugin",
    "BatchScorePlugin",
    "ReservePlugin",
    "PermitPlugin",
    "PreBindPlugin",
    "BindPlugin",
    "PostBindPlugin",
    # results
    "Code",
    "Status",
    "CycleState",
    "StateNotFound",
    "NodeScore",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "PreFilterResult",
    "BatchFilterResult",
    "PostFilterResult",
    "NominatingInfo",
    # read-only views
    "NodeInfo",
    "NodeInfoList",
    "PodInfo",
    "Resource",
    "ImageStateSummary",
    "WaitingPod",
    "NodeColumns",
    "LabelColumnView",
    "Handle",
]

if TYPE_CHECKING:
    from .framework.handle import Handle as _RuntimeHandle
    from .framework.node_info import NodeInfo as _RuntimeNodeInfo
    from .framework.node_info import NodeInfoList as _RuntimeNodeInfoList
    from .framework.pod_info import PodInfo as _RuntimePodInfo
    from .framework.waiting_pods import WaitingPod as _RuntimeWaitingPod

    def _runtime_objects_satisfy_the_views(
        h: _RuntimeHandle, n: _RuntimeNodeInfo, ns: _RuntimeNodeInfoList, p: _RuntimePodInfo, w: _RuntimeWaitingPod,
    ) -> tuple[Handle, NodeInfo, NodeInfoList, PodInfo, WaitingPod]:
        """Checked by mypy only: the runtime passes objects that implement these protocols."""
        return h, n, ns, p, w
