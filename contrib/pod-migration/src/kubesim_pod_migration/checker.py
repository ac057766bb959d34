"""Migration downtime and the checkers that serialise migrations and back off between them.

Port of k8s-migration-controller's `pkg/monitoring/checker.go` (branch v1): every migration
starts when the previous one finished (`finish = max(latestFinish, now) + duration`); the
blocking checker asks the controller again only `backoff` after the last finish, the
concurrent one on every tick. The duration is `ceil(slope x GB)` seconds.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Protocol

__all__ = [
    "CODE_SLOPE",
    "DEFAULT_BACKOFF",
    "README_SLOPE",
    "BlockingChecker",
    "Checker",
    "ConcurrentChecker",
    "make_checker",
    "migration_seconds",
]

CODE_SLOPE = 3.3506
"""Seconds of downtime per GB in the fork's code (`GetMigrationTime`), about 0.3 GB/s."""
README_SLOPE = 1 / 1.5
"""Seconds per GB for the fork README's "throughput rate of about 1.5 GB/s"."""
DEFAULT_BACKOFF = timedelta(seconds=45)
"""The blocking checker's BackoffInterval in the controller's branch v1 (30 s on its HEAD)."""


def migration_seconds(gb: float, slope: float = CODE_SLOPE) -> int:
    """Downtime of migrating `gb` gigabytes: ceil(slope x gb) seconds."""
    return math.ceil(slope * gb)


class Checker(Protocol):
    """When the controller may be asked for migrations, and when each migration finishes."""

    def start(self, now: datetime, gb: float, pod: str) -> datetime:
        """Register a migration of `gb` GB started at `now`; return its finish time."""
        ...

    def finish_time(self, pod: str) -> datetime | None:
        """The finish time of `pod`'s latest migration (None: never migrated)."""
        ...

    def is_ready(self, now: datetime) -> bool:
        """True when the controller may be asked for migrations at `now`."""
        ...

    def migrating(self, now: datetime) -> list[str]:
        """Pods whose migration has not finished at `now`, sorted."""
        ...


class ConcurrentChecker:
    """Always ready; migrations still run one after another (the fork's concurrentMigrationChecker)."""

    def __init__(self, slope: float = CODE_SLOPE) -> None:
        self.slope = slope
        self.latest_finish: datetime | None = None
        self._finish: dict[str, datetime] = {}

    def start(self, now: datetime, gb: float, pod: str) -> datetime:
        begin = now if self.latest_finish is None or self.latest_finish < now else self.latest_finish
        finish = begin + timedelta(seconds=migration_seconds(gb, self.slope))
        self.latest_finish = finish
        self._finish[pod] = finish
        return finish

    def finish_time(self, pod: str) -> datetime | None:
        return self._finish.get(pod)

    def is_ready(self, now: datetime) -> bool:
        return True

    def migrating(self, now: datetime) -> list[str]:
        return sorted(pod for pod, finish in self._finish.items() if finish > now)


class BlockingChecker(ConcurrentChecker):
    """Ready when nothing migrated yet or `backoff` after the latest finish (blockingMigrationChecker)."""

    def __init__(self, slope: float = CODE_SLOPE, backoff: timedelta = DEFAULT_BACKOFF) -> None:
        super().__init__(slope)
        self.backoff = backoff

    def is_ready(self, now: datetime) -> bool:
        return self.latest_finish is None or self.latest_finish + self.backoff <= now


def make_checker(kind: str, slope: float = CODE_SLOPE, backoff: timedelta = DEFAULT_BACKOFF) -> Checker:
    """"blocking" or "concurrent" (anything else is a ValueError naming the choices)."""
    if kind == "blocking":
        return BlockingChecker(slope, backoff)
    if kind == "concurrent":
        return ConcurrentChecker(slope)
    raise ValueError(f"unknown checker {kind!r} (expected blocking or concurrent)")
