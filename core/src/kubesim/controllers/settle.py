"""The settle loop: run controllers round-robin until none has work and every waiter holds.

The scenario engine settles its PreSimulationControllers with `settle` after every
operation phase and SimulationController pause, and `kubesim.testing` uses the same
function, so plugin tests run the engine's own loop.

A step can never loop forever. `LoopGuard` counts a step's controller loops that reported
work and fails the step (`NotSettled`, naming the controllers) when
- `idle_loops + idle_loops_per_object * objects` loops in a row changed nothing in the
  cluster (a controller reports work it does not do, or its waiter never holds), or
- the step ran `step_loops + step_loops_per_object * objects` loops in all (a controller
  rewrites objects forever),
where `objects` is the number of objects in the cluster at the time; and it fails when
- the cluster holds more than `max_objects` objects (a workload of a million replicas: memory
  grows about 50 KB per pod, so the run is stopped before it exhausts the machine).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import attrs

from kubesim.controllers.waiter import ControllerWaiter

__all__ = [
    "IDLE_LOOPS",
    "IDLE_LOOPS_PER_OBJECT",
    "MAX_OBJECTS",
    "STEP_LOOPS",
    "STEP_LOOPS_PER_OBJECT",
    "LoopGuard",
    "NotSettled",
    "SettleLimits",
    "Settleable",
    "settle",
]

IDLE_LOOPS = 1000
"""Loops in a row without a cluster change before a step fails (plus IDLE_LOOPS_PER_OBJECT each)."""
IDLE_LOOPS_PER_OBJECT = 4
"""Extra idle loops allowed per object: the scheduler tries each pending pod twice without writing."""
STEP_LOOPS = 10_000
"""Loops in one step before it fails (plus STEP_LOOPS_PER_OBJECT per object)."""
STEP_LOOPS_PER_OBJECT = 100
"""Extra loops allowed per object: a workload's pods each take a few loops of a few controllers."""
MAX_OBJECTS = 1_000_000
"""Objects the cluster may hold (`kubesim run --max-objects`)."""


class Settleable(Protocol):
    """What settling needs of a controller (kubesim.controllers.Controller has it)."""

    @property
    def name(self) -> str: ...

    def run_once(self) -> bool: ...

    def waiter(self) -> ControllerWaiter: ...


@attrs.frozen
class SettleLimits:
    """Bounds on a step's loops (see the module docstring)."""

    idle_loops: int = IDLE_LOOPS
    idle_loops_per_object: int = IDLE_LOOPS_PER_OBJECT
    step_loops: int = STEP_LOOPS
    step_loops_per_object: int = STEP_LOOPS_PER_OBJECT
    max_objects: int = MAX_OBJECTS


class NotSettled(Exception):
    """Controllers did not settle; `controllers` names them and `str()` says why."""

    def __init__(self, message: str, controllers: Sequence[str]) -> None:
        super().__init__(message)
        self.message = message
        self.controllers = tuple(controllers)


def _names(names: Iterable[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def _no_objects() -> int:
    return 0


class LoopGuard:
    """Counts one step's loops against `limits`.

    `changes()` is the cluster's write count, `objects()` its number of objects; `label`
    starts the failure messages (e.g. "step 2").
    """

    def __init__(self, changes: Callable[[], int], *, objects: Callable[[], int] = _no_objects,
                 limits: SettleLimits = SettleLimits(), label: str = "step") -> None:
        self.changes = changes
        self.objects = objects
        self.limits = limits
        self.label = label
        self.loops = 0
        self.idle = 0
        self._seen = changes()
        self._busy: dict[str, None] = {}  # controllers with work since the last change, in order

    def tick(self, name: str) -> None:
        """Count one loop of controller `name` that reported work; raise NotSettled past a bound."""
        limits = self.limits
        self.loops += 1
        if self.objects() > limits.max_objects:
            raise NotSettled(
                f"{self.label}: the cluster holds more than {limits.max_objects} objects "
                f"(the limit, --max-objects) while controller \"{name}\" still has work",
                [name],
            )
        seen = self.changes()
        if seen != self._seen:
            self._seen = seen
            self.idle = 0
            self._busy.clear()
        else:
            self.idle += 1
            self._busy[name] = None
            if (self.idle >= limits.idle_loops
                    and self.idle >= limits.idle_loops + limits.idle_loops_per_object * self.objects()):
                busy = list(self._busy)
                raise NotSettled(
                    f"{self.label} did not settle: {'controller' if len(busy) == 1 else 'controllers'} "
                    f"{_names(busy)} still {'reports' if len(busy) == 1 else 'report'} work after {self.idle} "
                    "loops without changing the cluster",
                    busy,
                )
        if (self.loops >= limits.step_loops
                and self.loops >= limits.step_loops + limits.step_loops_per_object * self.objects()):
            raise NotSettled(
                f"{self.label} did not settle: controller \"{name}\" still changes the cluster after "
                f"{self.loops} loops in this step",
                [name],
            )


def _always() -> bool:
    return True


def _work_probe(controller: Settleable) -> Callable[[], bool]:
    """The controller's `has_work` check (Controller.work_probe), else always True."""
    probe = getattr(controller, "work_probe", None)
    if probe is not None:
        return probe()  # type: ignore[no-any-return]
    return getattr(controller, "has_work", _always)


def _run_once(controller: Settleable) -> bool:
    return controller.run_once()


def settle(
    controllers: Sequence[Settleable],
    external_waiters: Sequence[ControllerWaiter] = (),
    *,
    changes: Callable[[], int],
    limits: SettleLimits = SettleLimits(),
    objects: Callable[[], int] = _no_objects,
    guard: LoopGuard | None = None,
    run: Callable[[Settleable], bool] = _run_once,
) -> None:
    """Run `controllers` round-robin until none has work, then check every waiter.

    A controller whose `has_work()` (kubesim.controllers.Controller's) says False is not run
    in that round: a ReconcileController with an empty queue costs nothing. A waiter that does not hold when nothing has work raises NotSettled; so do the
    guard's bounds (a new `LoopGuard(changes, objects=objects, limits=limits)` unless one
    is given, shared by a whole step). `run` calls one loop (the engine wraps errors).
    """
    if guard is None:
        guard = LoopGuard(changes, objects=objects, limits=limits)
    rounds = [(c, _work_probe(c)) for c in controllers]
    while True:
        progress = False
        for controller, has_work in rounds:
            if has_work() and run(controller):
                progress = True
                guard.tick(controller.name)
        if progress:
            continue
        waiters = [c.waiter() for c in controllers] + list(external_waiters)
        for waiter in waiters:
            if not waiter.satisfied():
                raise NotSettled(
                    f"PreSimulationController {waiter.name!r} cannot settle: it has nothing left to do "
                    "but its waiter is not satisfied",
                    [waiter.name],
                )
        return
