"""The patchStrategy / patchMergeKey struct tags of the built-in kinds, as patch schemas.

Transcribed from the Go struct tags in k8s.io/api (core/v1, apps/v1, batch/v1, policy/v1,
storage/v1 types.go) and k8s.io/apimachinery pkg/apis/meta/v1/types.go. Only the paths that
lead to a tagged field are listed; everything else merges with the default rules (maps
merge, lists are replaced), which is what an untagged Go field does.
"""

from __future__ import annotations

from collections.abc import Mapping

from .strategic import PatchField, PatchSchema

__all__ = ["schema_for"]


def _merge(key: str = "", schema: PatchSchema | None = None, *, retain_keys: bool = False) -> PatchField:
    return PatchField("merge,retainKeys" if retain_keys else "merge", key, schema)


def _struct(schema: PatchSchema) -> PatchField:
    return PatchField("", "", schema)


OBJECT_META: PatchSchema = {
    "ownerReferences": _merge("uid"),
    "finalizers": _merge(),
}

CONTAINER: PatchSchema = {
    "ports": _merge("containerPort"),
    "env": _merge("name"),
    "volumeMounts": _merge("mountPath"),
    "volumeDevices": _merge("devicePath"),
}

POD_SPEC: PatchSchema = {
    "volumes": _merge("name", retain_keys=True),
    "initContainers": _merge("name", CONTAINER),
    "containers": _merge("name", CONTAINER),
    "ephemeralContainers": _merge("name", CONTAINER),
    "imagePullSecrets": _merge("name"),
    "hostAliases": _merge("ip"),
    "topologySpreadConstraints": _merge("topologyKey"),
    "schedulingGates": _merge("name"),
    "resourceClaims": _merge("name", retain_keys=True),
}

_CONDITIONS: PatchSchema = {"conditions": _merge("type")}

POD_STATUS: PatchSchema = {
    "conditions": _merge("type"),
    "hostIPs": _merge("ip"),
    "podIPs": _merge("ip"),
    "resourceClaimStatuses": _merge("name", retain_keys=True),
}

POD_TEMPLATE: PatchSchema = {"metadata": _struct(OBJECT_META), "spec": _struct(POD_SPEC)}

_WITH_TEMPLATE: PatchSchema = {"template": _struct(POD_TEMPLATE)}

_JOB_SPEC: PatchSchema = {"template": _struct(POD_TEMPLATE)}


def _kind(spec: PatchSchema | None = None, status: PatchSchema | None = None) -> PatchSchema:
    schema = {"metadata": _struct(OBJECT_META)}
    if spec is not None:
        schema["spec"] = _struct(spec)
    if status is not None:
        schema["status"] = _struct(status)
    return schema


_GENERIC = _kind()

_SCHEMAS: Mapping[tuple[str, str], PatchSchema] = {
    ("", "Pod"): _kind(POD_SPEC, POD_STATUS),
    ("", "PodTemplate"): {"metadata": _struct(OBJECT_META), "template": _struct(POD_TEMPLATE)},
    ("", "ReplicationController"): _kind(_WITH_TEMPLATE, _CONDITIONS),
    ("", "Node"): _kind({"podCIDRs": _merge()}, {"conditions": _merge("type"), "addresses": _merge("type")}),
    ("", "Namespace"): _kind(None, _CONDITIONS),
    ("", "Service"): _kind({"ports": _merge("port")}, _CONDITIONS),
    ("", "ServiceAccount"): {"metadata": _struct(OBJECT_META), "secrets": _merge("name")},
    ("", "PersistentVolumeClaim"): _kind(None, _CONDITIONS),
    ("apps", "Deployment"): _kind(
        {"template": _struct(POD_TEMPLATE), "strategy": PatchField("retainKeys")}, _CONDITIONS
    ),
    ("apps", "ReplicaSet"): _kind(_WITH_TEMPLATE, _CONDITIONS),
    ("apps", "StatefulSet"): _kind(_WITH_TEMPLATE, _CONDITIONS),
    ("apps", "DaemonSet"): _kind(_WITH_TEMPLATE, _CONDITIONS),
    ("batch", "Job"): _kind(_JOB_SPEC, _CONDITIONS),
    ("batch", "CronJob"): _kind(
        {"jobTemplate": _struct({"metadata": _struct(OBJECT_META), "spec": _struct(_JOB_SPEC)})}
    ),
    ("policy", "PodDisruptionBudget"): _kind({"selector": PatchField("replace")}, _CONDITIONS),
    ("storage.k8s.io", "CSINode"): _kind({"drivers": _merge("name")}),
}


def schema_for(group: str, kind: str) -> PatchSchema:
    """The patch schema of a built-in kind (metadata rules only for kinds without tagged fields)."""
    return _SCHEMAS.get((group, kind), _GENERIC)
