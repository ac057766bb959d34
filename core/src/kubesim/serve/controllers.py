"""Controllers outside the process (KEP-140 SimulationControllers/PreSimulationControllers in any language).

`kubesim serve --controller NAME` gives NAME a token; its writes carry actor NAME. A scenario
that names NAME in spec.controllers (simulationControllers or preSimulationControllers
`enabled`; outside controllers are never enabled by default) waits for it as for an in-process
controller. The engine cannot call an outside controller's waiter, so it knows NAME has settled
(KEP-140's ControllerWaiter) in one of two ways:

- NAME reports it: at the end of each loop it POSTs
  /apis/simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1/controllers/NAME/checkpoint
  ?resourceVersion=RV&idle=true when it has processed everything up to RV and has nothing to
  do. NAME is settled while RV >= the last write not made by NAME (Scenario objects aside) and
  NAME has not written since. The checkpoint is no cluster write.
- or `--settled-when NAME=EXPR` declares a condition on cluster state (settled_when.py).

A SimulationController's checkpoint is also KEP-140's CheckScenarioStepPhase: while the step
phase is ControllerPaused for NAME, the request blocks until the scenario controller has let the
PreSimulationControllers settle (phase OperatingCompleted, then ControllerRunning). The engine
waits for that checkpoint (the end of the loop that wrote) before it settles anything, so the
writes of one loop are one MinorStep whatever their timing.

Gating: a write by a controller of the running scenario when it is not its turn (another
controller's turn, the step's operations, PreSimulationControllers settling) is held until its
turn, then refused with 429 TooManyRequests and Retry-After after `gate_timeout` seconds, as a
stopped controller would not have written. Every wait is on ServerState.changed (which releases
the lock) and bounded by `--controller-timeout`: a controller that dies fails the scenario with a
message naming it and what the engine waited for.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from kubesim.api import API_VERSION, KIND, ScenarioPhase, StepPhase
from kubesim.cluster import WatchEvent
from kubesim.controllers import ControllerWaiter
from kubesim.controllers.settle import NotSettled
from kubesim.errors import ApiError, BadRequest, Forbidden, NotFound
from kubesim.plugins import hookimpl
from kubesim.serve.settled_when import SettledWhen

if TYPE_CHECKING:
    from kubesim.plugins import Hooks
    from kubesim.scenario.engine import ScenarioRun
    from kubesim.serve.state import Identity, ServerState

__all__ = [
    "CHECKPOINT_PREFIX",
    "DEFAULT_CONTROLLER_TIMEOUT",
    "DEFAULT_GATE_TIMEOUT",
    "OutsideController",
    "OutsideControllers",
    "OutsidePlugin",
    "OutsideSettled",
    "TooManyRequests",
    "retry_after_header",
]

CHECKPOINT_PREFIX = f"/apis/{API_VERSION}/controllers/"
"""POST CHECKPOINT_PREFIX + NAME + "/checkpoint": an outside controller's end of loop."""
DEFAULT_CONTROLLER_TIMEOUT = 60.0
"""Seconds the engine waits for an outside controller before the scenario fails."""
DEFAULT_GATE_TIMEOUT = 30.0
"""Seconds a write made out of turn is held before it gets 429."""
MAX_CHECKPOINT_WAIT = 30.0
"""Longest a checkpoint request blocks (timeoutSeconds); the client calls again."""


class TooManyRequests(ApiError):
    """429 TooManyRequests with details.retryAfterSeconds (k8s.io/apimachinery pkg/api/errors
    NewTooManyRequests); app.py adds the Retry-After header as k8s.io/apiserver
    pkg/endpoints/handlers/responsewriters ErrorNegotiated does for such a Status."""

    code = 429
    reason = "TooManyRequests"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.details = {"retryAfterSeconds": retry_after}


@attrs.define
class OutsideController:
    """One outside controller: its declared condition and what it reported."""

    name: str
    settled_when: SettledWhen | None = None
    idle_rv: int = -1
    """The resourceVersion of its last idle report (-1: none since its last write)."""
    loops: int = 0
    """Checkpoints received (ends of its loops)."""
    write_loop: int = -1
    """`loops` when it last wrote: it is inside that loop until the next checkpoint."""


@attrs.frozen
class OutsideSettled:
    """The condition of an outside controller's ControllerWaiter (evaluated under the lock)."""

    owner: OutsideControllers
    name: str

    def __call__(self) -> bool:
        return self.owner.settled(self.name)


def _int(value: str | None, what: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"{what}: Invalid value: {value!r}: must be an integer") from None


