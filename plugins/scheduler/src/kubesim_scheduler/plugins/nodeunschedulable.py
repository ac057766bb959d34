"""NodeUnschedulable: reject nodes with spec.unschedulable unless the pod tolerates that taint."""

# upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE, POD, QueueingHint
from ..framework.interface import BatchFilterPlugin, BatchFilterResult, EnqueueExtensions
from ..framework.pod_info import PodInfo
from ..framework.status import Code
from ..taints import TAINT_NODE_UNSCHEDULABLE, toleration_of, tolerations_tolerate_taint

__all__ = ["NodeUnschedulable", "ERR_REASON_UNSCHEDULABLE"]

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
_TAINT = (TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule")


class NodeUnschedulable(BatchFilterPlugin, EnqueueExtensions):
    name = "NodeUnschedulable"

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        unsched = self.handle.node_table.unschedulable[rows]
        if not unsched.any() or tolerations_tolerate_taint(pod_info.tolerations, _TAINT):
            return BatchFilterResult.passing(len(rows))
        return BatchFilterResult.from_mask(unsched, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), _after_node_change),
            ClusterEventWithHint(ClusterEvent(POD, ActionType.UPDATE_POD_TOLERATION), _after_toleration_change),
        ]


def _after_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    new_u = bool(((new or {}).get("spec") or {}).get("unschedulable"))
    if old is not None and bool((old.get("spec") or {}).get("unschedulable")) and not new_u:
        return QueueingHint.QUEUE
    if old is None and not new_u:
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _after_toleration_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    if ((new or {}).get("metadata") or {}).get("uid") != (pod.get("metadata") or {}).get("uid"):
        return QueueingHint.QUEUE_SKIP
    tols = [toleration_of(t) for t in ((new.get("spec") or {}).get("tolerations") or ())]
    return QueueingHint.QUEUE if tolerations_tolerate_taint(tols, _TAINT) else QueueingHint.QUEUE_SKIP
