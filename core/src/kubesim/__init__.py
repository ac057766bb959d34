"""kubesim: a deterministic, scenario-based simulator for Kubernetes schedulers and controllers.

The public API for plugin authors: `hookimpl` to implement hooks, the controller
runtime (`Controller`, `ReconcileController`, `ControllerWaiter`, ...) and the
Scenario API types.
"""

from kubesim.api import (
    PodResult,
    Scenario,
    ScenarioPhase,
    ScenarioPluginsResults,
    ScenarioPluginsScoreResult,
    ScenarioPodScheduleResult,
    ScenarioStep,
    StepPhase,
)
from kubesim.clock import Clock
from kubesim.controllers import (
    Client,
    Capabilities,
    ClusterReader,
    Controller,
    ControllerWaiter,
    ReconcileController,
    Recorder,
    Runtime,
    StepGate,
    WorkQueue,
)
from kubesim.errors import ApiError, InvalidInput, Problem
from kubesim.plugins import hookimpl, hookspec

__all__ = [
    "ApiError",
    "Client",
    "Clock",
    "Capabilities",
    "ClusterReader",
    "Controller",
    "ControllerWaiter",
    "InvalidInput",
    "PodResult",
    "Problem",
    "ReconcileController",
    "Recorder",
    "Runtime",
    "Scenario",
    "ScenarioPhase",
    "ScenarioPluginsResults",
    "ScenarioPluginsScoreResult",
    "ScenarioPodScheduleResult",
    "ScenarioStep",
    "StepGate",
    "StepPhase",
    "WorkQueue",
    "hookimpl",
    "hookspec",
]
