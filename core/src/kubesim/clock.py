"""The simulated clock: the only source of time inside a simulation.

Nothing in kubesim reads the wall clock; timestamps, graceful deletion and
time-based controllers all use this clock, which the scenario engine advances by a
fixed duration per MajorStep (and controllers may advance it further).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

__all__ = ["DEFAULT_EPOCH", "Clock", "format_time", "parse_time"]

DEFAULT_EPOCH = datetime(2025, 1, 1, tzinfo=timezone.utc)


def format_time(t: datetime) -> str:
    """Format a time as Kubernetes does (RFC 3339, second precision, UTC, 'Z')."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 time as written by `format_time` (or with an offset)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Clock:
    """A monotonic simulated clock starting at `start`."""

    def __init__(self, start: datetime = DEFAULT_EPOCH) -> None:
        if start.tzinfo is None:
            raise ValueError("the clock's start time must be timezone-aware")
        self._now = start

    def restart(self, start: datetime) -> None:
        """Start again at `start` (a served cluster reset for a new scenario)."""
        if start.tzinfo is None:
            raise ValueError("the clock's start time must be timezone-aware")
        self._now = start

    def now(self) -> datetime:
        """The current simulated time."""
        return self._now

    def timestamp(self) -> str:
        """The current simulated time as a Kubernetes timestamp string."""
        return format_time(self._now)

    def advance(self, by: timedelta) -> None:
        """Move time forward; going backwards is a programming error."""
        if by < timedelta(0):
            raise ValueError(f"cannot move the clock backwards by {by}")
        self._now += by

    def advance_to(self, t: datetime) -> None:
        """Move time forward to `t` (no-op when `t` is not later than now)."""
        if t > self._now:
            self._now = t
