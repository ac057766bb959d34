"""NodeName: a pod with spec.nodeName set only fits that node."""

# upstream: pkg/scheduler/framework/plugins/nodename/node_name.go

from __future__ import annotations

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE
from ..framework.interface import BatchFilterPlugin, BatchFilterResult, EnqueueExtensions
from ..framework.pod_info import PodInfo
from ..framework.status import Code

__all__ = ["NodeName", "ERR_REASON"]

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(BatchFilterPlugin, EnqueueExtensions):
    name = "NodeName"

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        want = pod_info.node_name
        if not want:
            return BatchFilterResult.passing(len(rows))
        fail = self.handle.node_table.names[rows] != want
        return BatchFilterResult.from_mask(fail, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD))]
