"""Per-kind rules the API server applies on write, like its registry strategies:
defaulting, PrepareForCreate (initial status), and kind-specific validation on create and update.

Sources: k8s.io/kubernetes pkg/registry/*/strategy.go (PrepareForCreate, Validate,
ValidateUpdate), pkg/apis/*/v1 defaults.go, and apiextensions-apiserver's
customResourceStrategy (status dropped on create when the status subresource is on). The
validation itself lives in kubesim.cluster.validation, one module per API group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesim.apiextensions import check_definition, default_definition
from kubesim.k8s.validation import FieldError, is_dns1123_label

from .pods import default_pod, initial_pod_status
from .priority import default_priority_class
from .registry import CRD_TYPE, ResourceType
from .validation import apps, batch, dra, nodes, podspec, policy, scheduling, storage
from .workload_defaults import (
    default_daemonset,
    default_deployment,
    default_job,
    default_replicaset,
    default_statefulset,
    generate_job_selector,
)

__all__ = ["apply_defaults", "prepare_for_create", "prepare_for_validation", "validate_kind", "validate_kind_update", "validate_status_update"]

Obj = dict[str, Any]

_POD = ("", "Pod")
_NAMESPACE = ("", "Namespace")
_PRIORITY_CLASS = ("scheduling.k8s.io", "PriorityClass")
_KEEPS_STATUS_ON_CREATE = {("", "Node")}  # "Nodes allow *all* fields, including status, to be set on create."

_DEFAULTS: dict[tuple[str, str], Callable[[Obj], None]] = {
    ("apps", "Deployment"): default_deployment,
    ("apps", "ReplicaSet"): default_replicaset,
    ("apps", "StatefulSet"): default_statefulset,
    ("apps", "DaemonSet"): default_daemonset,
    ("batch", "Job"): default_job,
    ("", "PersistentVolume"): storage.default_persistent_volume,
    ("", "PersistentVolumeClaim"): storage.default_persistent_volume_claim,
    ("storage.k8s.io", "StorageClass"): storage.default_storage_class,
    ("storage.k8s.io", "CSIDriver"): storage.default_csi_driver,
    ("resource.k8s.io", "ResourceClaim"): lambda o: dra.default_device_claim(((o.get("spec") or {}).get("devices"))),
    ("resource.k8s.io", "ResourceClaimTemplate"): lambda o: dra.default_device_claim(
        (((o.get("spec") or {}).get("spec") or {}).get("devices"))),
}
_VALIDATE: dict[tuple[str, str], Callable[[Obj], list[FieldError]]] = {
    _POD: podspec.validate_pod,
    ("", "Node"): nodes.validate_node,
    _NAMESPACE: nodes.validate_namespace,
    ("apps", "Deployment"): apps.validate_deployment,
    ("apps", "ReplicaSet"): apps.validate_replicaset,
    ("apps", "StatefulSet"): apps.validate_statefulset,
    ("apps", "DaemonSet"): apps.validate_daemonset,
    ("batch", "Job"): batch.validate_job,
    ("policy", "PodDisruptionBudget"): policy.validate_pod_disruption_budget,
    _PRIORITY_CLASS: scheduling.validate_priority_class,
    ("", "PersistentVolume"): storage.validate_persistent_volume,
    ("", "PersistentVolumeClaim"): storage.validate_persistent_volume_claim,
    ("storage.k8s.io", "StorageClass"): storage.validate_storage_class,
    ("storage.k8s.io", "CSINode"): storage.validate_csi_node,
    ("storage.k8s.io", "CSIDriver"): storage.validate_csi_driver,
    ("resource.k8s.io", "DeviceClass"): dra.validate_device_class,
    ("resource.k8s.io", "ResourceClaim"): dra.validate_resource_claim,
    ("resource.k8s.io", "ResourceClaimTemplate"): dra.validate_resource_claim_template,
    ("resource.k8s.io", "ResourceSlice"): dra.validate_resource_slice,
}


def _with_selector(validate: Callable[[Obj], list[FieldError]]) -> Callable[[Obj, Obj], list[FieldError]]:
    """An apps/v1 update check: the object's own rules, and spec.selector may not change."""
    return lambda new, old: validate(new) + apps.validate_immutable_selector(new, old)