class OutsideControllers:
    """The outside controllers of one `kubesim serve`, what they reported, and the scenario they serve."""

    def __init__(self, state: ServerState, *, timeout: float = DEFAULT_CONTROLLER_TIMEOUT,
                 gate_timeout: float = DEFAULT_GATE_TIMEOUT) -> None:
        self.state = state
        self.timeout = timeout
        self.gate_timeout = gate_timeout
        self.controllers: dict[str, OutsideController] = {}
        self.run: ScenarioRun | None = None
        self.settling = False
        """True while the engine waits for PreSimulationControllers (their writes are allowed)."""
        self._last_by_actor: dict[str, int] = {}
        state.cluster.watch(self._on_write)

    def add(self, name: str, settled_when: SettledWhen | None = None) -> OutsideController:
        ctrl = self.controllers.setdefault(name, OutsideController(name))
        if settled_when is not None:
            ctrl.settled_when = settled_when
        return ctrl

    def register(self, hooks: Hooks) -> None:
        """Give the engine (which runs on `hooks`) these controllers' waiters."""
        hooks.pm.register(OutsidePlugin(self), name="kubesim-serve-outside-controllers")

    def waiters(self) -> dict[str, ControllerWaiter]:
        """ControllerWaiters for the engine (kubesim_controller_waiters)."""
        return {n: ControllerWaiter(n, OutsideSettled(self, n)) for n in self.controllers}

    # --- the engine's side (lock held) ------------------------------------------------

    def attach(self, run: ScenarioRun) -> None:
        """`run` is the scenario whose controllers are gated and waited for."""
        self.run = run
        self.settling = False
        # a scenario starts on a reset cluster (resourceVersions restart): earlier reports mean nothing
        self._last_by_actor.clear()
        for ctrl in self.controllers.values():
            ctrl.idle_rv, ctrl.write_loop = -1, ctrl.loops

    def _on_write(self, event: WatchEvent) -> None:
        obj = event.object
        if obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION:
            return  # the scenario's own status: no controller's input
        rv = int(self.state.cluster.resource_version)
        self._last_by_actor[event.actor] = rv
        ctrl = self.controllers.get(event.actor)
        if ctrl is not None:
            ctrl.idle_rv = -1
            ctrl.write_loop = ctrl.loops

    def last_foreign_write(self, name: str) -> int:
        """The resourceVersion of the last write not made by `name` (0: none)."""
        return max((rv for actor, rv in self._last_by_actor.items() if actor != name), default=0)

    def settled(self, name: str) -> bool:
        """True when `name` has nothing to do: its --settled-when holds, or its idle report is current."""
        ctrl = self.controllers[name]
        if ctrl.settled_when is not None:
            return ctrl.settled_when.holds(self.state.cluster)
        return ctrl.idle_rv >= 0 and ctrl.idle_rv >= self.last_foreign_write(name)

    def waiting_for(self, name: str) -> str:
        """What settling `name` waits for, for failure messages."""
        ctrl = self.controllers[name]
        if ctrl.settled_when is not None:
            return f"its --settled-when condition {ctrl.settled_when.text!r} to hold"
        return (f"it to report idle at resourceVersion >= {self.last_foreign_write(name)} "
                f"(POST {CHECKPOINT_PREFIX}{name}/checkpoint?idle=true&resourceVersion=RV; "
                f"last report: {ctrl.idle_rv if ctrl.idle_rv >= 0 else 'none'})")

    def _wait(self, done: Callable[[], bool], deadline: float) -> bool:
        """Wait on state.changed (the lock released) until done() or the deadline; done() at the end."""
        changed = self.state.changed
        with self.state.lock:
            changed.notify_all()  # phase changes are no cluster writes: wake gated writers and checkpoints
            while not done():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                changed.wait(min(remaining, 1.0))
            return True

    def wait_settled(self, names: Iterable[str], label: str) -> None:
        """Wait (bounded) until every PreSimulationController in `names` has settled; NotSettled if not."""
        pending = [n for n in names if n in self.controllers]
        if not pending:
            return
        deadline = time.monotonic() + self.timeout
        self.settling = True
        try:
            for name in pending:
                if not self._wait(functools.partial(self.settled, name), deadline):
                    raise NotSettled(f"{label}: PreSimulationController {name!r} did not settle within "
                                     f"{self.timeout:g} s (--controller-timeout): waiting for "
                                     f"{self.waiting_for(name)}", [name])
            # all at once: a later one's writes may have given an earlier one work
            if not self._wait(lambda: all(self.settled(n) for n in pending), deadline):
                busy = [n for n in pending if not self.settled(n)]
                raise NotSettled(f"{label}: PreSimulationControllers {busy} did not settle within "
                                 f"{self.timeout:g} s (--controller-timeout)", busy)
        finally:
            self.settling = False

    def wait_simulation(self, name: str, label: str) -> bool:
        """Wait for the running SimulationController `name`: True when it wrote and reached the end of
        that loop (ControllerPaused), False when it settled with nothing to do; NotSettled after the timeout."""
        run = self.run
        assert run is not None
        status = run.scenario.status.step_status
        ctrl = self.controllers[name]

        def paused() -> bool:
            return status.phase == StepPhase.CONTROLLER_PAUSED and ctrl.loops > ctrl.write_loop

        def done() -> bool:
            return paused() or (status.phase == StepPhase.CONTROLLER_RUNNING and self.settled(name))

        if not self._wait(done, time.monotonic() + self.timeout):
            what = (f"the end of its loop (POST {CHECKPOINT_PREFIX}{name}/checkpoint) after its write"
                    if status.phase == StepPhase.CONTROLLER_PAUSED else self.waiting_for(name))
            raise NotSettled(f"{label}: SimulationController {name!r} did not finish within "
                             f"{self.timeout:g} s (--controller-timeout): waiting for {what}", [name])
        return paused()

    # --- the HTTP side -------------------------------------------------------------------

    def _turn(self, name: str) -> bool:
        """True when controller `name` may write now (lock held)."""
        run = self.run
        if run is None or run.phase not in (ScenarioPhase.RUNNING, ScenarioPhase.PAUSED):
            return True
        if name in run.pre_simulation:
            return self.settling
        if name not in run.simulation:
            return True  # not part of this scenario: an ordinary client
        status = run.scenario.status.step_status
        if self.settling or run.phase != ScenarioPhase.RUNNING or status.running_simulation_controller != name:
            return False
        ctrl = self.controllers[name]
        return (status.phase == StepPhase.CONTROLLER_RUNNING
                or (status.phase == StepPhase.CONTROLLER_PAUSED and ctrl.loops == ctrl.write_loop))

    def gate(self, who: Identity) -> None:
        """Hold a write by an outside controller until its turn (lock held); 429 after gate_timeout."""
        if not who.controller or who.name not in self.controllers:
            return
        if self._wait(lambda: self._turn(who.name), time.monotonic() + self.gate_timeout):
            return
        raise TooManyRequests(
            f"controller {who.name!r} wrote out of turn: the running scenario is not waiting for it "
            f"(held {self.gate_timeout:g} s; a stopped controller would not have written)",
            retry_after=1,
        )

    def checkpoint(self, who: Identity, name: str, query: Mapping[str, str]) -> dict[str, Any]:
        """POST .../controllers/NAME/checkpoint: the end of one loop of NAME (CheckScenarioStepPhase)."""
        if name not in self.controllers:
            raise NotFound(f'controllers "{name}" not found (start kubesim serve with --controller {name})')
        if who.controller and who.name != name:
            raise Forbidden(f'controller "{who.name}" cannot report for controller "{name}"')
        rv = _int(query.get("resourceVersion"), "resourceVersion")
        idle = query.get("idle", "false").lower() in ("true", "1")
        wait = _int(query.get("timeoutSeconds"), "timeoutSeconds")
        if idle and rv is None:
            raise BadRequest("idle=true needs the resourceVersion processed (resourceVersion=RV)")
        deadline = time.monotonic() + min(MAX_CHECKPOINT_WAIT, max(0, wait if wait is not None else 10))
        ctrl = self.controllers[name]
        with self.state.lock:
            ctrl.loops += 1
            if idle and rv is not None:
                ctrl.idle_rv = rv
            self._wait(lambda: not self._paused_for(name), deadline)
            return self._report(name)

    def _paused_for(self, name: str) -> bool:
        run = self.run
        if run is None or run.phase != ScenarioPhase.RUNNING:
            return False
        status = run.scenario.status.step_status
        return status.phase == StepPhase.CONTROLLER_PAUSED and status.running_simulation_controller == name

    def _report(self, name: str) -> dict[str, Any]:
        run = self.run
        ctrl = self.controllers[name]
        body: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "ControllerCheckpoint",
                                "metadata": {"name": name},
                                "status": {"settled": self.settled(name), "loops": ctrl.loops}}
        if run is not None:
            step = run.scenario.status.step_status
            body["status"]["scenario"] = {
                "name": run.scenario.name,
                "phase": run.phase.value if run.phase else "",
                "stepStatus": {"step": {"major": step.step.major, "minor": step.step.minor},
                               "phase": step.phase.value if step.phase else "",
                               "runningSimulationController": step.running_simulation_controller},
            }
        return body


class OutsidePlugin:
    """The pluggy plugin that hands the engine the outside controllers' waiters."""

    def __init__(self, owner: OutsideControllers) -> None:
        self.owner = owner

    @hookimpl
    def kubesim_controller_waiters(self) -> list[ControllerWaiter]:
        return list(self.owner.waiters().values())


def retry_after_header(exc: ApiError) -> dict[str, str]:
    """The Retry-After header for a 429 (empty for other errors)."""
    seconds = getattr(exc, "retry_after", None)
    return {"Retry-After": str(math.ceil(seconds))} if seconds is not None else {}
