"""Resource amounts of pods and nodes as integers: cpu in millicores, everything else in base units.

Pod requests follow Kubernetes' effective-request rule (the larger of the sum of the
containers and sidecars and the largest init step, pod-level requests for cpu and
memory when set, plus overhead), as `kubectl describe node` and the scheduler count
them. Usage comes from the `kubesim.io/usage` pod annotation that the simulated kubelet
writes for pods with a simSpec: a JSON object of resource name to quantity.
"""

# upstream: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests)

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import ROUND_CEILING, Decimal
from typing import Any

from kubesim.cluster import parse_quantity

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
_POD_LEVEL = ("cpu", "memory")


def _to_int(name: str, value: Decimal) -> int:
    scaled = value * 1000 if name == "cpu" else value
    return int(scaled.to_integral_value(rounding=ROUND_CEILING))


def amount(name: str, quantity: Any) -> int:
    """One quantity as an integer in the resource's unit (cpu: millicores); ValueError when malformed."""
    return _to_int(name, parse_quantity(quantity))


def _parse_list(rl: Any) -> dict[str, Decimal]:
    if not isinstance(rl, Mapping):
        return {}
    out: dict[str, Decimal] = {}
    for k, v in rl.items():
        try:
            out[str(k)] = parse_quantity(v)
        except ValueError:
            continue  # the API server would have rejected it; a result never holds one
    return out


def _add(dst: dict[str, Decimal], src: Mapping[str, Decimal]) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, Decimal(0)) + v


def _max_into(dst: dict[str, Decimal], src: Mapping[str, Decimal]) -> None:
    for k, v in src.items():
        if k not in dst or v > dst[k]:
            dst[k] = v


def _requests(container: Any) -> dict[str, Decimal]:
    if not isinstance(container, Mapping):
        return {}
    return _parse_list((container.get("resources") or {}).get("requests"))


def pod_requests(pod: Mapping[str, Any]) -> dict[str, int]:
    """The pod's effective requests (PodRequests without non-zero defaults), as integers."""
    spec = pod.get("spec") or {}
    reqs: dict[str, Decimal] = {}
    for c in spec.get("containers") or ():
        _add(reqs, _requests(c))
    sidecars: dict[str, Decimal] = {}
    init_max: dict[str, Decimal] = {}
    for c in spec.get("initContainers") or ():
        creq = _requests(c)
        if isinstance(c, Mapping) and c.get("restartPolicy") == "Always":
            _add(reqs, creq)
            _add(sidecars, creq)
            step = dict(sidecars)
        else:
            step = dict(creq)
            _add(step, sidecars)
        _max_into(init_max, step)
    _max_into(reqs, init_max)
    pod_level = _parse_list((spec.get("resources") or {}).get("requests"))
    for k, v in pod_level.items():
        if k in _POD_LEVEL or k.startswith("hugepages-"):
            reqs[k] = v
    _add(reqs, _parse_list(spec.get("overhead")))
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
        data = json.loads(text)
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