_VALIDATE_UPDATE: dict[tuple[str, str], Callable[[Obj, Obj], list[FieldError]]] = {
    _POD: podspec.validate_pod_update,
    ("", "Node"): nodes.validate_node_update,
    ("apps", "Deployment"): _with_selector(apps.validate_deployment),
    ("apps", "ReplicaSet"): _with_selector(apps.validate_replicaset),
    ("apps", "StatefulSet"): lambda new, old: (apps.validate_statefulset_update(new, old)
                                               + apps.validate_immutable_selector(new, old)),
    ("apps", "DaemonSet"): _with_selector(apps.validate_daemonset),
    ("batch", "Job"): batch.validate_job_update,
    _NAMESPACE: lambda new, old: [],  # ValidateNamespaceUpdate checks metadata only
    _PRIORITY_CLASS: scheduling.validate_priority_class_update,
    ("", "PersistentVolume"): storage.validate_persistent_volume_update,
    ("", "PersistentVolumeClaim"): storage.validate_persistent_volume_claim_update,
    ("storage.k8s.io", "StorageClass"): storage.validate_storage_class_update,
    ("storage.k8s.io", "CSIDriver"): storage.validate_csi_driver_update,
    ("resource.k8s.io", "ResourceClaim"): dra.validate_resource_claim_update,
}


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
    elif gk in _DEFAULTS:
        _DEFAULTS[gk](obj)
    elif gk == _NAMESPACE:
        name = (obj.get("metadata") or {}).get("name")
        if isinstance(name, str) and name and not is_dns1123_label(name):
            labels = obj["metadata"].get("labels")
            if type(labels) is not dict:
                labels = obj["metadata"]["labels"] = {}
            labels["kubernetes.io/metadata.name"] = name


def prepare_for_validation(rt: ResourceType, obj: dict[str, Any]) -> None:
    """The part of PrepareForCreate that validation depends on (a Job's generated selector)."""
    if (rt.group, rt.kind) == ("batch", "Job"):
        generate_job_selector(obj)


def prepare_for_create(rt: ResourceType, obj: dict[str, Any], builtin: bool, now: str) -> None:
    """Reset what a client may not set on create, chiefly the status (in place)."""
    gk = (rt.group, rt.kind)
    if gk == _POD:
        obj["status"] = initial_pod_status(obj)
    elif gk == ("batch", "Job"):
        prepare_for_validation(rt, obj)
        obj["status"] = {}
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
    elif gk == ("", "PersistentVolumeClaim"):
        obj["status"] = {"phase": "Pending"}
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
    """Kind-specific validation of a new object's own fields (metadata is checked elsewhere)."""
    if rt.custom is not None:
        return rt.custom.validate(obj)
    if rt is CRD_TYPE:
        return check_definition(obj)[1]
    validate = _VALIDATE.get((rt.group, rt.kind))
    return validate(obj) if validate is not None else []


_VALIDATE_STATUS: dict[tuple[str, str], Callable[[Obj, Obj], list[FieldError]]] = {
    ("", "Node"): nodes.validate_node_update,  # nodeStatusStrategy.ValidateUpdate is ValidateNodeUpdate
    ("resource.k8s.io", "ResourceClaim"): dra.validate_resource_claim_update,
}


def validate_status_update(rt: ResourceType, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Validation of a status subresource write (the status strategy's ValidateUpdate)."""
    if rt.custom is not None:  # customResourceStatusStrategy validates status against the schema
        return rt.custom.validate(new, "status")
    validate = _VALIDATE_STATUS.get((rt.group, rt.kind))
    return validate(new, old) if validate is not None else []


def validate_kind_update(rt: ResourceType, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """Kind-specific validation of an update (the strategy's ValidateUpdate; metadata aside)."""
    validate = _VALIDATE_UPDATE.get((rt.group, rt.kind))
    if validate is not None:
        return validate(new, old)
    return validate_kind(rt, new)
