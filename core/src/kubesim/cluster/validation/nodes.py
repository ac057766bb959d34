"""Nodes and namespaces, as the API server validates them on create and update.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go: ValidateNode (taints under
`metadata.taints`, upstream's own path, and ValidateNodeResources), the spec part of
ValidateNodeUpdate (podCIDRs and providerID set once), and ValidateNamespace
(spec.finalizers: qualified names, standard unless fully qualified).
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import FieldError, forbidden, invalid, is_qualified_name

from .resources import validate_resource_quantity
from .taints import validate_node_taints
from .values import as_list, as_map

__all__ = ["validate_namespace", "validate_node", "validate_node_update"]

_STANDARD_FINALIZERS = ("kubernetes",)


def _resources(status: Any, field: str) -> list[FieldError]:
    values = as_map(status).get(field)
    if values is None:
        return []
    if not isinstance(values, dict):
        return [invalid(f"status.{field}", values, "must be a map of resource names to quantities")]
    errs: list[FieldError] = []
    for name in sorted(values, key=str):
        errs.extend(validate_resource_quantity(str(name), values[name], f"status.{field}.{name}"))
    return errs


def validate_node(node: dict[str, Any]) -> list[FieldError]:
    """ValidateNode (metadata aside): taints, capacity and allocatable quantities."""
    spec = as_map(node.get("spec"))
    errs = validate_node_taints(spec.get("taints"), "metadata.taints")
    status = node.get("status")
    if status is not None and not isinstance(status, dict):
        errs.append(invalid("status", status, "must be a node status object"))
    errs.extend(_resources(status, "capacity"))
    errs.extend(_resources(status, "allocatable"))
    return errs


def validate_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateNodeUpdate (metadata aside)."""
    errs = validate_node(new)
    spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    old_cidrs, cidrs = as_list(old_spec.get("podCIDRs")), as_list(spec.get("podCIDRs"))
    if old_cidrs and (len(old_cidrs) != len(cidrs) or any(a != b for a, b in zip(old_cidrs, cidrs))):
        errs.append(forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'))
    if old_spec.get("providerID") and old_spec.get("providerID") != spec.get("providerID"):
        errs.append(forbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'))
    return errs


def validate_namespace(namespace: dict[str, Any]) -> list[FieldError]:
    """ValidateNamespace (metadata aside): the finalizer names of spec.finalizers."""
    errs: list[FieldError] = []
    for name in as_list(as_map(namespace.get("spec")).get("finalizers")):
        text = name if isinstance(name, str) else ""
        found = [invalid("spec.finalizers", name, m) for m in is_qualified_name(text)]
        if not found and "/" not in text and text not in _STANDARD_FINALIZERS:
            found.append(invalid("spec.finalizers", name,
                                 "name is neither a standard finalizer name nor is it fully qualified"))
        errs.extend(found)
    return errs
