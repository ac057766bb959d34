"""How the Machine controller counts pods (upstream pkg/controllers/machine_controller.go updateStatus,
controller_utils.go getUnscheduledPodNum, util/status.go).

- reserved: reservation pods not being deleted that are Running with ContainersReady=True,
  or Pending and bound to a node ("ContainerCreating");
- used: the same for guest pods in namespaces labelled `imperator.tenzen.io/inject-resource:
  enabled` (a Running guest whose containers are not ready counts nowhere);
- waiting: guest pods there that are Pending, unbound, with PodScheduled=False for reason
  Unschedulable;
- unscheduled (not in the status, used for the StatefulSet's replicas): reservation pods in
  the core namespace that are Pending, unbound, with PodScheduled=False/Unschedulable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = [
    "count_reserved",
    "count_unscheduled",
    "count_used_and_waiting",
    "pod_condition_type_map",
]

Obj = Mapping[str, Any]


def pod_condition_type_map(conditions: Iterable[Obj] | None) -> dict[str, Obj]:
    """type -> the first condition of that type (util.GetPodConditionTypeMap)."""
    out: dict[str, Obj] = {}
    for c in conditions or ():
        out.setdefault(str(c.get("type", "")), c)
    return out


def _running_or_creating(pod: Obj) -> bool:
    status = pod.get("status") or {}
    phase = status.get("phase")
    if phase == "Running":
        return pod_condition_type_map(status.get("conditions")).get("ContainersReady", {}).get("status") == "True"
    return phase == "Pending" and bool((pod.get("spec") or {}).get("nodeName"))


def _unschedulable(pod: Obj) -> bool:
    status = pod.get("status") or {}
    if status.get("phase") != "Pending" or (pod.get("spec") or {}).get("nodeName"):
        return False
    scheduled = pod_condition_type_map(status.get("conditions")).get("PodScheduled")
    return scheduled is not None and scheduled.get("reason") == "Unschedulable" and scheduled.get("status") == "False"


def _terminating(pod: Obj) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def count_reserved(reservation_pods: Iterable[Obj]) -> int:
    """Usage.Reserved from the reservation pods of one machine type."""
    return sum(1 for p in reservation_pods if not _terminating(p) and _running_or_creating(p))


def count_used_and_waiting(guest_pods: Iterable[Obj], injection_enabled: Callable[[str], bool]) -> tuple[int, int]:
    """(Usage.Used, Usage.Waiting) from the guest pods of one machine type.

    `injection_enabled(namespace)` says whether the pod's namespace has the injection label;
    it raises when the namespace cannot be read (upstream's reconcile then fails).
    """
    used = waiting = 0
    for pod in guest_pods:
        if not injection_enabled(str((pod.get("metadata") or {}).get("namespace", ""))):
            continue
        if _terminating(pod):
            continue
        if _running_or_creating(pod):
            used += 1
        elif _unschedulable(pod):
            waiting += 1
    return used, waiting


def count_unscheduled(reservation_pods: Iterable[Obj]) -> int:
    """getUnscheduledPodNum: reservation pods the scheduler could not place."""
    return sum(1 for p in reservation_pods if not _terminating(p) and _unschedulable(p))
