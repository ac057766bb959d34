"""What `kubesim capacity` needs of a scheduler: the SchedulingSimulator protocol.

The core does not import the scheduler plugin: a plugin hands a simulator out through the
`kubesim_scheduling_simulator` hook (kubesim-scheduler's is kubesim_scheduler.whatif).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import attrs

__all__ = ["Placement", "SchedulingSimulator"]


@attrs.frozen
class Placement:
    """One scheduling attempt's outcome: the node the pod was bound to, or why it was not."""

    node: str | None
    message: str = ""
    """The failure message: upstream's FitError text ("0/N nodes are available: ...")."""


class SchedulingSimulator(Protocol):
    """A scheduler over a fixed cluster; every call is deterministic for the same history."""

    def add_node(self, node: Mapping[str, Any]) -> None:
        """Add (or update) a Node."""

    def remove_node(self, name: str) -> None:
        """Remove a Node (its pods stay accounted until removed)."""

    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """Account a bound pod (spec.nodeName set) on its node."""

    def remove_pod(self, pod: Mapping[str, Any]) -> None:
        """Forget `pod` (the scheduler's own key: its uid, else namespace/name)."""

    def schedule(self, pod: Mapping[str, Any], explain: bool = True) -> Placement:
        """Run one scheduling attempt for `pod`; a bound pod stays accounted. Victims are never
        evicted, so PostFilter (preemption) changes no outcome: with explain=False it is not
        run and a failure's message is left empty (building it reads every node's status);
        schedule the pod again with explain=True, in the same state, for the reason."""

    def node_names(self) -> list[str]:
        """The nodes, in the scheduler's order."""
