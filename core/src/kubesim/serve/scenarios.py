"""The scenario controller of `kubesim serve` (KEP-140): Scenarios created through the API run here.

One engine thread. A Scenario created by a client is queued (status.phase Pending) and run
in creation order, one at a time, on the server's one cluster: its start resets the cluster
(KEP-140: "all resources created before starting a scenario are deleted at the start of the
scenario"; the other Scenarios are kept) so uids and resourceVersions restart and the timeline
is the one `kubesim run` writes for the same file. The thread holds `ServerState.lock` while it
computes a MajorStep (requests wait: the determinism guarantee) and lets requests in between
steps. A Paused scenario waits for operations added to its spec (a patch or edit); an added
operation for a step already run is refused at admission (422). Deleting a running Scenario
ends it. Between scenarios ("live" mode) the installed in-process controllers react to writes
as on a real cluster: whenever the cluster changed and the thread is idle, they settle.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from collections.abc import Callable
from typing import Any

import attrs
import structlog

from kubesim.api import API_VERSION, KIND, Scenario, ScenarioPhase, ScenarioStep, StepPhase
from kubesim.api.loader import parse_scenarios
from kubesim.api.validation import validate_scenario
from kubesim.clock import parse_time
from kubesim.cluster import Cluster, WatchEvent
from kubesim.cluster.admission import AdmissionRequest, AdmissionResponse
from kubesim.controllers import Capabilities, Controller, Runtime
from kubesim.controllers.settle import NotSettled, Settleable, settle
from kubesim.errors import ApiError, InvalidInput
from kubesim.k8s.validation import FieldError, invalid, invalid_error
from kubesim.plugins import Hooks
from kubesim.scenario.engine import ENGINE_ACTOR, EngineOptions, ScenarioRun
from kubesim.scenario.recorder import TimelineRecorder
from kubesim.serve.state import ServerState

__all__ = ["RESTARTED_MESSAGE", "LiveControllers", "ScenarioController", "scenario_from_object"]

log = structlog.get_logger(__name__)

RESTARTED_MESSAGE = "the controller restarted while the Scenario was running"
"""KEP-140 ("The case kube-apiserver has Scenarios when the scenario controller starts to run")."""

_GROUP_KIND = "Scenario.simulation.kube-scheduler-simulator.x-k8s.io"
_SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                  "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
_YIELD_EVERY = 0.02
"""Seconds of engine work after which, between two MajorSteps, waiting requests get the lock."""
_IDLE_POLL = 1.0
"""Seconds the idle thread sleeps when nothing wakes it (only a safety net: writes wake it)."""
_MAX_JUMPS = 100
"""Clock jumps to graceful deletions' ends in one live-mode settle, at most."""
_GIVE_WAY_MAX = 0.05
"""Seconds live mode lets requests in before its next controller loop, at most."""
_QUIET = 0.002
"""Seconds without a request after which live mode runs its next controller loop."""


def _is_scenario(obj: dict[str, Any]) -> bool:
    return obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION


