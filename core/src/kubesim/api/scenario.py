"""The Scenario API of KEP-140 (latest revision) as attrs classes.

Field names are Python snake_case; `kubesim.api.converter` maps them to the
Kubernetes camelCase JSON names. Unstructured Kubernetes objects stay plain dicts.
"""

from __future__ import annotations

import enum
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import attrs

from kubesim.api.converter import register_enum
from kubesim.api.operations import ScenarioOperation, ScenarioStep
from kubesim.api.timeline import ScenarioResult
from kubesim.errors import InvalidInput, Problem

if TYPE_CHECKING:
    from kubesim.simtime.options import SimTimeOptions

__all__ = [
    "API_VERSION",
    "KIND",
    "Controller",
    "ControllerSet",
    "Controllers",
    "Scenario",
    "ScenarioPhase",
    "ScenarioSpec",
    "ScenarioStatus",
    "ScenarioStepStatus",
    "SimulatedTime",
    "StepPhase",
    "check_required_controllers",
]

API_VERSION = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
KIND = "Scenario"


class StepPhase(str, enum.Enum):
    """Where a MajorStep is in its life (KEP-140 StepPhase)."""

    OPERATING = "Operating"
    OPERATING_COMPLETED = "OperatingCompleted"
    CONTROLLER_RUNNING = "ControllerRunning"
    CONTROLLER_PAUSED = "ControllerPaused"
    CONTROLLER_COMPLETED = "ControllerCompleted"
    FINISHED = "Finished"


register_enum(StepPhase)


class ScenarioPhase(str, enum.Enum):
    """Where a Scenario is in its life (KEP-140 ScenarioPhase)."""

    PENDING = "Pending"
    RUNNING = "Running"
    PAUSED = "Paused"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"


register_enum(ScenarioPhase)


@attrs.frozen
class Controller:
    """A controller reference by name ("*" in disabled means all)."""

    name: str


@attrs.frozen
class ControllerSet:
    """Enabled and disabled controllers."""

    enabled: list[Controller] = attrs.field(factory=list)
    disabled: list[Controller] = attrs.field(factory=list)


def check_required_controllers(doc: Any) -> None:
    """KEP-140 makes spec.controllers and its simulationControllers required ("no controllers
    will be enabled automatically"): InvalidInput when a Scenario document leaves them out."""
    spec = doc.get("spec") if isinstance(doc, dict) else None
    if not isinstance(spec, dict):
        return  # the converter reports a missing or wrong spec
    controllers = spec.get("controllers")
    hint = "the controllers under test, e.g. {enabled: [{name: scheduler}]}, or {enabled: []} for none"
    if controllers is None:
        raise InvalidInput([Problem("spec.controllers", f"required: simulationControllers lists {hint}")])
    if isinstance(controllers, dict) and controllers.get("simulationControllers") is None:
        raise InvalidInput([Problem("spec.controllers.simulationControllers", f"required: {hint}")])


@attrs.frozen
class Controllers:
    """PreSimulationControllers (all registered by default) and the SimulationControllers under test."""

    simulation_controllers: ControllerSet = attrs.field(factory=ControllerSet)
    pre_simulation_controllers: ControllerSet | None = None


@attrs.frozen
class SimulatedTime:
    """A kubesim extension (issue 14): run the scenario in simulated time.

    Every MajorStep is a tick of `tick`; the run goes on past the last operation until no
    pod is pending, running or terminating and every submitter has terminated, or `until`.
    Durations are Go durations ("10s"); `until` is a step number ("120"), an RFC 3339 time
    or a duration after the start ("10h"). What `kubesim run` gives explicitly wins.
    """

    tick: str | None = None
    start_clock: str | None = None
    metrics_tick: str | None = None
    until: str | None = None
    max_ticks: int | None = None

    def problems(self) -> list[tuple[str, str]]:
        """(field, message) for every value that cannot be used."""
        out: list[tuple[str, str]] = []
        try:
            self.options()
        except _FieldError as exc:
            out.append((exc.field, exc.message))
        return out

    def options(self) -> SimTimeOptions:
        """The engine's options; _FieldError (a ValueError) names the field that is wrong."""
        from kubesim.cli.params import parse_duration
        from kubesim.simtime.options import SimTimeOptions, parse_until

        def duration(field: str, text: str | None) -> timedelta | None:
            try:
                return parse_duration(text) if text is not None else None
            except ValueError as exc:
                raise _FieldError(field, str(exc)) from None

        tick = duration("tick", self.tick)
        metrics_tick = duration("metricsTick", self.metrics_tick)
        start = None
        if self.start_clock is not None:
            try:
                start = datetime.fromisoformat(self.start_clock.replace("Z", "+00:00"))
            except ValueError:
                raise _FieldError("startClock", f"{self.start_clock!r} is not an RFC 3339 time "
                                                "(expected e.g. 2025-01-01T00:00:00Z)") from None
            if start.tzinfo is None:
                raise _FieldError("startClock", f"{self.start_clock!r} has no time zone (add Z or an offset)")
        try:
            until = parse_until(self.until) if self.until is not None else None
        except ValueError as exc:
            raise _FieldError("until", str(exc)) from None
        if self.max_ticks is not None and self.max_ticks < 1:
            raise _FieldError("maxTicks", f"must be 1 or more, got {self.max_ticks}")
        return SimTimeOptions(tick=tick, start=start, metrics_tick=metrics_tick, until=until,
                              max_ticks=self.max_ticks, zone=start.tzinfo if start is not None else None)


class _FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@attrs.frozen
class ScenarioSpec:
    """Operations to run and the controllers that take part."""

    operations: list[ScenarioOperation] = attrs.field(factory=list)
    controllers: Controllers = attrs.field(factory=Controllers)
    simulated_time: SimulatedTime | None = None
    """kubesim extension: run in simulated time (see SimulatedTime)."""


@attrs.define
class ScenarioStepStatus:
    """The current step, its phase and the SimulationController in charge."""

    step: ScenarioStep = attrs.field(factory=ScenarioStep)
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


@attrs.define
class ScenarioStatus:
    """Observed state of a Scenario."""

    phase: ScenarioPhase | None = None
    message: str | None = None
    step_status: ScenarioStepStatus = attrs.field(factory=ScenarioStepStatus)
    scenario_result: ScenarioResult | None = None


@attrs.define
class Scenario:
    """The Scenario resource (cluster-scoped)."""

    api_version: str = API_VERSION
    kind: str = KIND
    metadata: dict[str, Any] = attrs.field(factory=dict)
    spec: ScenarioSpec = attrs.field(factory=ScenarioSpec)
    status: ScenarioStatus = attrs.field(factory=ScenarioStatus)

    @property
    def name(self) -> str:
        """metadata.name ("" when unset)."""
        return str(self.metadata.get("name", ""))
