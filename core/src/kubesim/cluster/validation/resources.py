"""Resource names and quantities: container requests/limits and node capacity/allocatable.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go (ValidateResourceRequirements,
validateContainerResourceName, validateResourceName, ValidateResourceQuantityValue,
ValidateNonnegativeQuantity) and the name predicates of pkg/apis/core/helper/helpers.go
(IsStandardResourceName, IsNativeResource, IsExtendedResourceName, IsHugePageResourceName,
IsOvercommitAllowed, IsIntegerResourceName). Go ranges over maps in random order; resource
names are checked here in sorted order so that messages are stable.
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.quantity import NANO, QuantityError, canonical, parse
from kubesim.k8s.validation import FieldError, invalid, is_qualified_name, required

from .values import NEGATIVE

__all__ = ["validate_resource_quantity", "validate_resource_requirements"]

_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}
_STANDARD_RESOURCES = _CONTAINER_RESOURCES | {
    "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage", "pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
    "configmaps", "persistentvolumeclaims", "requests.storage", "services.nodeports",
    "services.loadbalancers",
}
_INTEGER_RESOURCES = {
    "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
}


def _is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_hugepages(name)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or _is_extended(name)


def _container_resource_name(name: str, path: str) -> list[FieldError]:
    """validateContainerResourceName (validateResourceName first)."""
    errs = [invalid(path, name, m) for m in is_qualified_name(name)]
    if "/" not in name:
        if not errs and name not in _STANDARD_RESOURCES and not _is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource type or fully qualified"))
        if name not in _CONTAINER_RESOURCES and not _is_hugepages(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def _parsed(q: Any, path: str) -> tuple[int | None, list[FieldError]]:
    try:
        return parse(q)[0], []
    except QuantityError as err:
        reason = str(err).split(": ", 1)[1] if str(err).startswith("invalid quantity") else str(err)
        return None, [invalid(path, q, f"must be a valid resource quantity: {reason}")]


def validate_resource_quantity(name: str, q: Any, path: str) -> list[FieldError]:
    """ValidateResourceQuantityValue: not negative, whole for integer resources."""
    nano, errs = _parsed(q, path)
    if nano is None:
        return errs
    if nano < 0:
        errs.append(invalid(path, canonical(q), NEGATIVE))
    if _is_integer_resource(name) and nano % NANO:
        errs.append(invalid(path, canonical(q), "must be an integer"))
    return errs


def validate_resource_requirements(resources: Any, path: str) -> list[FieldError]:
    """ValidateResourceRequirements of a container (claims and hugepage sizes aside)."""
    if resources is None:
        return []
    if not isinstance(resources, dict):
        return [invalid(path, resources, "must be an object")]
    errs: list[FieldError] = []
    parts: dict[str, dict[str, Any]] = {}
    for part in ("limits", "requests"):
        values = resources.get(part) or {}
        if not isinstance(values, dict):
            errs.append(invalid(f"{path}.{part}", values, "must be a map of resource names to quantities"))
            values = {}
        parts[part] = values
    limits, requests = parts["limits"], parts["requests"]
    nanos: dict[str, int | None] = {}
    for name in sorted(limits, key=str):
        p = f"{path}.limits[{name}]"
        errs.extend(_container_resource_name(str(name), p))
        errs.extend(validate_resource_quantity(str(name), limits[name], p))
        nanos[name] = _parsed(limits[name], p)[0]
    for name in sorted(requests, key=str):
        p = f"{path}.requests[{name}]"
        errs.extend(_container_resource_name(str(name), p))
        errs.extend(validate_resource_quantity(str(name), requests[name], p))
        request = _parsed(requests[name], p)[0]
        if name in limits:
            limit = nanos.get(name)
            if request is None or limit is None:
                continue
            shown = f"{name} limit of {canonical(limits[name])}"
            if request != limit and not _overcommit_allowed(str(name)):
                errs.append(invalid(f"{path}.requests", canonical(requests[name]), f"must be equal to {shown}"))
            elif request > limit:
                errs.append(invalid(f"{path}.requests", canonical(requests[name]), f"must be less than or equal to {shown}"))
        elif not _overcommit_allowed(str(name)):
            errs.append(required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
    has_compute = any(n in ("cpu", "memory") for n in (*limits, *requests))
    if not has_compute and any(_is_hugepages(str(n)) for n in (*limits, *requests)):
        errs.append(FieldError("Forbidden", path, detail="HugePages require cpu or memory"))
    return errs
