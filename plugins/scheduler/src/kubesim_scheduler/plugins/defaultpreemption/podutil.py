"""Pod helpers preemption needs: priority, start time, importance order, termination."""

# upstream: pkg/scheduler/util/utils.go (GetPodStartTime, GetEarliestPodStartTime,
# MoreImportantPod), component-helpers/scheduling/corev1 (PodPriority),
# plugins/defaultpreemption/default_preemption.go (podTerminatingByPreemption),
# framework/preemption/preemption.go (the DisruptionTarget condition of PreemptPod)

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

__all__ = [
    "DISRUPTION_TARGET",
    "Now",
    "TickingClock",
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


#: "now" for pods that have not started: a fixed time, or a clock read once per such pod
Now = Union[int, Callable[[], int]]


class TickingClock:
    """time.Now() as GetPodStartTime sees it: every read is later than the one before.

    Upstream reads the wall clock for each pod without status.startTime, so of two such
    pods the one read first counts as started earlier, and MoreImportantPod(a, b) is true
    both ways round. Here each read is the simulated time in nanoseconds, or one
    nanosecond after the previous read, whichever is later, so the same calls give the same
    answers as upstream's (in order of the calls) without any real clock. Reads are also
    strictly after the simulated now, as upstream's clock is after the (whole-second)
    start times written at that instant.
    """

    __slots__ = ("_base", "_last")

    def __init__(self, base: Callable[[], int]) -> None:
        self._base = base
        self._last: int | None = None

    def __call__(self) -> int:
        t = self._base()
        if self._last is not None and t < self._last:
            t = self._last
        t += 1  # strictly after the previous read and after anything stamped "now"
        self._last = t
        return t


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


def pod_start_time(pod: Mapping[str, Any], now_ns: Now) -> int:
    """GetPodStartTime: status.startTime, or now for pods that have not started.

    `now_ns` is a time in nanoseconds or a clock (e.g. TickingClock), read only for a
    pod without a start time, once per call as upstream's time.Now().
    """
    st = (pod.get("status") or {}).get("startTime")
    if st:
        t = parse_time_ns(str(st))
        if t is not None:
            return t
    return now_ns() if callable(now_ns) else now_ns


def more_important_pod(pod1: Mapping[str, Any], pod2: Mapping[str, Any], now_ns: Now = 0) -> bool:
    """MoreImportantPod: higher priority first, then the one that started earlier.

    pod1's start time is read before pod2's, so with a TickingClock two pods that have
    not started each count as more important than the other, as upstream.
    """
    p1, p2 = pod_priority(pod1), pod_priority(pod2)
    if p1 != p2:
        return p1 > p2
    t1 = pod_start_time(pod1, now_ns)
    return t1 < pod_start_time(pod2, now_ns)


def earliest_pod_start_time(pods: Sequence[Mapping[str, Any]], now_ns: Now = 0) -> int | None:
    """GetEarliestPodStartTime: the earliest start among the highest-priority pods.

    Start times are read in upstream's order (the first pod's twice), which matters with
    a TickingClock."""
    if not pods:
        return None
    earliest = pod_start_time(pods[0], now_ns)
    max_priority = pod_priority(pods[0])
    for p in pods:
        prio = pod_priority(p)
        if prio == max_priority:
            t = pod_start_time(p, now_ns)
            if t < earliest:
                earliest = t
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
