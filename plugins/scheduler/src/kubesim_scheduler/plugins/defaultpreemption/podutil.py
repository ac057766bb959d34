"""Pod helpers preemption needs: priority, start time, importance order, termination."""

# upstream: pkg/scheduler/util/utils.go (GetPodStartTime, GetEarliestPodStartTime,
# MoreImportantPod), component-helpers/scheduling/corev1 (PodPriority),
# plugins/defaultpreemption/default_preemption.go (podTerminatingByPreemption),
# framework/preemption/preemption.go (the DisruptionTarget condition of PreemptPod)

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "DISRUPTION_TARGET",
    "REASON_PREEMPTION_BY_SCHEDULER",
    "disruption_target_condition",
    "earliest_pod_start_time",
    "more_important_pod",
    "parse_time_ns",
    "pod_priority",
    "pod_start_time",
    "pod_terminating_by_preemption",
]

DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def pod_priority(pod: Mapping[str, Any]) -> int:
    """spec.priority, 0 when unset."""
    return int((pod.get("spec") or {}).get("priority") or 0)


def parse_time_ns(text: str) -> int | None:
    """An RFC 3339 timestamp as integer nanoseconds since the epoch (None if malformed)."""
    m = _RFC3339.match(text)
    if m is None:
        return None
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    if m.group(9):
        off = int(m.group(10)) * 3600 + int(m.group(11)) * 60
        secs -= off if m.group(9) == "+" else -off
    frac = (m.group(7) or "")[:9].ljust(9, "0")
    return secs * 1_000_000_000 + int(frac)


def pod_start_time(pod: Mapping[str, Any], now_ns: int) -> int:
    """GetPodStartTime: status.startTime, or now for pods that have not started."""
    st = (pod.get("status") or {}).get("startTime")
    if st:
        t = parse_time_ns(str(st))
        if t is not None:
            return t
    return now_ns


def more_important_pod(pod1: Mapping[str, Any], pod2: Mapping[str, Any], now_ns: int = 0) -> bool:
    """MoreImportantPod: higher priority first, then the one that started earlier."""
    p1, p2 = pod_priority(pod1), pod_priority(pod2)
    if p1 != p2:
        return p1 > p2
    return pod_start_time(pod1, now_ns) < pod_start_time(pod2, now_ns)


def earliest_pod_start_time(pods: Sequence[Mapping[str, Any]], now_ns: int = 0) -> int | None:
    """GetEarliestPodStartTime: the earliest start among the highest-priority pods."""
    if not pods:
        return None
    earliest = pod_start_time(pods[0], now_ns)
    max_priority = pod_priority(pods[0])
    for p in pods:
        prio = pod_priority(p)
        if prio == max_priority:
            t = pod_start_time(p, now_ns)
            earliest = min(earliest, t)
        elif prio > max_priority:
            max_priority = prio
            earliest = pod_start_time(p, now_ns)
    return earliest


def pod_terminating_by_preemption(pod: Mapping[str, Any]) -> bool:
    """Being deleted, and its first DisruptionTarget condition says the scheduler preempted it."""
    if not (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == DISRUPTION_TARGET:
            return bool(c.get("status") == "True" and c.get("reason") == REASON_PREEMPTION_BY_SCHEDULER)
    return False


def disruption_target_condition(preemptor: Mapping[str, Any]) -> dict[str, str]:
    """The condition PreemptPod adds to a victim before deleting it."""
    scheduler = (preemptor.get("spec") or {}).get("schedulerName") or "default-scheduler"
    return {
        "type": DISRUPTION_TARGET,
        "status": "True",
        "reason": REASON_PREEMPTION_BY_SCHEDULER,
        "message": f"{scheduler}: preempting to accommodate a higher priority pod",
    }
