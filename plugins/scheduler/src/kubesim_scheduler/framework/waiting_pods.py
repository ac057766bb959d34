"""Waiting pods: assumed pods held at Permit until every waiting plugin allows them.

Upstream runs one timer per waiting plugin and blocks the binding cycle on a channel;
here the deadlines are simulated times checked when the scheduler runs (`expire`), and the
first verdict (allowed by all, rejected, timed out) is kept in `result` for the scheduler
to act on at its next schedule_one call.
"""

# upstream: pkg/scheduler/framework/runtime/waiting_pods_map.go (waitingPodsMap,
# waitingPod, newWaitingPod, Allow, Reject), framework.go (maxTimeout)

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kubesim.k8s.duration import format_duration

from .pod_info import pod_key
from .status import Code, Status

__all__ = ["MAX_PERMIT_TIMEOUT", "WaitingPod", "WaitingPodsMap", "waiting_pod_uid"]

#: The longest a Permit plugin may make a pod wait (upstream's maxTimeout), in seconds.
MAX_PERMIT_TIMEOUT = 15 * 60.0


def waiting_pod_uid(pod: Mapping[str, Any]) -> str:
    """The key of a pod in the waiting pods map: metadata.uid, or namespace/name without one."""
    return (pod.get("metadata") or {}).get("uid") or pod_key(pod)


class WaitingPod:
    """A pod waiting at Permit: the plugins still to allow it, each with its deadline."""

    def __init__(self, pod: Mapping[str, Any], timeouts: Mapping[str, float], now: float) -> None:
        self.pod = pod
        # plugin -> (its wait, capped at MAX_PERMIT_TIMEOUT; the simulated time it runs out)
        self._pending: dict[str, tuple[float, float]] = {}
        for plugin, timeout in timeouts.items():
            wait = min(max(float(timeout), 0.0), MAX_PERMIT_TIMEOUT)
            self._pending[plugin] = (wait, now + wait)
        #: None while waiting; Success once every plugin allowed it, else the rejection
        self.result: Status | None = None

    def get_pod(self) -> Mapping[str, Any]:
        return self.pod

    def get_pending_plugins(self) -> list[str]:
        """The plugins that have not allowed the pod yet."""
        return list(self._pending)

    def allow(self, plugin_name: str) -> None:
        """`plugin_name` lets the pod go; it is allowed once no plugin is pending."""
        self._pending.pop(plugin_name, None)
        if not self._pending and self.result is None:
            self.result = Status(Code.SUCCESS)

    def reject(self, plugin_name: str, msg: str) -> None:
        """Reject the pod (Unschedulable, attributed to `plugin_name`); a later verdict is ignored."""
        if self.result is None:
            self.result = Status(Code.UNSCHEDULABLE, msg, plugin=plugin_name)

    def deadline(self) -> float | None:
        """When the first pending plugin's wait runs out (None when resolved or none is pending)."""
        if self.result is not None or not self._pending:
            return None
        return min(d for _w, d in self._pending.values())

    def expire(self, now: float) -> bool:
        """Reject the pod when a pending plugin's wait has run out by `now`; True if it did."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return False
        plugin, (wait, _d) = next((p, v) for p, v in self._pending.items() if v[1] == deadline)
        self.reject(plugin, f"rejected due to timeout after waiting {format_duration(wait)} at plugin {plugin}")
        return True


class WaitingPodsMap:
    """The waiting pods by uid, in the order they started waiting (shared by all profiles)."""

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPod] = {}

    def add(self, wp: WaitingPod) -> None:
        self._pods[waiting_pod_uid(wp.pod)] = wp

    def remove(self, uid: str) -> None:
        self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        return self._pods.get(uid)

    def iterate(self, callback: Callable[[WaitingPod], None]) -> None:
        for wp in list(self._pods.values()):
            callback(wp)

    def __iter__(self) -> Iterator[WaitingPod]:
        return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)
