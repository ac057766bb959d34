"""The scheduling queue: activeQ, backoffQ and the unschedulable pool, in simulated time.

kube-scheduler v1.34 defaults are modelled: queueing hints (GA) decide which cluster events
move a rejected pod, SchedulerPopFromBackoffQ lets Pop take a backing-off pod when activeQ
is empty (never one backing off after an Error) and aligns backoff expirations to 1 s windows. Cluster events that arrive while a
pod is in flight (e.g. preemption victims deleted by a synchronous client) are recorded and
decide where the pod goes when its attempt fails, as upstream. The queue embeds the
Nominator (pods nominated to nodes by preemption).
"""

# upstream: pkg/scheduler/backend/queue/scheduling_queue.go, active_queue.go,
# backoff_queue.go, unschedulable_pods.go, nominator.go

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .framework.events import ActionType, ClusterEvent, WILDCARD, QueueingHint, match_cluster_events
from .framework.nominator import Nominator
from .framework.pod_info import PodInfo
from .framework.queued_pod_info import QueuedPodInfo
from .framework.runtime import Framework
from .plugins.queuesort import PrioritySort

__all__ = ["SchedulingQueue", "QueueingStrategy", "UNSCHEDULABLE_TIMEOUT", "FORCE_ACTIVATE"]

BACKOFF_WINDOW = 1.0  # backoffQOrderingWindowDuration
_LEFTOVER_FLUSH_PERIOD = 30.0  # flushUnschedulablePodsLeftover runs every 30 s (scheduling_queue.go)
UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ActionType.ALL, "UnschedulableTimeout")
FORCE_ACTIVATE = ClusterEvent(WILDCARD, ActionType.ALL, "ForceActivate")
BACKOFF_COMPLETE = "BackoffComplete"
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
UNSCHEDULED_POD_ADD = "UnschedulablePodAdd"
UNSCHEDULED_POD_UPDATE = "UnschedulablePodUpdate"


class QueueingStrategy:
    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


