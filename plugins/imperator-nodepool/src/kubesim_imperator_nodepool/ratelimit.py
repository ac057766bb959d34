"""controller-runtime's default per-item rate limiter, in simulated time."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import timedelta

__all__ = ["RateLimiter"]

_BASE = timedelta(milliseconds=5)
_MAX = timedelta(seconds=1000)


class RateLimiter:
    """workqueue.DefaultControllerRateLimiter's item part: 5 ms * 2^failures, at most 1000 s.

    A reconcile that fails (or asks for a requeue) is retried after `when(key)`; a
    successful one calls `forget(key)`. Within one MajorStep simulated time stands still,
    so a retry lands in a later step. (The overall 10 qps token bucket is left out.)
    """

    def __init__(self) -> None:
        self._failures: dict[Hashable, int] = {}

    def when(self, key: Hashable) -> timedelta:
        """The delay before the next retry of `key`, counting this failure."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        return _MAX if failures >= 20 else min(_BASE * (2**failures), _MAX)

    def forget(self, key: Hashable) -> None:
        """Start counting failures of `key` from zero again."""
        self._failures.pop(key, None)

    def failures(self, key: Hashable) -> int:
        """How many times in a row `key` has failed."""
        return self._failures.get(key, 0)
