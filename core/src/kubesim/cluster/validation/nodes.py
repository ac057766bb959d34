"""Nodes and namespaces, as the API server validates them on create and update.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go: ValidateNode (taints under
`metadata.taints`, upstream's own path, and ValidateNodeResources), the spec part of
ValidateNodeUpdate (podCIDRs and providerID set once), and ValidateNamespace
(spec.finalizers: qualified names, standard unless fully qualified).
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.content_memo import ContentMemo, content_key
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
    """ValidateNode (metadata aside): taints, capacity and allocatable quantities.

    A pure function of the node's spec and status: answers are remembered by their content
    (ContentMemo), as a cluster's nodes mostly share one shape.
    """
    key = content_key((node.get("spec"), node.get("status")))
    known = _VALIDATED.get(key)
    if known is not None:
        return list(known)
    errs = _validate_node(node, None)
    _VALIDATED.put(key, tuple(errs))
    return errs


_VALIDATED: ContentMemo[tuple[FieldError, ...]] = ContentMemo(limit=100_000)


def _validate_node(node: dict[str, Any], old: dict[str, Any] | None) -> list[FieldError]:
    """ValidateNode's checks; the parts `old` (a stored, validated node) shares by identity
    are not checked again: a status write shares the spec and the resource lists."""
    spec = as_map(node.get("spec"))
    status = node.get("status")
    old_spec = as_map(old.get("spec")) if old is not None else None
    old_status = as_map(old.get("status")) if old is not None else None
    taints = spec.get("taints")
    errs = ([] if old_spec is not None and taints is not None and taints is old_spec.get("taints")
            else validate_node_taints(taints, "metadata.taints"))
    if status is not None and not isinstance(status, dict):
        errs.append(invalid("status", status, "must be a node status object"))
    for field in ("capacity", "allocatable"):
        if old_status is not None and isinstance(status, dict) and field in status \
                and status[field] is old_status.get(field):
            continue
        errs.extend(_resources(status, field))
    return errs


def validate_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateNodeUpdate (metadata aside)."""
    errs = _validate_node(new, old)
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
