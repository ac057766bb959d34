"""The core's CheckScenarioStepPhase (KEP-140), registered as a built-in plugin."""

from __future__ import annotations

from kubesim.api import StepPhase
from kubesim.controllers import StepGate
from kubesim.plugins.markers import hookimpl


@hookimpl(trylast=True)
def kubesim_check_scenario_step_phase(controller_name: str, gate: StepGate) -> bool:
    """Pause `controller_name` when it is the running SimulationController and the step is paused."""
    return gate.phase == StepPhase.CONTROLLER_PAUSED and gate.running_simulation_controller == controller_name