class _Entry:
    """Heap entry: ordering by a less function, ties by insertion sequence."""

    __slots__ = ("qpi", "key_fn")

    def __init__(self, qpi: QueuedPodInfo, key_fn: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        self.qpi = qpi
        self.key_fn = key_fn

    def __lt__(self, other: _Entry) -> bool:
        a, b = self.qpi, other.qpi
        if self.key_fn(a, b):
            return True
        if self.key_fn(b, a):
            return False
        return a.seq < b.seq


class _PriorityEntry(_Entry):
    """Heap entry ordered as PrioritySort's less, inlined (the same order as _Entry with
    that less: higher priority, then earlier timestamp, then insertion sequence); the heap
    compares entries about 2 log2(n) times per pop, each a plugin call otherwise."""

    __slots__ = ()

    def __lt__(self, other: _Entry) -> bool:
        a, b = self.qpi, other.qpi
        pa, pb = a.pod_info.priority, b.pod_info.priority
        if pa != pb:
            return pa > pb
        if a.timestamp < b.timestamp:
            return True
        if b.timestamp < a.timestamp:
            return False
        return a.seq < b.seq


class _Heap:
    """A heap keyed by pod key with lazy deletion."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool], *, priority_sort: bool = False) -> None:
        self.less = less
        self._entry = _PriorityEntry if priority_sort else _Entry
        self._h: list[_Entry] = []
        self.items: dict[str, QueuedPodInfo] = {}

    def add(self, qpi: QueuedPodInfo) -> None:
        self.items[qpi.key] = qpi
        heapq.heappush(self._h, self._entry(qpi, self.less))

    def delete(self, key: str) -> QueuedPodInfo | None:
        return self.items.pop(key, None)

    def _clean(self) -> None:
        while self._h and self.items.get(self._h[0].qpi.key) is not self._h[0].qpi:
            heapq.heappop(self._h)

    def peek(self) -> QueuedPodInfo | None:
        self._clean()
        return self._h[0].qpi if self._h else None

    def pop(self) -> QueuedPodInfo | None:
        self._clean()
        if not self._h:
            return None
        qpi = heapq.heappop(self._h).qpi
        del self.items[qpi.key]
        return qpi

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, key: str) -> bool:
        return key in self.items

    def reheap(self) -> None:
        """Re-establish order after an entry's sort key changed in place."""
        self._h = [self._entry(q, self.less) for q in self.items.values()]
        heapq.heapify(self._h)


class SchedulingQueue:
    """PriorityQueue: Add/Pop/Update/Delete, failures, and event-driven requeueing."""

    def __init__(
        self,
        frameworks: Mapping[str, Framework],
        now: Callable[[], float],
        *,
        pod_initial_backoff: float = 1.0,
        pod_max_backoff: float = 10.0,
        pod_max_in_unschedulable: float = 300.0,
        pop_from_backoff: bool = True,
        nominator: Nominator | None = None,
    ) -> None:
        self.frameworks = frameworks
        self.nominator = nominator if nominator is not None else Nominator()
        self.now = now
        self.initial_backoff = pod_initial_backoff
        self.max_backoff = pod_max_backoff
        self.max_in_unschedulable = pod_max_in_unschedulable
        self.pop_from_backoff = pop_from_backoff
        first = next(iter(frameworks.values()), None)
        self._less = first.less if first is not None else (lambda a, b: False)
        self.active = _Heap(self._less, priority_sort=first is not None and type(first.queue_sort_plugin) is PrioritySort)
        self.backoff = _Heap(self._backoff_less)
        self.error_backoff = _Heap(self._backoff_less_plain)
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self.in_flight: dict[str, QueuedPodInfo] = {}
        # (event, old, new) received while a pod was in flight (only one is, at a time)
        self.in_flight_events: list[tuple[ClusterEvent, Any, Any]] = []
        self.scheduling_cycle = 0
        self._seq = 0
        self._last_leftover_flush = now()
        self._interest_cache: dict[ClusterEvent, bool] = {}

    # ------------------------------------------------------------- helpers
    def _new_qpi(self, pi: PodInfo) -> QueuedPodInfo:
        self._seq += 1
        now = self.now()
        return QueuedPodInfo(pi, timestamp=now, seq=self._seq)

    def _align(self, t: float) -> float:
        if not self.pop_from_backoff:
            return t
        return math.floor(t / BACKOFF_WINDOW) * BACKOFF_WINDOW

    def backoff_duration(self, count: int) -> float:
        """calculateBackoffDuration: initial * 2^(count-1), capped at max."""
        if count == 0:
            return 0.0
        d = self.initial_backoff
        for _ in range(count - 1):
            d *= 2
            if d > self.max_backoff:
                return self.max_backoff
        return min(d, self.max_backoff)

    def backoff_time(self, qpi: QueuedPodInfo) -> float:
        """getBackoffTime: when the pod's backoff ends (-inf for no backoff)."""
        if self.max_backoff == 0:
            return -math.inf
        count = qpi.consecutive_errors_count if qpi.consecutive_errors_count > 0 else qpi.unschedulable_count
        if count == 0:
            return -math.inf
        if qpi.backoff_expiration is None:
            qpi.backoff_expiration = self._align(qpi.timestamp + self.backoff_duration(count))
        return qpi.backoff_expiration

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        return not self.backoff_time(qpi) < self._align(self.now())

    def _backoff_less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ta, tb = self.backoff_time(a), self.backoff_time(b)
        if ta != tb:
            return ta < tb
        if self.pop_from_backoff:
            return self._less(a, b)
        return False

    def _backoff_less_plain(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.backoff_time(a) < self.backoff_time(b)

    def _framework(self, qpi: QueuedPodInfo) -> Framework | None:
        return self.frameworks.get(qpi.pod_info.scheduler_name)

    # ------------------------------------------------------------ pre-enqueue
    def _run_pre_enqueue(self, qpi: QueuedPodInfo) -> None:
        fw = self._framework(qpi)
        if fw is None:
            qpi.gating_plugin = ""
            return
        gating = qpi.gating_plugin
        order = list(fw.pre_enqueue_plugins)
        if gating:
            order.sort(key=lambda p: p.name != gating)
        for pl in order:
            s = pl.pre_enqueue(qpi.pod)
            if s is not None and not s.is_success():
                qpi.unschedulable_plugins.add(pl.name)
                qpi.gating_plugin = pl.name
                qpi.gating_plugin_events = [e.event for e in fw.events_by_plugin.get(pl.name, ())]
                return
        qpi.gating_plugin = ""

    def _move_to_active(self, qpi: QueuedPodInfo, event: str) -> bool:
        if not self.pop_from_backoff or event != BACKOFF_COMPLETE:
            self._run_pre_enqueue(qpi)
        if qpi.gated():
            if qpi.key in self.active or qpi.key in self.backoff or qpi.key in self.error_backoff:
                return False
            self.unschedulable.setdefault(qpi.key, qpi)
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.now()
        self.active.add(qpi)
        self.unschedulable.pop(qpi.key, None)
        self.backoff.delete(qpi.key)
        self.error_backoff.delete(qpi.key)
        if event in (UNSCHEDULED_POD_ADD, UNSCHEDULED_POD_UPDATE):
            self.nominator.add(qpi.pod_info, None)
        return True

    def _move_to_backoff(self, qpi: QueuedPodInfo, event: str) -> bool:
        if self.pop_from_backoff:
            self._run_pre_enqueue(qpi)
            if qpi.gated():
                self.unschedulable.setdefault(qpi.key, qpi)
                return False
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            self.error_backoff.add(qpi)
        else:
            self.backoff.add(qpi)
        return True

    # ------------------------------------------------------------ pod events
    def add(self, pod_info: PodInfo) -> bool:
        """A new unscheduled pod; False when a PreEnqueue plugin gated it."""
        return self._move_to_active(self._new_qpi(pod_info), UNSCHEDULED_POD_ADD)

    def update(self, old: Mapping[str, Any] | None, new_info: PodInfo) -> None:
        """An unscheduled pod changed: update it in place or requeue it by its events."""
        from .framework.events import pod_scheduling_properties_change

        key = new_info.key
        if key in self.in_flight:
            # recorded for the in-flight pod; it is requeued from the latest version later
            self.in_flight[key].pod_info = new_info
            for evt in pod_scheduling_properties_change(new_info.pod, old or {}):
                self.in_flight_events.append((evt, old, new_info.pod))
            return
        for heap in (self.active, self.backoff, self.error_backoff):
            qpi = heap.items.get(key)
            if qpi is not None:
                qpi.pod_info = new_info
                heap.reheap()
                self.nominator.update(old, new_info)
                return
        qpi = self.unschedulable.get(key)
        if qpi is not None:
            qpi.pod_info = new_info
            self.nominator.update(old, new_info)
            events = pod_scheduling_properties_change(new_info.pod, old or {})
            for evt in events:
                strategy = self._worth_requeuing(qpi, evt, old, new_info.pod)
                where = self._requeue(qpi, strategy, evt.label())
                if where != "unschedulable":
                    self.unschedulable.pop(key, None)
                    break
            return
        self._move_to_active(self._new_qpi(new_info), UNSCHEDULED_POD_UPDATE)

    def delete(self, key: str) -> None:
        self.nominator.delete(key)
        self.active.delete(key)
        self.backoff.delete(key)
        self.error_backoff.delete(key)
        self.unschedulable.pop(key, None)
        self.in_flight.pop(key, None)

    def contains(self, key: str) -> bool:
        return (key in self.active or key in self.backoff or key in self.error_backoff
                or key in self.unschedulable or key in self.in_flight)

    # ------------------------------------------------------------------ pop
    def flush(self) -> None:
        """Run the periodic flushes due by now: completed backoffs, unschedulable leftovers."""
        self._flush_backoff_completed()
        last = self._last_leftover_flush
        due = math.floor((self.now() - last) / _LEFTOVER_FLUSH_PERIOD)
        if due <= 0:
            return
        self._last_leftover_flush = last + _LEFTOVER_FLUSH_PERIOD * due
        # The flushes every 30 s since the last one, run in turn, move each pod at the first of them
        # after it has waited max_in_unschedulable: only those flushes do anything, so only they run
        # (a scenario may jump years ahead between two steps).
        firsts = {self._first_flush_after(q.timestamp + self.max_in_unschedulable, last)
                  for q in self.unschedulable.values()}
        for at in sorted(t for t in firsts if t <= self._last_leftover_flush):
            self._flush_unschedulable_leftover(at)

    @staticmethod
    def _first_flush_after(t: float, last: float) -> float:
        """The first periodic leftover flush (every 30 s after `last`) strictly after time `t`."""
        return last + _LEFTOVER_FLUSH_PERIOD * max(1, math.floor((t - last) / _LEFTOVER_FLUSH_PERIOD) + 1)

    def _flush_backoff_completed(self) -> None:
        for heap in (self.backoff, self.error_backoff):
            while True:
                q = heap.peek()
                if q is None or self.is_backing_off(q):
                    break
                heap.pop()
                self._move_to_active(q, BACKOFF_COMPLETE)

    def _flush_unschedulable_leftover(self, at: float) -> None:
        move = [q for q in self.unschedulable.values() if at - q.timestamp > self.max_in_unschedulable]
        if move:
            self._move_pods(move, UNSCHEDULABLE_TIMEOUT, None, None)

    def pop(self) -> QueuedPodInfo | None:
        """Next pod to schedule (flushes first); None when nothing is ready."""
        self.flush()
        qpi = self.active.pop()
        if qpi is None and self.pop_from_backoff:
            # backoff_queue.go popBackoff: never from the error backoff queue
            qpi = self.backoff.pop()
        if qpi is None:
            return None
        qpi.attempts += 1
        self.scheduling_cycle += 1
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
        qpi.gating_plugin = ""
        qpi.gating_plugin_events = []
        self.in_flight[qpi.key] = qpi
        return qpi

    def done(self, key: str) -> None:
        self.in_flight.pop(key, None)
        if not self.in_flight:
            self.in_flight_events.clear()

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo) -> None:
        """A failed attempt: count it, then park the pod or back it off."""
        strategy = self._in_flight_hint(qpi)
        self.done(qpi.key)
        if qpi.key in self.unschedulable or qpi.key in self.active or qpi.key in self.backoff or qpi.key in self.error_backoff:
            return
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            qpi.consecutive_errors_count += 1
        else:
            qpi.unschedulable_count += 1
            qpi.consecutive_errors_count = 0
        qpi.timestamp = self.now()
        qpi.backoff_expiration = None
        self._requeue(qpi, strategy, SCHEDULE_ATTEMPT_FAILURE)

    def _in_flight_hint(self, qpi: QueuedPodInfo) -> int:
        """determineSchedulingHintForInFlightPod: may an event seen in flight help the pod?"""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        strategy = QueueingStrategy.SKIP
        for event, old, new in self.in_flight_events:
            hint = self._worth_requeuing(qpi, event, old, new)
            if hint == QueueingStrategy.SKIP:
                continue
            if hint == QueueingStrategy.IMMEDIATELY:
                return hint
            strategy = QueueingStrategy.AFTER_BACKOFF
            if not qpi.pending_plugins:
                return strategy
        return strategy

    def activate(self, keys: Iterable[str]) -> None:
        for key in keys:
            qpi = self.unschedulable.get(key)
            if qpi is None:
                qpi = self.backoff.delete(key) or self.error_backoff.delete(key)
                if qpi is None:
                    continue
            self._move_to_active(qpi, FORCE_ACTIVATE.label())

    # -------------------------------------------------------------- requeue
    def _requeue(self, qpi: QueuedPodInfo, strategy: int, event: str) -> str:
        if strategy == QueueingStrategy.SKIP:
            self.unschedulable[qpi.key] = qpi
            return "unschedulable"
        if strategy == QueueingStrategy.AFTER_BACKOFF and self.is_backing_off(qpi):
            if self._move_to_backoff(qpi, event):
                return "backoff"
            return "unschedulable"
        if self._move_to_active(qpi, event):
            return "active"
        return "unschedulable"

    def _worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> int:
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors:
            return QueueingStrategy.AFTER_BACKOFF
        if event.is_wildcard():
            if new is not None:
                is_pod = isinstance(new, Mapping) and new.get("kind", "Pod") == "Pod"
                if not is_pod or ((new.get("metadata") or {}).get("uid")) != qpi.pod_info.uid:
                    return QueueingStrategy.SKIP
            return QueueingStrategy.AFTER_BACKOFF
        fw = self._framework(qpi)
        if fw is None:
            return QueueingStrategy.AFTER_BACKOFF
        strategy = QueueingStrategy.SKIP
        for plugin, registrations in fw.events_by_plugin.items():
            if plugin not in rejectors:
                continue
            for reg in registrations:
                if not match_cluster_events(reg.event, event):
                    continue
                hint = QueueingHint.QUEUE
                if reg.hint is not None:
                    try:
                        hint = reg.hint(qpi.pod, old, new)
                    except Exception:  # noqa: BLE001 - upstream treats a failing hint as Queue
                        hint = QueueingHint.QUEUE
                if hint == QueueingHint.QUEUE_SKIP:
                    continue
                if plugin in qpi.pending_plugins:
                    return QueueingStrategy.IMMEDIATELY
                if not qpi.pending_plugins:
                    return QueueingStrategy.AFTER_BACKOFF
                strategy = QueueingStrategy.AFTER_BACKOFF
        return strategy

    def _interesting(self, event: ClusterEvent) -> bool:
        """isEventOfInterest: some plugin of some profile registered a matching event."""
        hit = self._interest_cache.get(event)
        if hit is None:
            hit = event.is_wildcard() or any(
                match_cluster_events(r.event, event)
                for fw in self.frameworks.values() for regs in fw.events_by_plugin.values() for r in regs
            )
            self._interest_cache[event] = hit
        return hit

    def _move_pods(self, pods: list[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any) -> None:
        if not self._interesting(event):
            return
        for qpi in pods:
            if qpi.gated() and not any(match_cluster_events(e, event) for e in qpi.gating_plugin_events):
                continue
            strategy = self._worth_requeuing(qpi, event, old, new)
            if strategy == QueueingStrategy.SKIP:
                continue
            self.unschedulable.pop(qpi.key, None)
            self._requeue(qpi, strategy, event.label())

    def move_all_to_active_or_backoff(
        self, event: ClusterEvent, old: Any, new: Any, pre_check: Callable[[QueuedPodInfo], bool] | None = None
    ) -> None:
        """MoveAllToActiveOrBackoffQueue over the unschedulable pool (insertion order)."""
        if not self._interesting(event):
            return
        if self.in_flight:
            self.in_flight_events.append((event, old, new))
        if not self.unschedulable:
            return
        pods = [q for q in self.unschedulable.values() if pre_check is None or pre_check(q)]
        self._move_pods(pods, event, old, new)

    # --------------------------------------------------------------- status
    def pending(self) -> list[QueuedPodInfo]:
        return [*self.active.items.values(), *self.backoff.items.values(),
                *self.error_backoff.items.values(), *self.unschedulable.values()]

    def __len__(self) -> int:
        return len(self.active) + len(self.backoff) + len(self.error_backoff) + len(self.unschedulable)

    def next_wakeup(self) -> float | None:
        """The earliest simulated time at which a flush could make a pod ready."""
        times = [self.backoff_time(q) for h in (self.backoff, self.error_backoff) for q in h.items.values()]
        # a backoff completes once the aligned clock passes the expiration window
        backoff = min(times) + (BACKOFF_WINDOW if self.pop_from_backoff else 0.0) if times else None
        if self.unschedulable:
            # the first periodic flush after the oldest pod's max time in the queue
            due = min(q.timestamp for q in self.unschedulable.values()) + self.max_in_unschedulable
            flush = self._first_flush_after(due, self._last_leftover_flush)
            return flush if backoff is None else min(backoff, flush)
        return backoff
