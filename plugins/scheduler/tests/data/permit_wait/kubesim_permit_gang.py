"""A gang-like Permit plugin for the waiting-pods tests, loadable with KUBESIM_PLUGINS.

Pods labelled `gang: <name>` and `gang-size: <N>` wait at Permit until N pods of the
gang are waiting or being permitted; the last one allows the others and goes on at once.
`timeoutSeconds` (args, default 30) is how long each pod waits. It is also a Reserve
plugin that keeps the pods it unreserved, so tests can see Unreserve run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim import hookimpl
from kubesim_scheduler.framework import Code, CycleState, PermitPlugin, ReservePlugin, Status, WaitingPod

__all__ = ["Gang", "kubesim_scheduler_plugins"]


def _labels(pod: Mapping[str, Any]) -> Mapping[str, str]:
    return (pod.get("metadata") or {}).get("labels") or {}


class Gang(PermitPlugin, ReservePlugin):
    """Hold each pod of a gang until the whole gang is waiting."""

    name = "Gang"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.unreserved: list[str] = []

    def reserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> None:
        self.unreserved.append((pod.get("metadata") or {}).get("name", ""))

    def permit(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> tuple[Status | None, float]:
        gang = _labels(pod).get("gang")
        if not gang:
            return None, 0.0
        size = int(_labels(pod).get("gang-size", "1"))
        waiting: list[WaitingPod] = []
        self.handle.iterate_over_waiting_pods(
            lambda wp: waiting.append(wp) if _labels(wp.get_pod()).get("gang") == gang else None)
        if len(waiting) + 1 >= size:
            for wp in waiting:
                wp.allow(self.name)
            return None, 0.0
        return Status(Code.WAIT, f"waiting for the rest of gang {gang}"), float(self.args.get("timeoutSeconds", 30))


@hookimpl
def kubesim_scheduler_plugins() -> Mapping[str, type]:
    """The Gang plugin, to be enabled in a KubeSchedulerConfiguration."""
    return {Gang.name: Gang}
