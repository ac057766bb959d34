"""The controller interface and a reconcile-loop base class over watched kinds.

A controller runs cooperatively: the scenario engine calls `run_once()` (one loop
iteration) whenever the KEP's step machine lets it run, so runs are deterministic
and no threads are involved.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import structlog

from kubesim.controllers.waiter import ControllerWaiter
from kubesim.controllers.workqueue import WorkQueue

if TYPE_CHECKING:
    from kubesim.cluster import WatchEvent
    from kubesim.controllers.runtime import Runtime

__all__ = [
    "Controller",
    "ControllerFactory",
    "ObjectKey",
    "ReconcileController",
]


class Controller(abc.ABC):
    """An in-process controller. Subclasses set `name` and implement the two methods.

    `provides` declares capabilities of the scenario's cluster that exist because this
    controller runs (e.g. `kubesim.controllers.GRACEFUL_POD_DELETION` for a kubelet).
    """

    name: ClassVar[str]
    provides: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.reader = runtime.reader
        self.client = runtime.client(self.name)
        self.log = structlog.get_logger().bind(controller=self.name)

    @abc.abstractmethod
    def run_once(self) -> bool:
        """Run one loop iteration; return False when there was nothing to do."""

    @abc.abstractmethod
    def waiter(self) -> ControllerWaiter:
        """The condition that says this controller can do nothing more now."""

    def has_work(self) -> bool:
        """Whether `run_once` may do something now. The settle loop skips a controller that says
        False (no call at all), so say False only when `run_once` would return False. Default True."""
        return True

    def work_probe(self) -> Callable[[], bool]:
        """What the settle loop calls for `has_work` in each round (the bound method itself,
        unless a subclass can hand out a cheaper check that says the same)."""
        return self.has_work

    def next_wakeup(self) -> datetime | None:
        """The earliest simulated time at which time alone gives this controller work; None: never.

        The engine skips MajorSteps without operations up to the first one whose time reaches
        every controller's wake-up, so a scenario with an operation at step 10**9 runs in an
        instant. The default (now) means "maybe at any step": nothing is skipped.
        """
        return self.runtime.clock.now()

    def close(self) -> None:
        """Release watches when the scenario ends."""


class ControllerFactory(Protocol):
    """A controller class or any callable with a `name` that builds one per scenario."""

    name: str

    def __call__(self, runtime: Runtime) -> Controller: ...


ObjectKey = tuple[str, str]
"""(namespace, name) of a watched object; namespace is "" for cluster-scoped objects."""


class ReconcileController(Controller):
    """A reconcile loop over watched kinds, with a de-duplicating work queue.

    Subclasses list `watches` as (apiVersion, kind) pairs, may override `keys_for`
    to map an event to the keys to reconcile (e.g. a Pod event to its owner's key),
    and implement `reconcile(key)`. Keys may be re-queued in simulated time with
    `self.queue.add_after(key, when)`.
    """

    watches: ClassVar[Sequence[tuple[str, str]]] = ()

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        self.queue: WorkQueue[Hashable] = WorkQueue(runtime.clock.now)
        self._own_run_once = type(self).run_once is not ReconcileController.run_once
        self._waiter: ControllerWaiter | None = None
        self._watched = {kind for _, kind in self.watches}
        self._unwatch = self.reader.watch(self._on_event, kinds=self._watched)
        for api_version, kind in self.watches:
            for obj in self.reader.list(api_version, kind):
                for key in self.initial_keys(obj):
                    self.queue.add(key)

    def _on_event(self, event: WatchEvent) -> None:
        if event.object.get("kind") in self._watched:
            for key in self.keys_for(event):
                self.queue.add(key)

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        """Keys to reconcile for an object that exists when the controller starts."""
        return self.keys_for_object(obj)

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        """Keys to reconcile after a watch event (default: the object's own key)."""
        return self.keys_for_object(event.object)

    @staticmethod
    def keys_for_object(obj: dict[str, Any]) -> Iterable[Hashable]:
        """The object's own (namespace, name) key."""
        meta = obj.get("metadata", {})
        return [(meta.get("namespace", ""), meta.get("name", ""))]

    @abc.abstractmethod
    def reconcile(self, key: Hashable) -> None:
        """Move the state of `key` towards what it should be."""

    def has_work(self) -> bool:
        """A key is ready in the queue (a subclass with its own `run_once` is always asked)."""
        if self._own_run_once:
            return True
        return self.queue.has_ready()

    def work_probe(self) -> Callable[[], bool]:
        """The queue's own check, when neither has_work nor run_once is overridden (one call
        fewer per controller in each of a run's hundreds of thousands of settle rounds)."""
        if (type(self).has_work is ReconcileController.has_work and not self._own_run_once
                and "has_work" not in vars(self)):
            return self.queue.has_ready
        return self.has_work

    def run_once(self) -> bool:
        key = self.queue.pop()
        if key is None:
            return False
        self.reconcile(key)
        return True

    def settled(self) -> bool:
        """Extra condition for the default waiter (override with the KEP-style state check)."""
        return True

    def waiter(self) -> ControllerWaiter:
        """Nothing ready in the queue and `settled()`; one object, built on first use (the
        settle loop asks for every controller's waiter after each of its rounds)."""
        waiter = self._waiter
        if waiter is None or waiter.name != self.name:
            waiter = self._waiter = ControllerWaiter(self.name, self._queue_done_and_settled)
        return waiter

    def _queue_done_and_settled(self) -> bool:
        return self.queue.ready() == 0 and self.settled()

    def next_wakeup(self) -> datetime | None:
        """When the first key held with `queue.add_after` becomes ready (work comes only from the queue)."""
        return self.runtime.clock.now() if self.queue.ready() else self.queue.next_delayed()

    def close(self) -> None:
        self._unwatch()
