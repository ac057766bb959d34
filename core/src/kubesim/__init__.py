"""kubesim: a deterministic, scenario-based simulator for Kubernetes schedulers and controllers.

The public API for plugin authors: `hookimpl` to implement hooks, the controller
runtime (`Controller`, `ReconcileController`, `ControllerWaiter`, ...) and the
Scenario API types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesim.lazy import lazy_getattr

if TYPE_CHECKING:
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

# Imported on first use, so that `import kubesim` (and the `kubesim` command's start, which
# must answer SIGINT without a traceback) stays cheap.
_LAZY = {
    "ApiError": "kubesim.errors",
    "Capabilities": "kubesim.controllers",
    "Client": "kubesim.controllers",
    "Clock": "kubesim.clock",
    "ClusterReader": "kubesim.controllers",
    "Controller": "kubesim.controllers",
    "ControllerWaiter": "kubesim.controllers",
    "InvalidInput": "kubesim.errors",
    "PodResult": "kubesim.api",
    "Problem": "kubesim.errors",
    "ReconcileController": "kubesim.controllers",
    "Recorder": "kubesim.controllers",
    "Runtime": "kubesim.controllers",
    "Scenario": "kubesim.api",
    "ScenarioPhase": "kubesim.api",
    "ScenarioPluginsResults": "kubesim.api",
    "ScenarioPluginsScoreResult": "kubesim.api",
    "ScenarioPodScheduleResult": "kubesim.api",
    "ScenarioStep": "kubesim.api",
    "StepGate": "kubesim.controllers",
    "StepPhase": "kubesim.api",
    "WorkQueue": "kubesim.controllers",
    "hookimpl": "kubesim.plugins",
    "hookspec": "kubesim.plugins",
}


__getattr__ = lazy_getattr(__name__, globals(), _LAZY)


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
