"""Per-kind rules the API server applies on write, like its registry strategies:
defaulting, PrepareForCreate (initial status), and kind-specific validation.

Sources: k8s.io/kubernetes pkg/registry/*/strategy.go (PrepareForCreate), pkg/apis/*/v1
defaults.go, and apiextensions-apiserver's customResourceStrategy (status dropped on create
when the status subresource is on).
"""

from __future__ import annotations

from typing import Any

from kubesim.apiextensions import check_definition, default_definition
from kubesim.k8s.validation import FieldError, is_dns1123_label

from .pods import default_pod, initial_pod_status, validate_pod
from .priority import default_priority_class
from .registry import CRD_TYPE, ResourceType

__all__ = ["apply_defaults", "prepare_for_create", "validate_kind"]

_POD = ("", "Pod")
_NAMESPACE = ("", "Namespace")
_PRIORITY_CLASS = ("scheduling.k8s.io", "PriorityClass")
_KEEPS_STATUS_ON_CREATE = {("", "Node")}  # "Nodes allow *all* fields, including status, to be set on create."


def apply_defaults(rt: ResourceType, obj: dict[str, Any], field_validation: str = "Strict") -> None:
    """Defaulting done when an object is decoded (create and update), in place.

    A custom resource is also pruned; BadRequest when it has fields its schema does not declare
    and `field_validation` is Strict.
    """
    gk = (rt.group, rt.kind)
    if gk == _POD:
        default_pod(obj)
    elif gk == _PRIORITY_CLASS:
        default_priority_class(obj)
    elif rt is CRD_TYPE:
        default_definition(obj)
    elif rt.custom is not None:
        rt.custom.decode(obj, field_validation=field_validation)
    elif gk == _NAMESPACE:
        name = (obj.get("metadata") or {}).get("name")
        if isinstance(name, str) and name and not is_dns1123_label(name):
            labels = obj["metadata"].get("labels")
            if type(labels) is not dict:
                labels = obj["metadata"]["labels"] = {}
            labels["kubernetes.io/metadata.name"] = name


def prepare_for_create(rt: ResourceType, obj: dict[str, Any], builtin: bool, now: str) -> None:
    """Reset what a client may not set on create, chiefly the status (in place)."""
    gk = (rt.group, rt.kind)
    if gk == _POD:
        obj["status"] = initial_pod_status(obj)
    elif gk == _NAMESPACE:
        obj["status"] = {"phase": "Active"}
        spec = obj.get("spec")
        if type(spec) is not dict:
            spec = obj["spec"] = {}
        finalizers = spec.get("finalizers") or []
        if "kubernetes" not in finalizers:
            spec["finalizers"] = [*finalizers, "kubernetes"]
    elif gk == ("", "PersistentVolume"):
        obj["status"] = {"phase": "Pending", "lastPhaseTransitionTime": now}
    elif rt is CRD_TYPE:
        obj["status"] = _crd_status(obj, now)
    elif rt.status_subresource and gk not in _KEEPS_STATUS_ON_CREATE:
        if builtin:
            obj["status"] = {}
        else:
            obj.pop("status", None)


def _crd_status(crd: dict[str, Any], now: str) -> dict[str, Any]:
    spec = crd["spec"] if isinstance(crd.get("spec"), dict) else {}  # validated after this
    versions = spec["versions"] if isinstance(spec.get("versions"), list) else []
    storage = [v.get("name") for v in versions if isinstance(v, dict) and v.get("storage")]
    names = spec["names"] if isinstance(spec.get("names"), dict) else {}
    condition = {"status": "True", "lastTransitionTime": now}
    return {
        "acceptedNames": dict(names),
        "conditions": [
            {"type": "NamesAccepted", "reason": "NoConflicts", "message": "no conflicts found", **condition},
            {
                "type": "Established",
                "reason": "InitialNamesAccepted",
                "message": "the initial names have been accepted",
                **condition,
            },
        ],
        "storedVersions": storage,
    }


def validate_kind(rt: ResourceType, obj: dict[str, Any]) -> list[FieldError]:
    """Kind-specific validation of the object's own fields (metadata is checked elsewhere)."""
    if rt.custom is not None:
        return rt.custom.validate(obj)
    if rt is CRD_TYPE:
        return check_definition(obj)[1]
    if (rt.group, rt.kind) == _POD:
        return validate_pod(obj)
    return []
