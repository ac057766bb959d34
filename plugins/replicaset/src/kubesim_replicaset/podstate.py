"""What controllers read from a pod: active, ready, available, ready time, restarts, deletion cost.

Follows k8s.io/kubernetes pkg/api/v1/pod/util.go (IsPodReady, IsPodAvailable as of v1.34:
available once Ready for at least minReadySeconds, `lastTransitionTime + minReadySeconds <= now`),
pkg/controller/controller_utils.go (IsPodActive, podReadyTime, maxContainerRestarts) and
pkg/apis/core/helper (GetDeletionCostFromPodAnnotations).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from kubesim.clock import parse_time

__all__ = [
    "POD_DELETION_COST",
    "deletion_cost",
    "is_pod_active",
    "is_pod_available",
    "is_pod_ready",
    "max_container_restarts",
    "parse_timestamp",
    "pod_phase",
    "pod_ready_condition",
    "pod_ready_time",
    "ready_at",
]

POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_INT = re.compile(r"-?[0-9]+")


def parse_timestamp(value: Any) -> datetime | None:
    """A metav1.Time from its JSON form; None for a missing (zero) time."""
    if not value or not isinstance(value, str):
        return None
    return parse_time(value)


def pod_phase(pod: Mapping[str, Any]) -> str:
    """status.phase ("" when unset)."""
    return str((pod.get("status") or {}).get("phase") or "")


def is_pod_active(pod: Mapping[str, Any]) -> bool:
    """Not Succeeded, not Failed and not being deleted (controller.IsPodActive)."""
    return pod_phase(pod) not in ("Succeeded", "Failed") and not (pod.get("metadata") or {}).get(
        "deletionTimestamp"
    )


def pod_ready_condition(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pod's Ready condition, if it has one."""
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == "Ready":
            return c
    return None


def is_pod_ready(pod: Mapping[str, Any]) -> bool:
    """The Ready condition is True."""
    c = pod_ready_condition(pod)
    return c is not None and c.get("status") == "True"


def ready_at(pod: Mapping[str, Any]) -> datetime | None:
    """When a ready pod's Ready condition last turned True (None when not ready or unknown)."""
    c = pod_ready_condition(pod)
    if c is None or c.get("status") != "True":
        return None
    return parse_timestamp(c.get("lastTransitionTime"))


def is_pod_available(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> bool:
    """Ready, and ready for at least minReadySeconds at `now` (podutil.IsPodAvailable)."""
    if not is_pod_ready(pod):
        return False
    if min_ready_seconds == 0:
        return True
    since = ready_at(pod)
    return since is not None and since + timedelta(seconds=min_ready_seconds) <= now


def pod_ready_time(pod: Mapping[str, Any]) -> datetime | None:
    """podReadyTime: the Ready condition's transition time for a ready pod, else the zero time."""
    return ready_at(pod) if is_pod_ready(pod) else None


def max_container_restarts(pod: Mapping[str, Any]) -> tuple[int, int]:
    """(highest restartCount of regular containers, highest of restartable init containers)."""
    status = pod.get("status") or {}
    regular = max((int(c.get("restartCount") or 0) for c in status.get("containerStatuses") or ()), default=0)
    sidecars = {
        c.get("name")
        for c in (pod.get("spec") or {}).get("initContainers") or ()
        if isinstance(c, Mapping) and c.get("restartPolicy") == "Always"
    }
    sidecar = max(
        (int(c.get("restartCount") or 0) for c in status.get("initContainerStatuses") or () if c.get("name") in sidecars),
        default=0,
    )
    return regular, sidecar


def _valid_first_digit(value: str) -> bool:
    return bool(value) and (value[0] == "-" or value == "0" or "1" <= value[0] <= "9")


def deletion_cost(pod: Mapping[str, Any]) -> int:
    """The pod-deletion-cost annotation as an int32; 0 when missing or invalid."""
    value = ((pod.get("metadata") or {}).get("annotations") or {}).get(POD_DELETION_COST)
    if value is None or not _valid_first_digit(value) or not _INT.fullmatch(value):
        return 0
    cost = int(value)
    return cost if -(2**31) <= cost < 2**31 else 0
