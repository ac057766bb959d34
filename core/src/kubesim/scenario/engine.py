"""The scenario controller: runs Scenarios one at a time through KEP-140's step machine.

Per MajorStep: Operating (the step's operations) -> PreSimulationControllers settle
-> OperatingCompleted -> for each SimulationController in order: ControllerRunning,
and whenever it writes, ControllerPaused with MinorStep + 1 until the end of its
loop, PreSimulationControllers settle, OperatingCompleted, ControllerRunning again;
ControllerCompleted when its waiter is satisfied -> Finished. The step's done
operation ends the scenario as Succeeded; running out of operations pauses it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from importlib import metadata
from typing import TYPE_CHECKING, Any

import attrs
import structlog

from kubesim.api import (
    API_VERSION,
    KIND,
    CreateOperationResult,
    CreateOptions,
    DeleteOperationResult,
    DoneOperationResult,
    PatchOperationResult,
    PatchOptions,
    Scenario,
    ScenarioOperation,
    ScenarioPhase,
    ScenarioResult,
    ScenarioSpec,
    ScenarioStep,
    ScenarioTimelineEvent,
    StepPhase,
    structure,
    unstructure,
    unstructure_shared,
)
from kubesim.api.digest import spec_hash
from kubesim.api.validation import PATCH_TYPES, assign_operation_ids, parse_patch, validate_scenario
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster, WatchEvent, copy_tree
from kubesim.controllers import Capabilities, Controller, ControllerWaiter, Runtime
from kubesim.controllers.settle import LoopGuard, NotSettled, Settleable, SettleLimits, settle
from kubesim.errors import ApiError, Conflict, InvalidInput, Problem
from kubesim.plugins import Hooks
from kubesim.interrupts import signal_name
from kubesim.plugins.crash import PluginCrashed, crash_message
from kubesim.scenario.crd import SCENARIO_CRD
from kubesim.scenario.memory import fewer_full_collections
from kubesim.scenario.progress import PodCounts, Throttle
from kubesim.scenario.recorder import TimelineRecorder
from kubesim.scenario.selection import select_controllers
from kubesim.scenario.sharing import SubtreeSharer
from kubesim.simtime.driver import SimTimeDriver, SimTimeError
from kubesim.simtime.options import SimTimeOptions

__all__ = [
    "SCENARIO_CRD",
    "UPDATE_STRATEGIES",
    "EngineOptions",
    "ScenarioFailed",
    "ScenarioRun",
    "Simulator",
    "check_last_step_time",
    "scenario_object",
    "simulator_version",
    "step_after_max_time",
]

if TYPE_CHECKING:
    from kubesim.serve.controllers import OutsideControllers

log = structlog.get_logger()

UPDATE_STRATEGIES = ("AtMovingNextStep", "OnPause", "OnDone")
ENGINE_ACTOR = "scenario-controller"
_DELETED = "the Scenario was deleted while it ran"


def _field_validation(options: CreateOptions | PatchOptions | None) -> str:
    """An operation's fieldValidation; Strict, kubectl's default, when it names none."""
    return (options.field_validation if options is not None else None) or "Strict"


def simulator_version() -> str:
    """The version string written to status.scenarioResult.simulatorVersion."""
    try:
        return f"kubesim/{metadata.version('kubesim')}"
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "kubesim/unknown"


@attrs.frozen
class EngineOptions:
    """How scenarios run: seed, simulated time, result updates, safety limits."""

    seed: int = 0
    step_duration: timedelta = timedelta(seconds=10)
    start_time: datetime = DEFAULT_EPOCH
    update_strategy: str = attrs.field(
        factory=lambda: os.environ.get("UPDATE_SCENARIO_RESULTS_STRATEGY", "AtMovingNextStep")
    )
    allow_unknown_targets: bool = False
    settle_limits: SettleLimits = SettleLimits()
    skip_idle_steps: bool = True
    """Skip MajorSteps in which nothing can happen (no operation, no controller's timed work)."""
    plugin_options: dict[str, Any] = attrs.field(factory=dict)
    simulated_time: SimTimeOptions | None = None
    """Run in simulated time (issue 14): every MajorStep is a tick, the run goes on past the last
    operation until work ends, submitters run each tick and metrics are written (kubesim.simtime).
    A scenario's spec.simulatedTime turns it on too."""

    def __attrs_post_init__(self) -> None:
        if self.update_strategy not in UPDATE_STRATEGIES:
            raise InvalidInput([
                Problem("UPDATE_SCENARIO_RESULTS_STRATEGY",
                         f"expected one of {', '.join(UPDATE_STRATEGIES)}, got {self.update_strategy!r}")
            ])


def scenario_object(scenario: Scenario, *, shared: bool = False) -> dict[str, Any]:
    """The Scenario as the engine creates it in the cluster (without its result).

    shared: the spec's operations and their objects are `scenario`'s own (`unstructure_shared`),
    not copies: the cluster stores them as they are (metadata, which it fills in, is a copy).
    """
    obj: dict[str, Any] = unstructure(attrs.evolve(scenario, spec=ScenarioSpec()) if shared else scenario)
    if shared:
        obj["spec"] = unstructure_shared(scenario.spec)
    obj["status"].pop("scenarioResult", None)
    return obj


def step_after_max_time(major: int) -> str:
    """The message for a MajorStep whose start time Python's datetime cannot hold."""
    return (f"step {major} would start after 9999-12-31T23:59:59Z, the latest time kubesim can "
            "represent (see --step-duration)")


def check_last_step_time(options: EngineOptions, scenario: Scenario) -> Problem | None:
    """step_after_max_time for the scenario's last operation, when its step overflows; known
    before the run (controllers may still move the clock further at run time)."""
    ops = scenario.spec.operations
    if not ops:
        return None
    last = max(range(len(ops)), key=lambda i: ops[i].step)
    try:
        options.start_time + options.step_duration * ops[last].step
    except OverflowError:
        return Problem(f"spec.operations[{last}].step", step_after_max_time(ops[last].step),
                       f"scenario {scenario.name}")
    return None


def _with_simulated_time(options: EngineOptions, scenario: Scenario) -> EngineOptions:
    """The options of one scenario: its spec.simulatedTime under what the command line gave."""
    given = options.simulated_time
    spec = scenario.spec.simulated_time
    if given is None and spec is None:
        return options
    merged = (given or SimTimeOptions()).merged(spec.options() if spec is not None else SimTimeOptions())
    return attrs.evolve(options, simulated_time=merged, step_duration=merged.tick or options.step_duration,
                        start_time=merged.start or options.start_time, skip_idle_steps=False)


class ScenarioFailed(Exception):
    """Ends a scenario as Failed with this message (never escapes the engine)."""


ProgressCallback = Callable[["ScenarioRun"], None]


class ScenarioRun:
    """One scenario on its own fresh cluster (or on `cluster`, e.g. the one `kubesim serve` serves,
    which the caller has just reset, its clock restarted at options.start_time), step by step."""

    def __init__(self, scenario: Scenario, hooks: Hooks, options: EngineOptions,
                 progress: ProgressCallback | None = None, *, cluster: Cluster | None = None,
                 live: ProgressCallback | None = None, live_interval: float = 0.1) -> None:
        self.hooks = hooks
        self.options = options = _with_simulated_time(options, scenario)
        self.progress = progress
        self.live = live
        """Called during a step (from inside a write: read `counts`, the status, never the cluster),
        at most every `live_interval` seconds of wall time; for a display only."""
        self._live_throttle = Throttle(live_interval)
        self.counts = PodCounts()
        """Pods bound/pending/unschedulable, attempts and events so far (kubesim.scenario.progress)."""
        self.scenario = assign_operation_ids(scenario)
        self.simtime: SimTimeDriver | None = None
        status = self.scenario.status
        status.phase = ScenarioPhase.PENDING
        status.message = None
        status.step_status.step = ScenarioStep(0, 0)
        status.step_status.phase = None
        status.step_status.running_simulation_controller = ""
        status.scenario_result = ScenarioResult(simulator_version=simulator_version())
        if cluster is None:
            self.clock = Clock(options.start_time)
            self.cluster = Cluster(self.clock, seed=options.seed)
        else:
            self.clock, self.cluster = cluster.clock, cluster
            if options.simulated_time is not None and options.simulated_time.start is not None:
                self.clock.restart(options.start_time)  # the scenario's startClock (the cluster was just reset)
        self._admitters = self.cluster.admitters_mark()
        self._unwatch: Callable[[], None] | None = None
        self.stopped = False
        """Set (from another thread) to end the run Failed at its next step (its Scenario was deleted)."""
        self.timeline = TimelineRecorder(lambda: self.scenario.status.step_status.step)
        self.timeline.on_record = self._on_record
        self.controllers: dict[str, Controller] = {}
        self.external_waiters: dict[str, ControllerWaiter] = {}
        self.outside: OutsideControllers | None = None
        self.outside_names: frozenset[str] = frozenset()
        self.simulation: tuple[str, ...] = ()
        self.pre_simulation: tuple[str, ...] = ()
        self._writes = 0  # every committed write: a step's loops must change the cluster
        self._objects = 0  # objects in the cluster, counted from each step's start
        self._guard = LoopGuard(lambda: self._writes)
        # the in-cluster Scenario's spec changed since self.scenario.spec was last read from it
        self._spec_changed = False
        # (spec, its JSON form) as given to the cluster, reused by to_json while the spec stays
        self._spec_json: tuple[ScenarioSpec, dict[str, Any]] | None = None
        self._last_step = -1
        self._sharer = SubtreeSharer()  # equal parts of the objects the scenario creates, stored once
        self._clock_step = 0  # the MajorStep whose start time the clock has reached
        self.log = log.bind(scenario=self.scenario.name)

    # --- public -----------------------------------------------------------

    @property
    def phase(self) -> ScenarioPhase | None:
        """The scenario's phase."""
        return self.scenario.status.phase

    def start(self) -> None:
        """Prepare the cluster and controllers, then run until Paused, Succeeded or Failed."""
        try:
            self._setup()
        except (ScenarioFailed, ApiError, InvalidInput) as exc:
            self._fail(str(exc))
            return
        self.scenario.status.phase = ScenarioPhase.RUNNING
        self.log.info("scenario started", operations=len(self.scenario.spec.operations))
        self._run_steps(first=0)

    def add_operations(self, operations: Sequence[ScenarioOperation]) -> None:
        """Append operations (as a user patching the Scenario would); a paused scenario resumes."""
        obj = self.cluster.get(API_VERSION, "Scenario", self.scenario.name)
        obj["spec"]["operations"].extend(unstructure(list(operations)))
        self.cluster.update(obj, actor="user")
        if self.phase == ScenarioPhase.PAUSED:
            self.scenario.status.phase = ScenarioPhase.RUNNING
            self._run_steps(first=self._last_step + 1)

    def resume(self) -> bool:
        """Go on after a pause when the in-cluster Scenario got operations for later steps
        (a user's patch); False when it is not paused or has none."""
        if self.phase != ScenarioPhase.PAUSED or not self._spec_changed:
            return False
        try:
            later = any(op.step > self._last_step for op in self._operations())
        except ScenarioFailed as exc:
            self._fail(str(exc))
            return True
        if later:
            self.scenario.status.phase = ScenarioPhase.RUNNING
            self._publish(with_result=self.options.update_strategy == "AtMovingNextStep")
            self._run_steps(first=self._last_step + 1)
        return later

    def abort(self, message: str) -> None:
        """End the scenario Failed with `message`, keeping the timeline so far (interrupts, crashes)."""
        if self.phase not in (ScenarioPhase.SUCCEEDED, ScenarioPhase.FAILED, ScenarioPhase.PAUSED):
            self._fail(message)

    def close(self) -> None:
        """Stop every controller's watches, the engine's own and its admission hooks (the cluster may
        outlive the run)."""
        for c in self.controllers.values():
            c.close()
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if self.simtime is not None:
            self.simtime.close()
        self.cluster.drop_admitters(self._admitters)

    # --- setup --------------------------------------------------------------

    def _setup(self) -> None:
        self.cluster.registry.register_crd(SCENARIO_CRD)
        self._unwatch = self.cluster.watch(self._on_write)
        factories = self.hooks.controllers()
        waiters = self.hooks.controller_waiters()
        # outside controllers (kubesim serve --controller NAME) take part only when the scenario names them
        from kubesim.serve.controllers import OutsideSettled
        outside = {n: w.condition.owner for n, w in waiters.items() if isinstance(w.condition, OutsideSettled)}
        spec = self.scenario.spec.controllers
        named = {c.name for c in spec.simulation_controllers.enabled}
        named.update(c.name for c in (spec.pre_simulation_controllers.enabled
                                      if spec.pre_simulation_controllers else ()))
        registered = list(factories) + [n for n in waiters if n not in outside or n in named]
        selection = select_controllers(spec, registered)
        self.simulation, self.pre_simulation = selection.simulation, selection.pre_simulation
        for name in self.simulation:
            if name not in factories and name not in outside:
                raise ScenarioFailed(f"SimulationController {name!r} is not an installed in-process controller "
                                     f"nor an outside one (kubesim serve --controller {name})")
        self.outside_names = frozenset(n for n in self.pre_simulation + self.simulation if n in outside)
        self.outside = next(iter(outside.values()), None)
        self.timeline.outside_actors = self.outside_names
        if self.outside is not None:
            self.outside.attach(self)
        running = [factories[n] for n in self.pre_simulation + self.simulation if n in factories]
        try:
            capabilities = Capabilities.of(c for f in running for c in getattr(f, "provides", ()))
        except ValueError as exc:
            raise ScenarioFailed(str(exc)) from exc
        self.runtime = Runtime(
            self.cluster, self.clock, self.timeline, self.hooks, self.scenario.status.step_status,
            seed=self.options.seed, options=self.options.plugin_options, capabilities=capabilities,
            simulated_time=self.options.simulated_time is not None,
        )
        self.runtime.install_extensions()
        if self.options.simulated_time is not None:
            try:
                self.simtime = SimTimeDriver(self.runtime, self.hooks, self.options.simulated_time,
                                             self.options.step_duration)
            except (SimTimeError, PluginCrashed) as exc:
                raise ScenarioFailed(str(exc)) from exc
            except OSError as exc:
                raise ScenarioFailed(f"metrics: cannot write {exc.filename}: {exc.strerror}") from exc
        problems = validate_scenario(self.scenario, scope=self._scope, allow_unknown_targets=True)
        if problems:
            raise ScenarioFailed("invalid operations: " + "; ".join(str(p) for p in problems))
        obj = self._scenario_object()
        self._spec_json = (self.scenario.spec, obj["spec"])  # shared with the stored object: read-only
        result = self.scenario.status.scenario_result
        if result is not None:
            result.scenario_hash = spec_hash(obj["spec"])
        self.cluster.create(obj, actor=ENGINE_ACTOR, copy=False)
        for name in self.pre_simulation + self.simulation:
            if name in factories:
                try:
                    self.controllers[name] = factories[name](self.runtime)
                except (ApiError, InvalidInput):
                    raise
                except Exception as exc:
                    raise ScenarioFailed(f"controller {name!r} failed to start: {type(exc).__name__}: {exc}") from exc
            else:
                self.external_waiters[name] = waiters[name]

    def _scenario_object(self) -> dict[str, Any]:
        return scenario_object(self.scenario, shared=True)

    # --- the step machine ---------------------------------------------------

    def _set_phase(self, phase: StepPhase) -> None:
        self.scenario.status.step_status.phase = phase

    def _run_steps(self, first: int) -> None:
        major = first
        try:
            while True:
                if self.stopped:
                    raise ScenarioFailed(_DELETED)
                if major > self._clock_step:  # MajorStep N starts N step durations after the start time
                    try:
                        self.clock.advance(self.options.step_duration * (major - self._clock_step))
                    except OverflowError:
                        raise ScenarioFailed(step_after_max_time(major)) from None
                    self._clock_step = major
                ops = self._operations()
                self.scenario.status.step_status.step = ScenarioStep(major, 0)
                self._last_step = major
                done = self._run_step([(i, op) for i, op in enumerate(ops) if op.step == major])
                self._report_progress()
                if self.stopped:  # set during the progress callback (kubesim serve lets requests in there)
                    raise ScenarioFailed(_DELETED)
                if done:
                    self._finish(ScenarioPhase.SUCCEEDED)
                    return
                later = any(op.step > major for op in self._operations())
                if self.simtime is not None:
                    why = self.simtime.finished(major, later)
                    if why is not None:
                        self.log.info("simulated time ended", step=major, reason=why)
                        self._finish(ScenarioPhase.SUCCEEDED)
                        return
                elif not later:
                    self._finish(ScenarioPhase.PAUSED)
                    return
                if self.options.update_strategy == "AtMovingNextStep":
                    self._publish(with_result=True)
                major = major + 1 if self.simtime is not None else self._next_step(major)
        except SimTimeError as exc:
            self._fail(str(exc))
        except ScenarioFailed as exc:
            self._fail(str(exc))
        except PluginCrashed as exc:  # an admission hook, during an operation
            self.log.debug("plugin crashed", exc_info=True)
            self._fail(exc.message)

    def _next_step(self, major: int) -> int:
        """The next MajorStep that can hold work: the next operation's, or an earlier one whose time
        reaches a controller's next wake-up. The steps between would do nothing: skipped in O(1)."""
        target = min(op.step for op in self._operations() if op.step > major)
        if target == major + 1 or self.external_waiters or not self.options.skip_idle_steps:
            return major + 1
        duration = self.options.step_duration
        for controller in self.controllers.values():
            wake = controller.next_wakeup()
            if wake is None:
                continue
            if duration <= timedelta(0):
                return major + 1 if wake <= self.clock.now() else target
            ahead = wake - self.clock.now()  # this step's time; step k starts (k - major) durations on
            steps = max(1, -(-ahead // duration))
            target = min(target, major + steps)
        return target

    def _run_step(self, ops: list[tuple[int, ScenarioOperation]]) -> bool:
        """Run one MajorStep with its (index, operation) pairs; True when it held the done operation."""
        status = self.scenario.status.step_status
        status.running_simulation_controller = ""
        self._set_phase(StepPhase.OPERATING)
        done_op = None
        for index, op in ops:
            if op.done_operation is not None:
                done_op = op
                continue
            self._apply(index, op)
        if self.simtime is not None:  # submitters: after the step's operations, before the scheduler
            self.simtime.submit(status.step.major)
        # bounds on the step's loops (kubesim.controllers.settle), relative to the cluster's size
        self._objects = len(self.cluster.objects())
        limit = self.options.settle_limits.max_objects
        if self._objects > limit:
            raise ScenarioFailed(f"step {status.step.major}: the scenario's operations leave more than "
                                 f"{limit} objects in the cluster (the limit, --max-objects)")
        self._guard = LoopGuard(lambda: self._writes, objects=lambda: self._objects,
                                limits=self.options.settle_limits, label=f"step {status.step.major}")
        self._settle()
        self._set_phase(StepPhase.OPERATING_COMPLETED)
        for name in self.simulation:
            self._run_simulation_controller(name)
        self._set_phase(StepPhase.FINISHED)
        if self.simtime is not None:
            self.simtime.step_ended()
        if done_op is not None and done_op.done_operation is not None:
            self.timeline.record(id=done_op.id, actor="scenario", done=DoneOperationResult(done_op.done_operation))
            return True
        return False

    def _run_simulation_controller(self, name: str) -> None:
        if name in self.outside_names:  # outside: wait for its writes and checkpoints (serve/controllers.py)
            status = self.scenario.status.step_status
            status.running_simulation_controller = name
            self._set_phase(StepPhase.CONTROLLER_RUNNING)
            assert self.outside is not None
            label = f"step {status.step.major}"
            try:
                while self.outside.wait_simulation(name, label):
                    self._tick(name)
                    self._settle()
                    self._set_phase(StepPhase.OPERATING_COMPLETED)
                    self._set_phase(StepPhase.CONTROLLER_RUNNING)
            except NotSettled as exc:
                raise ScenarioFailed(exc.message) from exc
            self._set_phase(StepPhase.CONTROLLER_COMPLETED)
            return
        controller = self.controllers[name]
        waiter = controller.waiter()
        status = self.scenario.status.step_status
        status.running_simulation_controller = name
        self._set_phase(StepPhase.CONTROLLER_RUNNING)
        idle = 0
        while not waiter.satisfied():
            did = self._loop(controller)
            if did:
                self._tick(name)
            if self.hooks.check_scenario_step_phase(name, status):
                self._settle()
                self._set_phase(StepPhase.OPERATING_COMPLETED)
                self._set_phase(StepPhase.CONTROLLER_RUNNING)
            idle = 0 if did else idle + 1
            if idle >= 3 and not waiter.satisfied():
                raise ScenarioFailed(
                    f"SimulationController {name!r} has nothing to do but its waiter is not satisfied"
                )
        self._set_phase(StepPhase.CONTROLLER_COMPLETED)

    def _tick(self, name: str) -> None:
        try:
            self._guard.tick(name)
        except NotSettled as exc:
            raise ScenarioFailed(exc.message) from exc

    def _loop(self, controller: Settleable) -> bool:
        """One loop of `controller`; what its code raises ends the scenario with a message naming it."""
        try:
            return controller.run_once()
        except ScenarioFailed:
            raise
        except PluginCrashed as exc:  # a scheduler plugin or admission hook, named already
            self.log.debug("plugin crashed", controller=controller.name, exc_info=True)
            raise ScenarioFailed(exc.message) from exc
        except ApiError as exc:
            raise ScenarioFailed(f"controller {controller.name!r}: {exc.message}") from exc
        except Exception as exc:
            self.log.debug("controller crashed", controller=controller.name, exc_info=True)
            raise ScenarioFailed(
                crash_message(f'controller "{controller.name}"', exc, type(controller).__module__)) from exc

    def _settle(self) -> None:
        """Run PreSimulationControllers round-robin until none has work and every waiter holds."""
        pre = [self.controllers[n] for n in self.pre_simulation if n in self.controllers]
        external = [self.external_waiters[n] for n in self.pre_simulation
                    if n in self.external_waiters and n not in self.outside_names]
        outside = [n for n in self.pre_simulation if n in self.outside_names]
        try:
            while True:
                settle(pre, external, changes=lambda: self._writes, guard=self._guard, run=self._loop)
                if not outside or self.outside is None:
                    return
                # outside PreSimulationControllers run on their own: wait (lock released) until they settle
                before = self._writes
                self.outside.wait_settled(outside, self._guard.label)
                if self._writes == before:
                    return
                self._guard.tick(outside[0])  # their writes may give in-process controllers work
        except NotSettled as exc:
            raise ScenarioFailed(exc.message) from exc

    # --- operations ---------------------------------------------------------

    def _operations(self) -> list[ScenarioOperation]:
        """The scenario's operations as stored in the cluster (users may add some while it runs).

        The stored spec is read again only after a write to it (watched in `_on_write`).
        """
        if self._spec_changed:
            self._spec_changed = False
            obj = self.cluster.get(API_VERSION, "Scenario", self.scenario.name)
            spec = structure(obj.get("spec") or {}, ScenarioSpec, path="spec")
            scenario = assign_operation_ids(attrs.evolve(self.scenario, spec=spec))
            problems = validate_scenario(scenario, scope=self._scope, allow_unknown_targets=True)
            if problems:
                raise ScenarioFailed("invalid operations added: " + "; ".join(str(p) for p in problems))
            past = [op for op in scenario.spec.operations[len(self.scenario.spec.operations):]
                    if op.step <= self._last_step]
            for op in past:
                self.log.warning("operation added for a past step is ignored", id=op.id, step=op.step)
            self.scenario = attrs.evolve(scenario, status=self.scenario.status)
        return self.scenario.spec.operations

    def _scope(self, api_version: str, kind: str) -> bool | None:
        try:
            return self.cluster.registry.lookup(api_version, kind).namespaced
        except ApiError:
            return None

    def _apply(self, index: int, op: ScenarioOperation) -> None:
        where = f"spec.operations[{index}] (id {op.id}, step {op.step})"
        try:
            if op.create_operation is not None:
                c = op.create_operation
                if c.create_options and "All" in (c.create_options.dry_run or []):
                    return
                # handed over: the result is the stored object, kept read-only in the timeline
                result = self.cluster.create(copy_tree(c.object), actor="scenario", copy=False,
                                             field_validation=_field_validation(c.create_options))
                self._sharer.share_object(result)  # a workload's objects: one spec, one status
                self.timeline.record_create(op.id, CreateOperationResult(c, result), self._operation_json(index, op))
            elif op.patch_operation is not None:
                p = op.patch_operation
                if p.patch_options and "All" in (p.patch_options.dry_run or []):
                    return
                body = parse_patch(p.patch, p.patch_type, p.type_meta)
                result = self.cluster.patch(
                    p.type_meta.api_version, p.type_meta.kind, p.object_meta.name, body,
                    PATCH_TYPES[p.patch_type], namespace=p.object_meta.namespace, actor="scenario",
                    subresource=p.subresource, field_validation=_field_validation(p.patch_options),
                )
                self.timeline.record(id=op.id, actor="scenario", patch=PatchOperationResult(p, result))
            elif op.delete_operation is not None:
                d = op.delete_operation
                opts = d.delete_options
                if opts and "All" in (opts.dry_run or []):
                    return
                if opts and opts.preconditions:
                    self._check_preconditions(d.type_meta.api_version, d.type_meta.kind,
                                              d.object_meta.name, d.object_meta.namespace, opts.preconditions)
                self.cluster.delete(
                    d.type_meta.api_version, d.type_meta.kind, d.object_meta.name, d.object_meta.namespace,
                    actor="scenario",
                    propagation_policy=opts.propagation_policy if opts else None,
                    grace_period_seconds=opts.grace_period_seconds if opts else None,
                )
                self.timeline.record(id=op.id, actor="scenario", delete=DeleteOperationResult(d))
        except ApiError as exc:
            raise ScenarioFailed(f"{where}: {exc.message}") from exc
        except ValueError as exc:
            raise ScenarioFailed(f"{where}: {exc}") from exc

    def _operation_json(self, index: int, op: ScenarioOperation) -> dict[str, Any] | None:
        """The createOperation JSON of spec.operations[index] as published, when that is `op`."""
        spec = self._spec_json
        if spec is None or spec[0] is not self.scenario.spec:
            return None
        ops = spec[1].get("operations") or []
        if index >= len(ops) or self.scenario.spec.operations[index] is not op:
            return None
        found: dict[str, Any] | None = ops[index].get("createOperation")
        return found

    def _check_preconditions(self, api_version: str, kind: str, name: str, namespace: str | None,
                             pre: Any) -> None:
        obj = self.cluster.get(api_version, kind, name, namespace)
        meta = obj["metadata"]
        if pre.uid is not None and pre.uid != meta.get("uid"):
            raise Conflict(f"Precondition failed: UID in precondition: {pre.uid}, UID in object meta: {meta.get('uid')}")
        if pre.resource_version is not None and pre.resource_version != meta.get("resourceVersion"):
            raise Conflict(
                f"Precondition failed: ResourceVersion in precondition: {pre.resource_version}, "
                f"ResourceVersion in object meta: {meta.get('resourceVersion')}"
            )

    # --- watch, results, endings -------------------------------------------

    def _on_write(self, event: WatchEvent) -> None:
        self._writes += 1
        self._objects += (event.type == "ADDED") - (event.type == "DELETED")
        status = self.scenario.status.step_status
        if (event.actor == status.running_simulation_controller
                and status.phase == StepPhase.CONTROLLER_RUNNING):
            # KEP-140 step 5: the SimulationController's write pauses it and moves MinorStep.
            status.phase = StepPhase.CONTROLLER_PAUSED
            status.step = ScenarioStep(status.step.major, status.step.minor + 1)
        obj = event.object
        if (event.type == "MODIFIED" and event.subresource is None and obj.get("kind") == KIND
                and obj.get("apiVersion") == API_VERSION and obj["metadata"].get("name") == self.scenario.name):
            self._spec_changed = True
        self.timeline.observe(event)
        self.counts.on_write(event)
        if self.live is not None and self._live_throttle.due():
            self.live(self)

    def _on_record(self, event: ScenarioTimelineEvent) -> None:
        self.counts.on_record(event)
        if self.live is not None and self._live_throttle.due():
            self.live(self)

    def _status_json(self, *, with_result: bool = True) -> dict[str, Any]:
        """status as JSON data; the timeline is the recorder's, converted once per event."""
        status = self.scenario.status
        result = status.scenario_result
        data: dict[str, Any] = unstructure(attrs.evolve(status, scenario_result=None))
        if result is not None and with_result:
            head = unstructure(attrs.evolve(result, timeline={}, metrics=None))
            head.pop("timeline", None)  # last, after the short fields (simulatorVersion, scenarioHash)
            head.pop("metrics", None)
            data["scenarioResult"] = {**head, "timeline": self.timeline.json()}
            if result.metrics is not None:  # JSON data already, final once written: shared, not copied
                data["scenarioResult"]["metrics"] = list(result.metrics)
        return data

    def to_json(self) -> dict[str, Any]:
        """The Scenario with its status as JSON data: `unstructure(run.scenario)`, built faster.

        Shares the converted timeline with the in-cluster Scenario: never mutate it.
        """
        self._sync_result()
        bare = attrs.evolve(self.scenario.status, scenario_result=None)
        spec = self._spec_json
        if spec is not None and spec[0] is self.scenario.spec:
            data: dict[str, Any] = unstructure(attrs.evolve(self.scenario, spec=ScenarioSpec(), status=bare))
            data["spec"] = spec[1]
        else:
            data = unstructure(attrs.evolve(self.scenario, status=bare))
        data["status"] = self._status_json()
        return data

    def _publish(self, *, with_result: bool) -> None:
        """Write status (and, per UPDATE_SCENARIO_RESULTS_STRATEGY, the result) to the Scenario object.

        Only the status is sent, handed over without copies (it can hold a large timeline).
        """
        status = self._status_json(with_result=with_result)
        if not with_result:  # keep the result published before, if any
            name = self.scenario.name
            stored = next(o for o in self.cluster.list(API_VERSION, KIND) if o["metadata"]["name"] == name)
            previous = (stored.get("status") or {}).get("scenarioResult")
            if previous is not None:
                status["scenarioResult"] = previous
        obj = {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": self.scenario.name}, "status": status}
        self.cluster.update(obj, actor=ENGINE_ACTOR, subresource="status", copy=False)

    def _sync_result(self) -> None:
        result = self.scenario.status.scenario_result
        assert result is not None
        result.timeline = self.timeline.timeline
        if self.simtime is not None:
            result.metrics = self.simtime.records

    def _report_progress(self) -> None:
        self._sync_result()
        if self.progress is not None:
            self.progress(self)

    def _finish(self, phase: ScenarioPhase) -> None:
        self.scenario.status.phase = phase
        self._sync_result()
        strategy = self.options.update_strategy
        with_result = strategy != "OnDone" or phase in (ScenarioPhase.SUCCEEDED, ScenarioPhase.FAILED)
        self._publish(with_result=with_result)
        self.log.info("scenario ended", phase=phase.value, step=self.scenario.status.step_status.step.major,
                      events=self.timeline.event_count())

    def _fail(self, message: str) -> None:
        self.scenario.status.message = message
        self.log.error("scenario failed", message=message)
        try:
            self._finish(ScenarioPhase.FAILED)
        except Exception:  # the cluster may be unusable; the in-memory result still stands
            self.scenario.status.phase = ScenarioPhase.FAILED
            self._sync_result()


class Simulator:
    """Runs scenarios one at a time in the given (creation) order."""

    def __init__(self, hooks: Hooks, options: EngineOptions | None = None,
                 progress: ProgressCallback | None = None, *, live: ProgressCallback | None = None,
                 live_interval: float = 0.1) -> None:
        self.hooks = hooks
        self.options = options or EngineOptions()
        self.progress = progress
        """Called after each MajorStep."""
        self.live = live
        """Called during steps, at most every `live_interval` seconds (ScenarioRun.live)."""
        self.live_interval = live_interval
        self.runs: list[ScenarioRun] = []

    def run(self, scenarios: Sequence[Scenario]) -> list[Scenario]:
        """Run every scenario; each ends Succeeded, Paused or Failed. Returns them with status."""
        out = []
        for scenario in scenarios:
            run = ScenarioRun(scenario, self.hooks, self.options, self.progress, live=self.live,
                              live_interval=self.live_interval)
            self.runs.append(run)
            try:
                with fewer_full_collections():
                    run.start()
            except KeyboardInterrupt as exc:
                run.abort(f"interrupted ({signal_name(exc)})")
                raise
            except Exception as exc:  # a bug in one scenario must not lose the others' results
                log.debug("scenario crashed", scenario=run.scenario.name, exc_info=True)
                run.abort(f"internal error: {type(exc).__name__}: {exc}")
            finally:
                run.close()
            out.append(run.scenario)
        return out
