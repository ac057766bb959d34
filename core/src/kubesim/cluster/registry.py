"""The kinds the embedded API serves: built-in Kubernetes kinds plus CRDs registered at run time.

Scopes and status subresources of the built-ins are as kube-apiserver registers them
(pkg/registry/*/storage). A CRD is registered under its storage version; any served version
resolves to it (the "None" conversion strategy: only apiVersion differs between versions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import structlog

from kubesim.apiextensions import CustomResourceSchemas, check_definition
from kubesim.errors import NotFound
from kubesim.k8s.content_memo import content_key
from kubesim.k8s.validation import invalid, invalid_error

__all__ = [
    "BUILTIN_TYPES",
    "CRD_TYPE",
    "ResourceRegistry",
    "ResourceType",
    "crd_group_kind",
    "crd_resource_type",
]

log = structlog.get_logger(__name__)


@attrs.frozen(cache_hash=True)
class ResourceType:
    """One registered kind: where it lives in the API and how the API server treats it."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    status_subresource: bool
    custom: CustomResourceSchemas | None = attrs.field(default=None, eq=False, repr=False)
    """A CRD's schemas: how its objects are pruned, defaulted and validated (None: built-in)."""

    @property
    def api_version(self) -> str:
        """ "v1" for the core group, else "group/version"."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """How API errors name the resource: "pods", "deployments.apps"."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def group_kind(self) -> str:
        """How validation errors name the kind: "Pod", "Deployment.apps"."""
        return f"{self.kind}.{self.group}" if self.group else self.kind


def _t(
    group: str, kind: str, plural: str, namespaced: bool = True, status: bool = False, version: str = "v1"
) -> ResourceType:
    return ResourceType(group, version, kind, plural, namespaced, status)


BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _t("", "Namespace", "namespaces", namespaced=False, status=True),
    _t("", "Node", "nodes", namespaced=False, status=True),
    _t("", "Pod", "pods", status=True),
    _t("", "Service", "services", status=True),
    _t("", "Endpoints", "endpoints"),
    _t("", "ConfigMap", "configmaps"),
    _t("", "Secret", "secrets"),
    _t("", "ServiceAccount", "serviceaccounts"),
    _t("", "PersistentVolume", "persistentvolumes", namespaced=False, status=True),
    _t("", "PersistentVolumeClaim", "persistentvolumeclaims", status=True),
    _t("", "Event", "events"),
    _t("", "ResourceQuota", "resourcequotas", status=True),
    _t("", "LimitRange", "limitranges"),
    _t("", "ReplicationController", "replicationcontrollers", status=True),
    _t("apps", "Deployment", "deployments", status=True),
    _t("apps", "ReplicaSet", "replicasets", status=True),
    _t("apps", "StatefulSet", "statefulsets", status=True),
    _t("apps", "DaemonSet", "daemonsets", status=True),
    _t("apps", "ControllerRevision", "controllerrevisions"),
    _t("batch", "Job", "jobs", status=True),
    _t("batch", "CronJob", "cronjobs", status=True),
    _t("policy", "PodDisruptionBudget", "poddisruptionbudgets", status=True),
    _t("scheduling.k8s.io", "PriorityClass", "priorityclasses", namespaced=False),
    _t("storage.k8s.io", "StorageClass", "storageclasses", namespaced=False),
    _t("storage.k8s.io", "CSINode", "csinodes", namespaced=False),
    _t("storage.k8s.io", "CSIDriver", "csidrivers", namespaced=False),
    _t("storage.k8s.io", "VolumeAttachment", "volumeattachments", namespaced=False, status=True),
    _t("storage.k8s.io", "CSIStorageCapacity", "csistoragecapacities"),
    _t("coordination.k8s.io", "Lease", "leases"),
    _t("resource.k8s.io", "DeviceClass", "deviceclasses", namespaced=False),
    _t("resource.k8s.io", "ResourceClaim", "resourceclaims", status=True),
    _t("resource.k8s.io", "ResourceClaimTemplate", "resourceclaimtemplates"),
    _t("resource.k8s.io", "ResourceSlice", "resourceslices", namespaced=False),
    _t(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        namespaced=False,
        status=True,
    ),
)

CRD_TYPE = BUILTIN_TYPES[-1]


