"""The migration controller as a KEP-140 SimulationController (`pod-migration`).

List it in a scenario's `spec.controllers.simulationControllers` (after the scheduler) to run
the fork's controller once per tick on the cluster as it is after scheduling, with the metrics
of that moment. Without --job-trace it adopts every running simSpec pod of namespace default as
a job, so pods from a scenario's operations migrate too; with --job-trace --migrate it takes
over the trace's migration submitter (which then stops), so nothing migrates twice. Writes go
through the API as actor `pod-migration`: the frozen-at annotation, the new pod, the delete.
"""

from __future__ import annotations

import random
import weakref
from typing import TYPE_CHECKING, Any

from kubesim.controllers import Controller, ControllerWaiter
from kubesim.errors import NotFound
from kubesim.simtime import FROZEN_AT_ANNOTATION, DeleteEvent, FreezeUsageEvent, SubmitEvent, SubmitterEvent, Tick
from kubesim.simtime.metrics import collect

from kubesim_pod_migration.submitters import MigrationSubmitter, TraceBook

if TYPE_CHECKING:
    from datetime import datetime

    from kubesim.controllers import Runtime

__all__ = ["CONTROLLER_NAME", "MigrationSimulationController", "register_trace_migration"]

CONTROLLER_NAME = "pod-migration"

_TRACE_MIGRATIONS: weakref.WeakKeyDictionary[Any, MigrationSubmitter] = weakref.WeakKeyDictionary()


def register_trace_migration(runtime: Runtime, submitter: MigrationSubmitter) -> None:
    """Let a SimulationController of this run take over the trace's migration submitter."""
    _TRACE_MIGRATIONS[runtime] = submitter


class MigrationSimulationController(Controller):
    """One pass of the migration controller per tick (see the module docstring)."""

    name = CONTROLLER_NAME

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        self._migration: MigrationSubmitter | None = None
        self._done_at: datetime | None = None
        self._listed = False  # seen running as a SimulationController: the lists are fixed for the run
        self._rng = random.Random(runtime.seed)

    def _migrator(self) -> MigrationSubmitter:
        if self._migration is None:
            from kubesim_pod_migration.trace_run import build_migration

            trace = _TRACE_MIGRATIONS.get(self.runtime)
            if trace is not None:
                trace.delegated = True  # the trace's submitter stops; this controller runs its migrations
                self._migration = trace
            else:
                self._migration = build_migration(self.runtime, TraceBook([], adopt=True), actor=self.name)
        return self._migration

    def _enabled(self) -> bool:
        """True while the engine runs this controller as a SimulationController (not as a
        PreSimulationController, which every installed controller is unless listed)."""
        return self.runtime.step_status.running_simulation_controller == self.name

    def run_once(self) -> bool:
        now = self.runtime.clock.now()
        if self._done_at == now or not self._enabled():
            return False
        self._listed = True
        self._done_at = now
        migration = self._migrator()
        reader = self.runtime.reader
        tick = Tick(clock=now, step=self.runtime.recorder.step.major, nodes=reader.list("v1", "Node"),
                    pods=reader.list("v1", "Pod"), metrics=collect(reader, now), rng=self._rng)
        wrote = False
        for event in migration.plan(tick):
            wrote = self._apply(event) or wrote
        return wrote

    def _apply(self, event: SubmitterEvent) -> bool:
        if isinstance(event, FreezeUsageEvent):
            pod = self.client.get("v1", "Pod", event.name, event.namespace)
            annotations = pod["metadata"].setdefault("annotations", {})
            if FROZEN_AT_ANNOTATION in annotations:
                return False
            annotations[FROZEN_AT_ANNOTATION] = self.runtime.clock.timestamp()
            self.client.update(pod)
        elif isinstance(event, SubmitEvent):
            self.client.create(dict(event.pod))
        elif isinstance(event, DeleteEvent):
            try:
                self.client.delete("v1", "Pod", event.name, event.namespace)
            except NotFound:
                return False
        else:
            return False
        return True

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: not self._enabled() or self._done_at == self.runtime.clock.now())

    def next_wakeup(self) -> datetime | None:
        """Every step while listed as a SimulationController (its policies read the usage history);
        never otherwise, so an installed but unlisted controller does not stop idle steps being skipped."""
        return self.runtime.clock.now() if self._listed else None
