"""Progress of a sweep on stderr: a rich bar (done, failed, ETA) on a terminal, otherwise a
log line every few seconds, so CI logs and `nohup` runs show where a long sweep is."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn,
)

__all__ = ["LOG_INTERVAL_SECONDS", "SweepProgress"]

LOG_INTERVAL_SECONDS = 5.0


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class SweepProgress:
    """Counts cells done and failed; draws a bar or logs lines. `enabled=False` prints nothing."""

    def __init__(self, total: int, *, skipped: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, interval: float = LOG_INTERVAL_SECONDS) -> None:
        self.total = total
        self.done = skipped
        self.failed = 0
        self.skipped = skipped
        self.enabled = enabled
        self._console = Console(stderr=stream is None, file=stream)
        self._interval = interval
        self._start = time.monotonic()
        self._last_log = self._start
        self._logged: tuple[int, int] | None = None
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> SweepProgress:
        if self.enabled and self._console.is_terminal:
            self._bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=self._console, transient=False)
            self._bar.__enter__()
            self._task = self._bar.add_task("sweep", total=self.total, completed=self.done, failed=0)
        elif self.enabled:
            self._log(force=True)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(exc_type, exc, tb)
        elif self.enabled:
            self._log(force=True)

    def advance(self, failed: bool) -> None:
        """One more cell finished."""
        self.done += 1
        self.failed += int(failed)
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=self.done, failed=self.failed)
        elif self.enabled:
            self._log()

    def eta_seconds(self) -> float | None:
        """Seconds left at the pace of the cells run so far (None before the first)."""
        ran = self.done - self.skipped
        if ran <= 0:
            return None
        return (time.monotonic() - self._start) / ran * (self.total - self.done)

    def _log(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_log < self._interval and self.done < self.total:
            return
        if self._logged == (self.done, self.failed) and self.done:
            return  # the last line said it already
        self._last_log, self._logged = now, (self.done, self.failed)
        eta = self.eta_seconds()
        self._console.print(
            f"sweep: {self.done}/{self.total} cells done, {self.failed} failed, "
            f"elapsed {_duration(now - self._start)}" + (f", ETA {_duration(eta)}" if eta is not None else ""),
            highlight=False, soft_wrap=True)
