"""Which controllers take part in a scenario (KEP-140 Controllers semantics)."""

from __future__ import annotations

from collections.abc import Collection

import attrs

from kubesim.api import Controllers

__all__ = ["ControllerSelection", "select_controllers"]


@attrs.frozen
class ControllerSelection:
    """SimulationControllers in the order given, and PreSimulationControllers."""

    simulation: tuple[str, ...]
    pre_simulation: tuple[str, ...]


def select_controllers(spec: Controllers, registered: Collection[str]) -> ControllerSelection:
    """Resolve enabled/disabled lists against the registered controller names.

    SimulationControllers: exactly the enabled ones, in order, minus disabled.
    PreSimulationControllers: every registered controller that is not a
    SimulationController (all of them disabled by "*"), minus disabled, plus the
    explicitly enabled ones first in the order given; the rest sorted by name.
    """
    sim_disabled = {c.name for c in spec.simulation_controllers.disabled}
    simulation = tuple(
        c.name for c in spec.simulation_controllers.enabled
        if c.name not in sim_disabled and "*" not in sim_disabled
    )
    pre = spec.pre_simulation_controllers
    enabled = [c.name for c in pre.enabled] if pre else []
    disabled = {c.name for c in pre.disabled} if pre else set()
    defaults = [] if "*" in disabled else sorted(set(registered) - set(simulation) - disabled)
    pre_names = list(dict.fromkeys(n for n in enabled + defaults if n not in simulation))
    return ControllerSelection(simulation, tuple(pre_names))
