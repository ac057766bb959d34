"""Live counts of a running scenario, for a progress display during a long step.

The engine feeds `PodCounts` every committed write (its cluster watch) and every
timeline event (the recorder's listener): a few dict operations each. A display reads
the counts when a `Throttle` says it is time, by the wall clock of the process: the
clock decides only when the display is refreshed, never what the simulation does, so
results stay byte-identical with or without a display.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from kubesim.api import ScenarioTimelineEvent
    from kubesim.cluster import WatchEvent

__all__ = ["LiveCounts", "PodCounts", "Throttle"]


@attrs.frozen
class LiveCounts:
    """A snapshot of the counts (see PodCounts)."""

    pods: int
    """pods in the cluster (not deleted)"""
    bound: int
    """of those, bound to a node"""
    unschedulable: int
    """pending pods whose last scheduling attempt failed"""
    attempts: int
    """scheduling attempts recorded (podScheduled and podUnscheduled events)"""
    events: int
    """timeline events recorded"""

    @property
    def pending(self) -> int:
        """Pods not bound to a node."""
        return self.pods - self.bound


def _key(obj: dict[str, object]) -> tuple[str, str]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return ("", "")
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


class PodCounts:
    """Pods bound, pending and unschedulable, attempts and events, kept up to date as they happen."""

    def __init__(self) -> None:
        # namespace -> name -> bound: no key tuple per pod (a run of 10^5 pods holds each name once)
        self._bound: dict[str, dict[str, bool]] = {}
        self._pods = 0
        self._unschedulable: set[tuple[str, str]] = set()
        self._bound_count = 0
        self._attempts = 0
        self._events = 0

    def on_write(self, event: WatchEvent) -> None:
        """A cluster watch event: pods added, bound and deleted."""
        obj = event.object
        if obj.get("kind") != "Pod" or obj.get("apiVersion") != "v1":
            return
        key = _key(obj)
        names = self._bound.get(key[0])
        if names is None:
            names = self._bound[key[0]] = {}
        was = names.get(key[1])
        if event.type == "DELETED":
            if was is not None:
                del names[key[1]]
                self._pods -= 1
                self._bound_count -= was
            self._unschedulable.discard(key)
            return
        spec = obj.get("spec")
        now = bool(spec.get("nodeName")) if isinstance(spec, dict) else False
        names[key[1]] = now
        self._pods += was is None
        self._bound_count += now - (was or False)
        if now:
            self._unschedulable.discard(key)

    def _is_bound(self, key: tuple[str, str]) -> bool | None:
        names = self._bound.get(key[0])
        return None if names is None else names.get(key[1])

    def on_record(self, event: ScenarioTimelineEvent) -> None:
        """A timeline event: scheduling attempts and their outcome."""
        self._events += 1
        if event.pod_unscheduled is not None:
            self._attempts += 1
            key = _key(event.pod_unscheduled.pod)
            if self._is_bound(key) is False:
                self._unschedulable.add(key)
        elif event.pod_scheduled is not None:
            self._attempts += 1
            self._unschedulable.discard(_key(event.pod_scheduled.pod))

    def snapshot(self) -> LiveCounts:
        """The counts now."""
        return LiveCounts(self._pods, self._bound_count, len(self._unschedulable), self._attempts,
                          self._events)


class Throttle:
    """True from `due()` at most once per `interval` seconds of the process's clock; the first call
    is due when `immediate`, else the first after `interval`."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic, *,
                 immediate: bool = True) -> None:
        self.interval = interval
        self._clock = clock
        self._next = float("-inf") if immediate else clock() + interval

    def due(self) -> bool:
        """Whether `interval` has passed since the last time this returned True."""
        now = self._clock()
        if now < self._next:
            return False
        self._next = now + self.interval
        return True
