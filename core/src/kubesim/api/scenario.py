"""The Scenario API of KEP-140 (latest revision) as attrs classes.

Field names are Python snake_case; `kubesim.api.converter` maps them to the
Kubernetes camelCase JSON names. Unstructured Kubernetes objects stay plain dicts.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from kubesim.api.converter import register_enum
from kubesim.api.operations import ScenarioOperation, ScenarioStep
from kubesim.api.timeline import ScenarioResult
from kubesim.errors import InvalidInput, Problem

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
class ScenarioSpec:
    """Operations to run and the controllers that take part."""

    operations: list[ScenarioOperation] = attrs.field(factory=list)
    controllers: Controllers = attrs.field(factory=Controllers)


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
