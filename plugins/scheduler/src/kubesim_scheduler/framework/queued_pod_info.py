"""QueuedPodInfo: a pod plus its scheduling-queue bookkeeping (attempts, backoff, rejectors)."""

# upstream: pkg/scheduler/framework/types.go (QueuedPodInfo)

from __future__ import annotations

import attrs

from .events import ClusterEvent
from .pod_info import PodInfo

__all__ = ["QueuedPodInfo"]


@attrs.define(slots=True, eq=False)
class QueuedPodInfo:
    """Timestamps are simulated seconds (floats) from the scheduler's `now()`."""

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    backoff_expiration: float | None = None
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    gating_plugin: str = ""
    gating_plugin_events: list[ClusterEvent] = attrs.field(factory=list)
    seq: int = 0  # insertion counter: deterministic tie-break after the QueueSort order

    @property
    def pod(self) -> dict:  # type: ignore[type-arg]
        return self.pod_info.pod  # type: ignore[return-value]

    @property
    def key(self) -> str:
        return self.pod_info.key

    def gated(self) -> bool:
        return self.gating_plugin != ""
