"""The webhook server of the pod injector, as a controller with no loop of its own."""

from __future__ import annotations

from kubesim import Controller, ControllerContext, ControllerWaiter

from .admission import INJECTOR_WEBHOOK

__all__ = ["PodInjectorServer"]


class PodInjectorServer(Controller):
    """Serves `mutator.pod.imperator.tenzen-y.io` for the scenario's cluster while the scenario runs.

    It has nothing to reconcile (run_once never has work, its waiter always holds); starting
    it binds the cluster the injector reads, `close()` unbinds it. A scenario that disables
    it runs without the webhook.
    """

    name = "pod-injector"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._unbind = INJECTOR_WEBHOOK.bind(ctx.cluster)

    def run_once(self) -> bool:
        return False

    def waiter(self) -> ControllerWaiter:
        return ControllerWaiter(self.name, lambda: True)

    def close(self) -> None:
        self._unbind()
