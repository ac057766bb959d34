"""SchedulingGates: keep a pod out of the active queue while spec.schedulingGates is non-empty."""

# upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, POD, QueueingHint
from ..framework.interface import EnqueueExtensions, PreEnqueuePlugin
from ..framework.status import Code, Status

__all__ = ["SchedulingGates"]


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    name = "SchedulingGates"

    def pre_enqueue(self, pod: Mapping[str, Any]) -> Status | None:
        gates = (pod.get("spec") or {}).get("schedulingGates") or []
        if not gates:
            return None
        names = " ".join(g.get("name", "") for g in gates)
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"waiting for scheduling gates: [{names}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED), _gates_removed)]


def _gates_removed(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    same = ((new or {}).get("metadata") or {}).get("uid") == (pod.get("metadata") or {}).get("uid")
    return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP
