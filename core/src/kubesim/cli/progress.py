"""What `kubesim run` shows on stderr while scenarios run, also inside a long step.

On a terminal: a rich live line (spinner, step, pods bound / pending / unschedulable, a bar
of bound pods, events per second, an ETA, elapsed time), redrawn four times a
second. Elsewhere (a file, a pipe, CI): a `progress` log line every `log_interval`
seconds. `-q` shows neither. The figures come from the engine's live counts
(kubesim.scenario.progress); the wall clock only paces the display.
"""

from __future__ import annotations

import time
from collections import deque
from types import TracebackType
from typing import Literal

import attrs
import structlog
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Column

from kubesim.api import ScenarioPhase
from kubesim.scenario import ScenarioRun
from kubesim.scenario.progress import Throttle

__all__ = ["LIVE_INTERVAL", "RATE_WINDOW", "Mode", "ProgressLine", "RunProgress", "format_eta"]

LIVE_INTERVAL = 0.1
"""Seconds between the engine's calls to the display during a step."""
RATE_WINDOW = 3.0
"""Events per second and the ETA are measured over the last this many seconds."""

Mode = Literal["live", "log", "off"]
"""live: a rich line on a terminal; log: a log line every few seconds; off: nothing (-q)."""


@attrs.frozen
class ProgressLine:
    """The figures of one progress update."""

    scenario: str
    step: int
    last_step: int
    pods: int
    bound: int
    pending: int
    unschedulable: int
    events: int
    events_per_s: float | None
    eta_s: float | None
    """seconds until the pods not yet found unschedulable are tried, at the current attempt rate"""

    def text(self) -> str:
        """One line for a person."""
        parts = [f"{self.scenario}: step {self.step} of {self.last_step}",
                 f"{self.pods:,} pods: {self.bound:,} bound, {self.pending:,} pending "
                 f"({self.unschedulable:,} unschedulable)",
                 f"{self.events:,} events"]
        if self.events_per_s is not None:
            parts.append(f"{self.events_per_s:,.0f} events/s")
        if self.eta_s is not None:
            parts.append(f"ETA {format_eta(self.eta_s)}")
        return " · ".join(parts)


def format_eta(seconds: float) -> str:
    """`42s`, `3m05s` or `1h02m`."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class _Rates:
    """Events and attempts per second over the last RATE_WINDOW seconds of one scenario, and
    its last step (computed again only when its operations change: 10,000 of them take a while)."""

    def __init__(self) -> None:
        self.samples: deque[tuple[float, int, int]] = deque()
        self.run: ScenarioRun | None = None
        self._operations: object = None
        self._last_step = 0

    def last_step(self, run: ScenarioRun) -> int:
        operations = run.scenario.spec.operations
        if operations is not self._operations:
            self._operations = operations
            self._last_step = max((op.step for op in operations), default=0)
        return self._last_step

    def add(self, run: ScenarioRun, now: float, events: int, attempts: int) -> tuple[float | None, float | None]:
        if run is not self.run:
            self.run = run
            self.samples.clear()
        self.samples.append((now, events, attempts))
        while len(self.samples) > 2 and now - self.samples[1][0] >= RATE_WINDOW:
            self.samples.popleft()
        t0, e0, a0 = self.samples[0]
        if now - t0 < 0.2:
            return None, None
        return (events - e0) / (now - t0), (attempts - a0) / (now - t0)


def _progress_line(run: ScenarioRun, rates: _Rates, now: float) -> ProgressLine:
    """The figures of `run` now."""
    counts = run.counts.snapshot()
    events_per_s, attempts_per_s = rates.add(run, now, counts.events, counts.attempts)
    untried = counts.pending - counts.unschedulable
    eta = untried / attempts_per_s if attempts_per_s and untried > 0 else None
    last = rates.last_step(run)
    return ProgressLine(run.scenario.name, run.scenario.status.step_status.step.major, last, counts.pods,
                        counts.bound, counts.pending, counts.unschedulable, counts.events, events_per_s, eta)


class RunProgress:
    """The display for one `kubesim run`: `update` is the engine's per-step and live callback."""

    def __init__(self, console: Console, mode: Mode, *, log_interval: float = 5.0) -> None:
        self.mode = mode
        self._console = console
        self._log = structlog.get_logger()
        self._log_throttle = Throttle(log_interval, immediate=False)
        self._rates = _Rates()
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self.last_line: ProgressLine | None = None
        """What was shown last (None before the first update)."""

    def __enter__(self) -> RunProgress:
        if self.mode == "live":
            # the figures wrap onto a second line on a narrow terminal rather than being cut
            text = TextColumn("{task.description}", table_column=Column(ratio=1, no_wrap=False, overflow="fold"))
            self._progress = Progress(SpinnerColumn(), text, BarColumn(bar_width=15), TimeElapsedColumn(),
                                      console=self._console, transient=True, refresh_per_second=4)
            self._progress.__enter__()
            self._task = self._progress.add_task("starting", total=None)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.__exit__(kind, exc, tb)
            self._progress = None

    def update(self, run: ScenarioRun) -> None:
        """Show where `run` is (called after each step and, throttled, during steps)."""
        if self.mode == "off" or run.phase != ScenarioPhase.RUNNING:  # not while it is set up
            return
        line = self.last_line = _progress_line(run, self._rates, time.monotonic())
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=line.text(), total=max(line.pods, 1),
                                  completed=line.bound)
        elif self.mode == "log" and self._log_throttle.due():
            self._log.info("progress", scenario=line.scenario, step=f"{line.step} of {line.last_step}",
                           pods=line.pods, bound=line.bound, pending=line.pending,
                           unschedulable=line.unschedulable, events=line.events,
                           events_per_s=None if line.events_per_s is None else round(line.events_per_s),
                           eta=None if line.eta_s is None else format_eta(line.eta_s))
