"""Pod resource requests computed like Kubernetes' resource helpers, and resource-name classes.

Quantities are summed exactly (integer nano-units) and only converted at the end, as
upstream sums Quantity values before calling MilliValue()/Value().
"""

# upstream: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests,
# AggregateContainerRequests), pkg/scheduler/framework/types.go (Resource, CalculateResource),
# pkg/apis/core/v1/helper/helpers.go (IsExtendedResourceName, ...), pkg/scheduler/util

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from .quantity import NANO, nano_to_milli, nano_to_value, parse_nano

__all__ = [
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_MEMORY_REQUEST",
    "Resource",
    "is_extended_resource_name",
    "is_scalar_resource_name",
    "is_native_resource",
    "resource_list",
    "pod_requests",
    "resource_from_list",
    "max_resource_from_list",
    "is_pod_level_requests_set",
]

DEFAULT_MILLI_CPU_REQUEST = 100  # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MiB

# NonMissingContainerRequests used for the non-zero requests (nano-units).
NON_ZERO_DEFAULTS: dict[str, int] = {
    "cpu": DEFAULT_MILLI_CPU_REQUEST * 10**6,
    "memory": DEFAULT_MEMORY_REQUEST * NANO,
}

_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_POD_LEVEL = ("cpu", "memory")


def is_qualified_name(value: str) -> bool:
    """validation.IsQualifiedName: optional DNS-subdomain prefix, '/', and a 63-char name."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.match(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.match(name) is not None


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource(name: str) -> bool:
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """True for a fully-qualified resource name outside the kubernetes.io namespace."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native or attachable-volume resources."""
    return (
        is_extended_resource_name(name)
        or name.startswith("hugepages-")
        or is_prefixed_native_resource(name)
        or name.startswith("attachable-volumes-")
    )


def resource_list(rl: Mapping[str, Any] | None) -> dict[str, int]:
    """Parse a ResourceList (name -> quantity) into nano-units."""
    if not rl:
        return {}
    return {k: parse_nano(v) for k, v in rl.items()}


def _add(dst: dict[str, int], src: Mapping[str, int]) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, 0) + v


def _max_into(dst: dict[str, int], src: Mapping[str, int]) -> None:
    for k, v in src.items():
        if k not in dst or v > dst[k]:
            dst[k] = v


def _apply_non_missing(reqs: Mapping[str, int], non_missing: Mapping[str, int]) -> dict[str, int]:
    out = dict(reqs)
    for k, v in non_missing.items():
        if k not in reqs:
            out[k] = out.get(k, 0) + v
    return out


def is_pod_level_requests_set(pod: Mapping[str, Any]) -> bool:
    """Pod-level requests (spec.resources.requests) name cpu, memory or hugepages."""
    res = (pod.get("spec") or {}).get("resources") or {}
    return any(k in _POD_LEVEL or k.startswith("hugepages-") for k in (res.get("requests") or {}))


def _resize_infeasible(pod: Mapping[str, Any]) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return bool(c.get("reason") == "Infeasible")
    return False


def _status_requests(pod: Mapping[str, Any], container: Mapping[str, Any], cs: Mapping[str, Any]) -> dict[str, int]:
    """determineContainerReqs: the larger of spec, status and allocated requests."""
    out = resource_list((cs.get("resources") or {}).get("requests"))
    _max_into(out, resource_list(cs.get("allocatedResources")))
    if not _resize_infeasible(pod):
        _max_into(out, resource_list((container.get("resources") or {}).get("requests")))
    return out


def pod_requests(
    pod: Mapping[str, Any],
    *,
    non_missing: Mapping[str, int] | None = None,
    use_status: bool = False,
    skip_pod_level: bool = False,
    exclude_overhead: bool = False,
) -> dict[str, int]:
    """resourcehelper.PodRequests in nano-units: max(sum(containers), each init step) + overhead.

    Restartable init containers (sidecars) add to the running total and to every later init
    step; pod-level requests replace the aggregate for cpu/memory/hugepages.
    """
    spec = pod.get("spec") or {}
    statuses: dict[str, Mapping[str, Any]] = {}
    if use_status:
        st = pod.get("status") or {}
        for cs in (st.get("containerStatuses") or ()):
            statuses[cs.get("name", "")] = cs
        for cs in (st.get("initContainerStatuses") or ()):
            statuses[cs.get("name", "")] = cs

    reqs: dict[str, int] = {}
    for c in spec.get("containers") or ():
        creq = resource_list((c.get("resources") or {}).get("requests"))
        if use_status:
            cs = statuses.get(c.get("name", ""))
            if cs is not None and cs.get("resources") is not None:
                creq = _status_requests(pod, c, cs)
        if non_missing:
            creq = _apply_non_missing(creq, non_missing)
        _add(reqs, creq)

    restartable: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers") or ():
        creq = resource_list((c.get("resources") or {}).get("requests"))
        sidecar = c.get("restartPolicy") == "Always"
        if use_status and sidecar:
            cs = statuses.get(c.get("name", ""))
            if cs is not None and cs.get("resources") is not None:
                creq = _status_requests(pod, c, cs)
        if non_missing:
            creq = _apply_non_missing(creq, non_missing)
        if sidecar:
            _add(reqs, creq)
            _add(restartable, creq)
            step = dict(restartable)
        else:
            step = dict(creq)
            _add(step, restartable)
        _max_into(init_max, step)
    _max_into(reqs, init_max)

    if not skip_pod_level and is_pod_level_requests_set(pod):
        for k, v in ((spec.get("resources") or {}).get("requests") or {}).items():
            if k in _POD_LEVEL or k.startswith("hugepages-"):
                reqs[k] = parse_nano(v)

    if not exclude_overhead and spec.get("overhead"):
        _add(reqs, resource_list(spec["overhead"]))
    return reqs


@attrs.define(slots=True)
class Resource:
    """framework.Resource: milli-CPU, bytes, pod count and scalar resources as integers."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] = attrs.field(factory=dict)

    def is_zero(self) -> bool:
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.scalar_resources)


def resource_from_list(rl: Mapping[str, int]) -> Resource:
    """Resource.Add over a nano-unit ResourceList (node allocatable, pod requests)."""
    r = Resource()
    for name, q in rl.items():
        if name == "cpu":
            r.milli_cpu += nano_to_milli(q)
        elif name == "memory":
            r.memory += nano_to_value(q)
        elif name == "pods":
            r.allowed_pod_number += nano_to_value(q)
        elif name == "ephemeral-storage":
            r.ephemeral_storage += nano_to_value(q)
        elif is_scalar_resource_name(name):
            r.scalar_resources[name] = r.scalar_resources.get(name, 0) + nano_to_value(q)
    return r


def max_resource_from_list(rl: Mapping[str, int]) -> Resource:
    """Resource.SetMaxResource on an empty Resource (NodeResourcesFit's PreFilter state)."""
    r = Resource()
    for name, q in rl.items():
        if name == "memory":
            r.memory = max(r.memory, nano_to_value(q))
        elif name == "cpu":
            r.milli_cpu = max(r.milli_cpu, nano_to_milli(q))
        elif name == "ephemeral-storage":
            r.ephemeral_storage = max(r.ephemeral_storage, nano_to_value(q))
        elif is_scalar_resource_name(name):
            r.scalar_resources[name] = max(r.scalar_resources.get(name, 0), nano_to_value(q))
    return r
