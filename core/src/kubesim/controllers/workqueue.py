"""A deterministic work queue: FIFO, de-duplicated, with items delayed in simulated time."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Generic, TypeVar

__all__ = ["WorkQueue"]

K = TypeVar("K", bound=Hashable)


class WorkQueue(Generic[K]):
    """Keys waiting to be reconciled, like client-go's workqueue but single-threaded.

    A key added while already queued is not queued twice; `add_after` holds a key
    until the simulated clock (`now`) reaches the given time.
    """

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self._queue: dict[K, None] = {}
        self._delayed: list[tuple[datetime, int, K]] = []
        self._seq = 0

    def add(self, key: K) -> None:
        """Queue `key` now (no-op when already queued)."""
        self._queue.setdefault(key, None)

    def add_after(self, key: K, when: datetime) -> None:
        """Queue `key` once the simulated time reaches `when`."""
        if when <= self._now():
            self.add(key)
            return
        self._seq += 1
        heapq.heappush(self._delayed, (when, self._seq, key))

    def _promote(self) -> None:
        now = self._now()
        while self._delayed and self._delayed[0][0] <= now:
            self.add(heapq.heappop(self._delayed)[2])

    def pop(self) -> K | None:
        """The next ready key, or None when nothing is ready."""
        self._promote()
        if not self._queue:
            return None
        key = next(iter(self._queue))
        del self._queue[key]
        return key

    def has_ready(self) -> bool:
        """Whether `pop` would return a key now (cheaper than `ready()` when keys are queued)."""
        if self._queue:
            return True
        if not self._delayed or self._delayed[0][0] > self._now():
            return False
        self._promote()
        return True

    def ready(self) -> int:
        """How many keys are ready now."""
        self._promote()
        return len(self._queue)

    def next_delayed(self) -> datetime | None:
        """When the earliest delayed key becomes ready (None when there is none)."""
        return self._delayed[0][0] if self._delayed else None

    def __len__(self) -> int:
        return len(self._queue) + len(self._delayed)
