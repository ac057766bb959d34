"""What happens to a pod whose scheduling or binding cycle failed: back to the queue.

Follows handleSchedulingFailure in kubernetes pkg/scheduler/schedule_one.go: record the
plugins that rejected the pod, requeue it (unless it is gone or bound meanwhile), then
update the nominator and the pod's status.nominatedNodeName.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .framework.diagnosis import Diagnosis, FitError
from .framework.handle import Handle
from .framework.interface import NominatingInfo
from .framework.nominator import nominated_node_name
from .framework.pod_info import PodInfo
from .framework.queued_pod_info import QueuedPodInfo
from .framework.status import Status
from .scheduling_queue import SchedulingQueue

__all__ = ["FailureHandler", "failure_nominating_info"]


def failure_nominating_info() -> NominatingInfo:
    """newFailureNominatingInfo: clear the nomination (NominatedNodeNameForExpectation off)."""
    return NominatingInfo("", NominatingInfo.MODE_OVERRIDE)


class FailureHandler:
    """handleSchedulingFailure over the scheduler's queue, its pods and its handle."""

    def __init__(self, queue: SchedulingQueue, pods: Mapping[str, Mapping[str, Any]], handle: Handle) -> None:
        self._queue = queue
        self._pods = pods
        self._handle = handle

    def handle_scheduling_failure(
        self, qpi: QueuedPodInfo, status: Status, diagnosis: Diagnosis, nominating: NominatingInfo | None = None
    ) -> None:
        """Record rejecting plugins, requeue the pod, then update the nominator and the
        pod's status.nominatedNodeName from `nominating`."""
        if isinstance(status.error, FitError):
            qpi.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(diagnosis.pending_plugins)
        current = self._pods.get(qpi.key)
        if current is None or (current.get("spec") or {}).get("nodeName"):
            self._queue.done(qpi.key)
        else:
            if current is not qpi.pod_info.pod:
                qpi.pod_info = PodInfo(current)
            self._queue.add_unschedulable_if_not_present(qpi)
        self._queue.nominator.add(qpi.pod_info, nominating)
        if (
            nominating is not None and nominating.mode == NominatingInfo.MODE_OVERRIDE
            and current is not None and not (current.get("spec") or {}).get("nodeName")
            and nominated_node_name(current) != nominating.node_name
        ):
            self._handle.patch_nominated_node(current, nominating.node_name)
