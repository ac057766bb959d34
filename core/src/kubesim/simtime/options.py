"""How a scenario runs in simulated time: ticks past its operations, metrics, limits.

The command line (`kubesim run --until/--max-ticks/--metrics...`), a scenario's
`spec.simulatedTime` and a k8s-cluster-simulator config (`--kcs-config`) all become one
`SimTimeOptions`; what the command line gives explicitly wins over the scenario.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

import attrs

__all__ = ["DEFAULT_MAX_TICKS", "MetricsSink", "SimTimeOptions", "Until", "parse_until"]

DEFAULT_MAX_TICKS = 100_000
"""Ticks after which a run whose work never ends fails (--max-ticks)."""


@attrs.frozen
class MetricsSink:
    """Where metrics records go and in which format (json, table or human)."""

    dest: str
    """A file path (truncated at the start), or stdout / stderr."""
    format: str = "json"


@attrs.frozen
class Until:
    """Where a run in simulated time stops at the latest: a MajorStep, a time, or an offset from the start."""

    step: int | None = None
    time: datetime | None = None
    after: timedelta | None = None

    def deadline(self, start: datetime) -> datetime | None:
        """The time, if any, at which the run stops."""
        if self.time is not None:
            return self.time
        return start + self.after if self.after is not None else None


def parse_until(text: str) -> Until:
    """`--until`: a step number ("120"), an RFC 3339 time, or a duration after the start ("10h")."""
    from kubesim.cli.params import parse_duration
    from kubesim.clock import parse_time

    text = text.strip()
    if text.isdigit():
        return Until(step=int(text))
    if "T" in text and text[:4].isdigit():
        try:
            t = parse_time(text)
        except ValueError:
            raise ValueError(f"{text!r} is not an RFC 3339 time (expected e.g. 2025-01-01T10:00:00Z)") from None
        if t.tzinfo is None:
            raise ValueError(f"{text!r} has no time zone (add Z or an offset)")
        return Until(time=t)
    try:
        return Until(after=parse_duration(text))
    except ValueError as exc:
        raise ValueError(f"expected a step number (120), an RFC 3339 time or a duration after the start "
                         f"(10h): {exc}") from None


@attrs.frozen
class SimTimeOptions:
    """Simulated-time settings; None fields take the scenario's `spec.simulatedTime` or the default."""

    tick: timedelta | None = None
    """Simulated time per MajorStep (--step-duration when given explicitly)."""
    start: datetime | None = None
    """The clock at step 0 (--start-time when given explicitly)."""
    metrics_tick: timedelta | None = None
    """Metrics are written when more than this has passed since the last write (default: the tick)."""
    until: Until | None = None
    max_ticks: int | None = None
    metrics: tuple[MetricsSink, ...] = ()
    zone: tzinfo | None = None
    """The zone metrics times are written in (the start clock's offset; UTC when None)."""

    def merged(self, other: SimTimeOptions) -> SimTimeOptions:
        """These options with the fields left unset here taken from `other`."""
        return SimTimeOptions(
            tick=self.tick or other.tick, start=self.start or other.start,
            metrics_tick=self.metrics_tick or other.metrics_tick, until=self.until or other.until,
            max_ticks=self.max_ticks if self.max_ticks is not None else other.max_ticks,
            metrics=self.metrics or other.metrics, zone=self.zone or other.zone,
        )
