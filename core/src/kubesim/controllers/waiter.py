"""ControllerWaiter (KEP-140): how the engine knows a controller can do no more."""

from __future__ import annotations

from collections.abc import Callable

import attrs

__all__ = ["ControllerWaiter"]


@attrs.frozen
class ControllerWaiter:
    """A controller's name and the condition "it can do nothing more with the current state".

    For example, the ReplicaSet controller's condition holds when every ReplicaSet has
    status.replicas == spec.replicas or a ReplicaFailure condition.
    """

    name: str
    condition: Callable[[], bool]

    def satisfied(self) -> bool:
        """Evaluate the condition now."""
        return bool(self.condition())