class ResourceRegistry:
    """Resolves (apiVersion, kind) to a ResourceType; CRDs can be added while running."""

    def __init__(self) -> None:
        self._by_group_kind: dict[tuple[str, str], ResourceType] = {}
        self._by_version_kind: dict[tuple[str, str], ResourceType] = {}
        self._builtin = frozenset((t.group, t.kind) for t in BUILTIN_TYPES)
        self._sorted: list[ResourceType] | None = None
        self._scale: dict[tuple[str, str], Mapping[str, Any]] = {}
        for t in BUILTIN_TYPES:
            self._add(t, [t.version])

    def _add(self, rt: ResourceType, versions: list[str]) -> None:
        old = self._by_group_kind.get((rt.group, rt.kind))
        if old is not None:
            self._by_version_kind = {k: v for k, v in self._by_version_kind.items() if v is not old}
        self._by_group_kind[(rt.group, rt.kind)] = rt
        for v in versions:
            self._by_version_kind[(f"{rt.group}/{v}" if rt.group else v, rt.kind)] = rt
        self._sorted = None

    def lookup(self, api_version: str, kind: str) -> ResourceType:
        """The type of `kind` in `api_version`; NotFound like kubectl's "no matches for kind"."""
        rt = self._by_version_kind.get((api_version, kind))
        if rt is None:
            raise NotFound(f'no matches for kind "{kind}" in version "{api_version}"')
        return rt

    def get(self, group: str, kind: str) -> ResourceType | None:
        """The type registered for a group and kind, whatever its version; None if unknown."""
        return self._by_group_kind.get((group, kind))

    def types(self) -> list[ResourceType]:
        """Every registered type, sorted by (group, kind): the order objects are listed in."""
        if self._sorted is None:
            self._sorted = sorted(self._by_group_kind.values(), key=lambda t: (t.group, t.kind))
        return list(self._sorted)

    def is_builtin(self, rt: ResourceType) -> bool:
        """True for kinds compiled into the API server (strategic merge patch works for these)."""
        return (rt.group, rt.kind) in self._builtin

    def register_crd(self, crd: Mapping[str, Any]) -> ResourceType:
        """Register the kind an apiextensions.k8s.io/v1 CustomResourceDefinition defines.

        Registering the same definition again is harmless; a changed one replaces the old.
        Raises Invalid when the definition is incomplete or names a built-in kind.
        """
        rt, served = crd_resource_type(crd)
        if (rt.group, rt.kind) in self._builtin:
            name = str((crd.get("metadata") or {}).get("name", ""))
            raise invalid_error(
                CRD_TYPE.group_kind,
                name,
                [invalid("spec.names.kind", rt.kind, f"{rt.kind}.{rt.group} is a built-in kind")],
            )
        new = self._by_group_kind.get((rt.group, rt.kind)) is None
        if new and rt.custom is not None and rt.custom.uses_cel():
            name = str((crd.get("metadata") or {}).get("name", ""))
            log.warning("x-kubernetes-validations (CEL) rules are not evaluated by kubesim", crd=name)
        self._add(rt, served)
        self._scale.pop((rt.group, rt.kind), None)
        for version in (crd.get("spec") or {}).get("versions") or ():
            scale = ((version.get("subresources") or {}) if isinstance(version, Mapping) else {}).get("scale")
            if version.get("storage") is True and isinstance(scale, Mapping):
                self._scale[(rt.group, rt.kind)] = scale
        return rt

    def custom_scale(self, rt: ResourceType) -> Mapping[str, Any] | None:
        """A custom kind's scale subresource (specReplicasPath, statusReplicasPath,
        labelSelectorPath) as its CRD's storage version declares it; None without one."""
        return self._scale.get((rt.group, rt.kind))

    def unregister(self, group: str, kind: str) -> None:
        """Forget a CRD's kind (its CustomResourceDefinition was deleted)."""
        rt = self._by_group_kind.get((group, kind))
        if rt is None or (group, kind) in self._builtin:
            return
        del self._by_group_kind[(group, kind)]
        self._scale.pop((group, kind), None)
        self._by_version_kind = {k: v for k, v in self._by_version_kind.items() if v is not rt}
        self._sorted = None


def crd_resource_type(crd: Mapping[str, Any]) -> tuple[ResourceType, list[str]]:
    """Validate a CRD and return the ResourceType of its storage version and its served versions."""
    meta: Mapping[str, Any] = crd["metadata"] if isinstance(crd.get("metadata"), Mapping) else {}
    checked, errs = check_definition(crd)
    if checked is None:
        raise invalid_error(CRD_TYPE.group_kind, str(meta.get("name") or ""), errs)
    custom = CustomResourceSchemas(checked.kind, checked.storage_version, checked.schemas,
                                   content_key(crd.get("spec")))
    rt = ResourceType(
        checked.group, checked.storage_version, checked.kind, checked.plural, checked.namespaced,
        checked.status_subresource, custom,
    )
    return rt, list(checked.served_versions)


def crd_group_kind(crd: Mapping[str, Any]) -> tuple[str, str]:
    """(group, kind) named by a CRD object, without validating it."""
    spec = crd.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    names = spec.get("names")
    return str(spec.get("group", "")), str((names if isinstance(names, Mapping) else {}).get("kind", ""))
