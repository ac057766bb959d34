"""A PreSimulationController that takes 20 ms of wall time per step: a long run without plugins."""

from __future__ import annotations

import time

from kubesim import Controller, ControllerWaiter, hookimpl


class Slow(Controller):
    """Sleeps once per step (its waiter always holds; it never writes)."""

    name = "slow"

    def run_once(self) -> bool:
        time.sleep(0.02)
        return False

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: True)


@hookimpl
def kubesim_controllers() -> list[type[Controller]]:
    return [Slow]
