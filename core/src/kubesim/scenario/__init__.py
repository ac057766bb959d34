"""The scenario controller (engine), its timeline recorder and controller selection."""

from kubesim.scenario.engine import (
    SCENARIO_CRD,
    UPDATE_STRATEGIES,
    EngineOptions,
    ScenarioRun,
    Simulator,
    simulator_version,
)
from kubesim.scenario.recorder import TimelineRecorder
from kubesim.scenario.selection import ControllerSelection, select_controllers

__all__ = [
    "SCENARIO_CRD",
    "UPDATE_STRATEGIES",
    "ControllerSelection",
    "EngineOptions",
    "ScenarioRun",
    "Simulator",
    "TimelineRecorder",
    "select_controllers",
    "simulator_version",
]
