"""PrioritySort, ported from upstream's priority_sort_test.go table."""

# upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort_test.go

from __future__ import annotations

import pytest
from scheduler_harness import make_pod

from kubesim_scheduler.framework import PodInfo, QueuedPodInfo
from kubesim_scheduler.plugins.queuesort import PrioritySort

LOW, HIGH = 10, 100
T1, T2 = 0.0, 1.0


def qpi(priority: int, ts: float = 0.0) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(make_pod(priority=priority)), timestamp=ts)


CASES = [
    ("p1.priority less than p2.priority", qpi(LOW), qpi(HIGH), False),
    ("p1.priority greater than p2.priority", qpi(HIGH), qpi(LOW), True),
    ("equal priority. p1 is added to schedulingQ earlier than p2", qpi(HIGH, T1), qpi(HIGH, T2), True),
    ("equal priority. p2 is added to schedulingQ earlier than p1", qpi(HIGH, T2), qpi(HIGH, T1), False),
]


@pytest.mark.parametrize("name,p1,p2,expected", CASES, ids=[c[0] for c in CASES])
def test_less(name, p1, p2, expected):  # type: ignore[no-untyped-def]
    assert PrioritySort(None, None).less(p1, p2) is expected  # type: ignore[arg-type]
