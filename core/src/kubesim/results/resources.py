"""Resource amounts of pods and nodes as integers: cpu in millicores, everything else in base units.

Pod requests follow Kubernetes' effective-request rule (the larger of the sum of the
containers and sidecars and the largest init step, pod-level requests for cpu and
memory when set, plus overhead), as `kubectl describe node` and the scheduler count
them. Usage comes from the `kubesim.io/usage` pod annotation that the simulated kubelet
writes for pods with a simSpec: a JSON object of resource name to quantity.
"""

# upstream: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests), through
# kubesim.k8s.podrequests

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.input_limits import json_loads
from kubesim.k8s import podrequests
from kubesim.k8s.quantity import QuantityError, nano_to_milli, nano_to_value, parse_nano

__all__ = [
    "USAGE_ANNOTATION",
    "amount",
    "node_allocatable",
    "pod_requests",
    "pod_usage",
    "resource_order",
    "unit",
]

USAGE_ANNOTATION = "kubesim.io/usage"


def _to_int(name: str, nano: int) -> int:
    return nano_to_milli(nano) if name == "cpu" else nano_to_value(nano)


def amount(name: str, quantity: Any) -> int:
    """One quantity as an integer in the resource's unit (cpu: millicores); ValueError when malformed."""
    return _to_int(name, parse_nano(quantity))


def _parse_list(rl: Any) -> dict[str, int]:
    if not isinstance(rl, Mapping):
        return {}
    out: dict[str, int] = {}
    for k, v in rl.items():
        try:
            out[str(k)] = parse_nano(v)
        except ValueError:
            continue  # the API server would have rejected it; a result never holds one
    return out


def pod_requests(pod: Mapping[str, Any]) -> dict[str, int]:
    """The pod's effective requests (PodRequests without non-zero defaults), as integers."""
    try:
        reqs = podrequests.pod_requests(pod)
    except QuantityError:
        return {}  # the API server would have rejected the pod; a result never holds one
    return {k: _to_int(k, v) for k, v in reqs.items()}


def node_allocatable(node: Mapping[str, Any]) -> dict[str, int]:
    """status.allocatable (status.capacity when allocatable is unset), as integers."""
    status = node.get("status") or {}
    rl = status.get("allocatable") or status.get("capacity") or {}
    return {k: _to_int(k, v) for k, v in _parse_list(rl).items()}


def pod_usage(pod: Mapping[str, Any]) -> dict[str, int] | None:
    """The usage the simulated kubelet reports in the kubesim.io/usage annotation, or None."""
    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(USAGE_ANNOTATION)
    if not text:
        return None
    try:
        data = json_loads(text, dict)  # a user may write the annotation: nesting bounded
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {k: _to_int(k, v) for k, v in _parse_list(data).items()}


def resource_order(names: set[str] | frozenset[str]) -> list[str]:
    """cpu and memory first, then the other resources by name; "pods" is counted separately."""
    first = [r for r in ("cpu", "memory") if r in names]
    return first + sorted(n for n in names if n not in ("cpu", "memory", "pods"))


def unit(resource: str) -> str:
    """The unit `amount` gives a resource in, for column descriptions."""
    if resource == "cpu":
        return "millicores"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return "bytes"
    return "units"
