"""The kubelet's resource admission of a pod: does it fit next to the pods the node already runs?

A pod bound to a node without the scheduler (spec.nodeName set by its author, or a migration
controller) may not fit. The real kubelet then rejects it (pkg/kubelet/lifecycle/predicate.go,
noderesources.Fits): phase Failed, reason `OutOf<resource>` and the message "Pod was rejected:
Node didn't have enough resource: <r>, requested: N, used: N, capacity: N". This is
k8s-cluster-simulator's OverCapacity status too (its metrics count such pods as failed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubesim.k8s.podrequests import pod_requests
from kubesim.k8s.quantity import QuantityError, nano_to_milli, nano_to_value, parse_nano

__all__ = ["rejection"]

def _amount(name: str, nano: int) -> int:
    return nano_to_milli(nano) if name == "cpu" else nano_to_value(nano)


def _requests(pod: Mapping[str, Any]) -> dict[str, int]:
    try:
        return pod_requests(pod)
    except QuantityError:
        return {}


def rejection(pod: Mapping[str, Any], node: Mapping[str, Any], others: Iterable[Mapping[str, Any]]) -> tuple[str, str] | None:
    """(reason, message) when `pod` does not fit on `node` next to `others` (the pods already
    running there, terminating ones included), None when it fits."""
    status = node.get("status") or {}
    allocatable: dict[str, int] = {}
    for name, q in (status.get("allocatable") or status.get("capacity") or {}).items():
        try:
            allocatable[str(name)] = _amount(str(name), parse_nano(q))
        except QuantityError:
            continue
    admitted = [o for o in others if (o.get("status") or {}).get("phase") == "Running"]
    if "pods" in allocatable and len(admitted) + 1 > allocatable["pods"]:
        return "OutOfpods", _message("pods", 1, len(admitted), allocatable["pods"])
    wanted = {k: _amount(k, v) for k, v in _requests(pod).items() if v}
    if not wanted:
        return None
    used: dict[str, int] = {}
    for other in admitted:
        for name, nano in _requests(other).items():
            used[name] = used.get(name, 0) + _amount(name, nano)
    for name in sorted(wanted, key=lambda n: (n not in ("cpu", "memory", "ephemeral-storage"), n)):
        capacity = allocatable.get(name, 0)
        if wanted[name] + used.get(name, 0) > capacity:
            return f"OutOf{name}", _message(name, wanted[name], used.get(name, 0), capacity)
    return None


def _message(name: str, requested: int, used: int, capacity: int) -> str:
    return (f"Pod was rejected: Node didn't have enough resource: {name}, requested: {requested}, "
            f"used: {used}, capacity: {capacity}")
