"""PrioritySort: the active queue ordered by pod priority, then by queue timestamp."""

# upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go

from __future__ import annotations

from ..framework.interface import QueueSortPlugin
from ..framework.queued_pod_info import QueuedPodInfo

__all__ = ["PrioritySort"]


class PrioritySort(QueueSortPlugin):
    name = "PrioritySort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod_info.priority, b.pod_info.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
