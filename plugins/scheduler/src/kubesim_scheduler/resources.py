"""framework.Resource and the resource-name classes the scheduler sorts requests by.

Pod requests themselves (PodRequests, the non-zero defaults) are `kubesim.k8s.podrequests`.
"""

# upstream: pkg/scheduler/framework/types.go (Resource, CalculateResource),
# pkg/apis/core/v1/helper/helpers.go (IsExtendedResourceName, ...), pkg/scheduler/util

from __future__ import annotations

from collections.abc import Mapping

import attrs

from kubesim.k8s.quantity import nano_to_milli as _nano_to_milli
from kubesim.k8s.quantity import nano_to_value as _nano_to_value
from kubesim.k8s.validation import is_qualified_name

__all__ = [
    "Resource",
    "is_extended_resource_name",
    "is_scalar_resource_name",
    "is_native_resource",
    "resource_from_list",
    "max_resource_from_list",
    "nano_to_milli",
    "nano_to_value",
]


def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource(name: str) -> bool:
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """True for a fully-qualified resource name outside the kubernetes.io namespace."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native or attachable-volume resources."""
    return (
        is_extended_resource_name(name)
        or name.startswith("hugepages-")
        or is_prefixed_native_resource(name)
        or name.startswith("attachable-volumes-")
    )


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

    def request_key(self) -> tuple[int, int, int, tuple[tuple[str, int], ...]]:
        """What decides a request's fit on a node, hashable: the key of per-shape caches."""
        return self.milli_cpu, self.memory, self.ephemeral_storage, tuple(sorted(self.scalar_resources.items()))


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def nano_to_milli(nano: int) -> int:
    """Quantity.MilliValue() as the int64 the scheduler's tables hold (saturated, see nano_to_value)."""
    return min(max(_nano_to_milli(nano), _INT64_MIN), _INT64_MAX)


def nano_to_value(nano: int) -> int:
    """Quantity.Value() as an int64: a quantity beyond int64 (a node's cpu of 2**70 cores, which
    decodes fine) is undefined upstream (big.Int.Int64 wraps); kubesim saturates instead."""
    return min(max(_nano_to_value(nano), _INT64_MIN), _INT64_MAX)


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