def scenario_from_object(obj: dict[str, Any]) -> Scenario:
    """The Scenario a stored object describes (server-set metadata and status left out); InvalidInput."""
    doc = {k: v for k, v in obj.items() if k != "status"}
    doc["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_FIELDS}
    return parse_scenarios([doc])[0]


def _scenario_errors(cluster: Cluster, obj: dict[str, Any]) -> list[FieldError | str]:
    """What is wrong with a Scenario a client writes (as `kubesim validate` finds it, but targets of
    patches and deletes may be objects controllers create), as kube-apiserver's field errors."""
    try:
        scenario = scenario_from_object(obj)
    except InvalidInput as exc:
        return [f"{p.path}: {p.message}" for p in exc.problems]

    def scope(api_version: str, kind: str) -> bool | None:
        try:
            return cluster.registry.lookup(api_version, kind).namespaced
        except ApiError:
            return None

    problems = validate_scenario(scenario, scope=scope, allow_unknown_targets=True)
    return [f"{p.path}: {p.message}" for p in problems]


def _without_id(op: Any) -> Any:
    return {k: v for k, v in op.items() if k != "id"} if isinstance(op, dict) else op


class LiveControllers:
    """The installed in-process controllers on the served cluster between scenarios (live mode).

    Every controller runs as a PreSimulationController: `settle` runs them round-robin until
    none has work. The clock moves only to finish graceful pod deletions: when the controllers
    have settled and a deleted pod waits for its grace period, the clock jumps to its
    deletionTimestamp (so `kubectl delete pod` returns at once, as if the kubelet were quick).
    Their timeline is not kept (no scenario records it).
    """

    def __init__(self, cluster: Cluster, hooks: Hooks, options: EngineOptions,
                 give_way: Callable[[], None] = lambda: None) -> None:
        self.cluster = cluster
        self._give_way = give_way
        self._admitters = cluster.admitters_mark()
        self._writes = 0
        self._objects = len(cluster.objects())  # then counted from the events, as the engine does
        self._terminating: dict[tuple[str, str], str] = {
            (p["metadata"].get("namespace") or "", p["metadata"]["name"]): p["metadata"]["deletionTimestamp"]
            for p in cluster.list("v1", "Pod") if p["metadata"].get("deletionTimestamp")}
        """Pods waiting for their grace period: (namespace, name) -> deletionTimestamp."""
        self._unwatch = cluster.watch(self._count)
        self._timeline = TimelineRecorder(lambda: ScenarioStep(0, 0))
        factories = hooks.controllers()
        provided = (c for f in factories.values() for c in getattr(f, "provides", ()))
        try:
            capabilities = Capabilities.of(provided)
        except ValueError:
            capabilities = Capabilities()
        self.runtime = Runtime(cluster, cluster.clock, self._timeline, hooks, _LiveGate(), seed=options.seed,
                               options=options.plugin_options, capabilities=capabilities)
        self.runtime.install_extensions()
        self.controllers: list[Controller] = []
        for name in sorted(factories):
            try:
                self.controllers.append(factories[name](self.runtime))
            except Exception as exc:  # one plugin's failure must not keep the others from running
                log.error("live mode: controller failed to start", controller=name,
                          error=f"{type(exc).__name__}: {exc}")
        self.limits = options.settle_limits

    def _count(self, event: WatchEvent) -> None:
        self._writes += 1
        self._objects += (event.type == "ADDED") - (event.type == "DELETED")
        obj = event.object
        if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
            meta = obj["metadata"]
            key = (meta.get("namespace") or "", meta["name"])
            if event.type != "DELETED" and meta.get("deletionTimestamp"):
                self._terminating[key] = meta["deletionTimestamp"]
            else:
                self._terminating.pop(key, None)

    def _next_deletion(self) -> datetime | None:
        """The earliest deletionTimestamp still ahead of the clock, if a pod waits for one."""
        now = self.cluster.clock.now()
        ahead = [t for t in map(parse_time, self._terminating.values()) if t > now]
        return min(ahead) if ahead else None

    def settle(self) -> None:
        """Run the controllers until none has work, moving the clock to graceful deletions'
        ends (at most _MAX_JUMPS times); failures are logged, never raised."""
        try:
            for _ in range(_MAX_JUMPS):
                settle(self.controllers, changes=lambda: self._writes, limits=self.limits,
                       objects=lambda: self._objects, run=self._run_once)
                deadline = self._next_deletion()
                if deadline is None:
                    break
                self.cluster.clock.advance_to(deadline)
        except NotSettled as exc:
            log.warning("live mode: controllers did not settle", message=exc.message)
        except Exception as exc:
            log.error("live mode: a controller failed", error=f"{type(exc).__name__}: {exc}")
        self._timeline.timeline.clear()  # bounded: nothing reads the live timeline

    def _run_once(self, controller: Settleable) -> bool:
        self._give_way()
        return controller.run_once()

    def close(self) -> None:
        """Stop the controllers' watches and remove their admission hooks."""
        for c in self.controllers:
            c.close()
        self._unwatch()
        self.cluster.drop_admitters(self._admitters)


class _Stopping(Exception):
    """The server stops: the engine thread leaves the running scenario between two steps."""


@attrs.define
class _LiveGate:
    """The step status live controllers see: step 0, no scenario phase."""

    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


class ScenarioController:
    """Queues the Scenarios clients create and runs them in a thread; live mode in between."""

    def __init__(self, state: ServerState, hooks: Hooks, options: EngineOptions, *,
                 live: bool = True, persist: Callable[[], object] | None = None) -> None:
        self.state = state
        self.hooks = hooks
        self.options = options
        self.live_enabled = live
        self.persist = persist
        self.current: ScenarioRun | None = None
        self._live: LiveControllers | None = None
        self._queue: list[str] = []  # names of Scenarios waiting, in creation order
        self._to_mark: list[str] = []  # newly queued: status.phase Pending still to be written
        self._dirty = False  # a client wrote since live mode last settled
        self._settling = False  # live controllers are writing: their writes do not call for another settle
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name="kubesim-scenarios", daemon=True)
        self._last_yield = 0.0
        with state.locked() as cluster:
            cluster.add_admitter(self._admit, phase="validating")
            cluster.watch(self._on_write)
            waiting = [o for o in cluster.list(API_VERSION, KIND)
                       if (o.get("status") or {}).get("phase") in (None, "", ScenarioPhase.PENDING.value)]
            waiting.sort(key=lambda o: int(o["metadata"]["resourceVersion"]))
            self._queue = [o["metadata"]["name"] for o in waiting]

    # --- lifecycle ------------------------------------------------------------------

    def start(self) -> None:
        """Start the engine thread."""
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread (a running scenario after the MajorStep it computes, left Running)
        and wait for it up to `timeout` seconds."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

    def mark_restarted(self) -> None:
        """KEP-140: Scenarios found Running (or Paused) at start become Failed with RESTARTED_MESSAGE."""
        with self.state.locked() as cluster:
            for obj in cluster.list(API_VERSION, KIND):
                status = dict(obj.get("status") or {})
                if status.get("phase") in (ScenarioPhase.RUNNING.value, ScenarioPhase.PAUSED.value):
                    status.update(phase=ScenarioPhase.FAILED.value, message=RESTARTED_MESSAGE)
                    body = {"apiVersion": API_VERSION, "kind": KIND,
                            "metadata": {"name": obj["metadata"]["name"]}, "status": status}
                    cluster.update(body, actor=ENGINE_ACTOR, subresource="status")

    # --- events and admission (lock held) -------------------------------------------------

    def _on_write(self, event: WatchEvent) -> None:
        obj = event.object
        if event.actor == ENGINE_ACTOR:
            return
        if _is_scenario(obj):
            name = obj["metadata"]["name"]
            run = self.current
            if event.type == "ADDED":
                self._queue.append(name)
                self._to_mark.append(name)
            elif event.type == "DELETED":
                if name in self._queue:
                    self._queue.remove(name)
                if run is not None and run.scenario.name == name:
                    run.stopped = True
        elif self.current is None and not self._settling:
            self._dirty = True
        self._wake.set()

    def _admit(self, request: AdmissionRequest) -> AdmissionResponse | None:
        """Refuse invalid Scenarios and operations added to a running one for steps already run."""
        obj = request.object
        if (request.operation not in ("CREATE", "UPDATE") or request.subresource is not None or obj is None
                or request.actor == ENGINE_ACTOR or not _is_scenario(obj)):
            return None
        errors = _scenario_errors(self.state.cluster, obj)
        run = self.current
        if (not errors and request.operation == "UPDATE" and run is not None and run.scenario.name == request.name
                and run.phase in (ScenarioPhase.RUNNING, ScenarioPhase.PAUSED)):
            errors = self._past_steps(obj, request.old_object or {}, run)
        if errors:
            raise invalid_error(_GROUP_KIND, request.name, errors)
        return None

    @staticmethod
    def _past_steps(obj: dict[str, Any], old: dict[str, Any], run: ScenarioRun) -> list[FieldError | str]:
        # an operation already there (its id aside: a merge patch re-sends the list without ids) is not new
        before = [_without_id(op) for op in (old.get("spec") or {}).get("operations") or []]
        ops = (obj.get("spec") or {}).get("operations") or []
        current = run.scenario.status.step_status.step.major
        errors: list[FieldError | str] = []
        for i, op in enumerate(ops):
            if not isinstance(op, dict):
                continue
            if _without_id(op) in before:
                before.remove(_without_id(op))
                continue
            step = op.get("step", 0)
            if isinstance(step, int) and step <= current:
                errors.append(invalid(
                    f"spec.operations[{i}].step", step,
                    f"the scenario is at step {current} ({run.phase.value if run.phase else ''}): "
                    f"an added operation must be for a later step"))
        return errors

    # --- the thread ---------------------------------------------------------------------

    def _main(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(_IDLE_POLL)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                with self.state.lock:
                    self._work()
            except Exception:  # never kill the server: log, and go on with the next scenario
                log.exception("scenario controller error")
                self.current = None
        with self.state.lock:
            if self._live is not None:
                self._live.close()
                self._live = None

    def _work(self) -> None:
        cluster = self.state.cluster
        while self._to_mark:
            self._mark_pending(cluster, self._to_mark.pop(0))
        run = self.current
        if run is not None:
            if run.stopped:
                run.abort("the Scenario was deleted")
            elif run.phase == ScenarioPhase.PAUSED:
                run.resume()
            if run.phase in (ScenarioPhase.SUCCEEDED, ScenarioPhase.FAILED) or run.stopped:
                run.close()
                self.current = None
                self._dirty = False
                self._save()
        if self.current is None and self._queue:
            self._start(self._queue.pop(0))
            return
        if self.current is None and self._dirty and self.live_enabled:
            self._dirty = False
            if self._live is None:
                self._live = LiveControllers(cluster, self.hooks, self.options, self._give_way)
            self._settling = True
            try:
                self._live.settle()
            finally:
                self._settling = False
        self._save()

    def _mark_pending(self, cluster: Cluster, name: str) -> None:
        body = {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name},
                "status": {"phase": ScenarioPhase.PENDING.value}}
        try:
            cluster.update(body, actor=ENGINE_ACTOR, subresource="status")
        except ApiError:  # deleted meanwhile
            pass

    def _start(self, name: str) -> None:
        cluster = self.state.cluster
        try:
            obj = cluster.get(API_VERSION, KIND, name)
        except ApiError:
            return
        try:
            scenario = scenario_from_object(obj)
        except InvalidInput as exc:
            self._fail_stored(cluster, name, "invalid Scenario: " + "; ".join(str(p) for p in exc.problems))
            return
        if self._live is not None:
            self._live.close()
            self._live = None
        kept = [o for o in cluster.list(API_VERSION, KIND) if o["metadata"]["name"] != name]
        self.state.reset_cluster()
        cluster.clock.restart(self.options.start_time)
        cluster.restore(kept)
        run = ScenarioRun(scenario, self.hooks, self.options, self._between_steps, cluster=cluster)
        self.current = run
        log.info("scenario starting", scenario=name)
        self._last_yield = time.monotonic()
        try:
            run.start()
        except _Stopping:  # left Running: the state saved on shutdown says so, and a restart fails it
            log.info("scenario left running: the server stops", scenario=name)
            run.close()
            return
        except Exception as exc:  # a bug in one scenario must not stop the server
            log.debug("scenario crashed", scenario=name, exc_info=True)
            run.abort(f"internal error: {type(exc).__name__}: {exc}")
        self._save()
        self._wake.set()  # ended, paused or deleted: look again at once

    def _fail_stored(self, cluster: Cluster, name: str, message: str) -> None:
        body = {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name},
                "status": {"phase": ScenarioPhase.FAILED.value, "message": message}}
        try:
            cluster.update(body, actor=ENGINE_ACTOR, subresource="status")
        except ApiError:
            pass

    def _between_steps(self, run: ScenarioRun) -> None:
        """After each MajorStep (lock held): mark newly queued Scenarios Pending, save, and let
        waiting requests in now and then."""
        if self._stop.is_set():
            raise _Stopping()
        while self._to_mark:
            self._mark_pending(self.state.cluster, self._to_mark.pop(0))
        now = time.monotonic()  # real time only decides when requests get in, never a result
        if now - self._last_yield < _YIELD_EVERY:
            return
        self._save()
        self.state.changed.wait(0.001)  # releases the lock (all levels) for waiting requests
        self._last_yield = time.monotonic()

    def _give_way(self) -> None:
        """Between two controller loops of live mode (lock held): while requests come (one waits
        for the lock, or the last came less than _QUIET s ago), let them in, for at most
        _GIVE_WAY_MAX s at a time. API requests are answered first, as an API server never waits
        for its scheduler, and the controllers still make progress under constant load."""
        state = self.state
        deadline = time.monotonic() + _GIVE_WAY_MAX  # real time only decides when requests get in
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= deadline or (not state.waiting and now - state.last_request >= _QUIET):
                break
            state.changed.wait(min(deadline - now, _QUIET))

    def _save(self) -> None:
        if self.persist is not None:
            try:
                self.persist()
            except Exception as exc:
                log.error("could not save the state", error=f"{type(exc).__name__}: {exc}")
