"""The work queue: FIFO, de-duplication, delays in simulated time."""

from __future__ import annotations

from datetime import timedelta

from kubesim.clock import Clock
from kubesim.controllers import WorkQueue


def test_fifo_and_deduplicated() -> None:
    q: WorkQueue[str] = WorkQueue(Clock().now)
    for k in ["a", "b", "a", "c"]:
        q.add(k)
    assert [q.pop(), q.pop(), q.pop(), q.pop()] == ["a", "b", "c", None]


def test_delayed_keys_wait_for_simulated_time() -> None:
    clock = Clock()
    q: WorkQueue[str] = WorkQueue(clock.now)
    q.add_after("late", clock.now() + timedelta(seconds=30))
    q.add_after("now", clock.now())
    assert q.pop() == "now"
    assert q.pop() is None
    assert len(q) == 1 and q.next_delayed() == clock.now() + timedelta(seconds=30)
    clock.advance(timedelta(seconds=30))
    assert q.ready() == 1 and q.pop() == "late"
