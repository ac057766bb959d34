"""Discovery documents: /version, /api, /apis and each group version's resource list.

Shapes as kube-apiserver serves them (k8s.io/apiserver pkg/endpoints/discovery), built
from the cluster's registry so CRDs appear as soon as they are registered.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster.registry import ResourceRegistry, ResourceType
from kubesim.serve.resources import served_versions
from kubesim.serve import subresources

__all__ = ["KUBERNETES_VERSION", "api_group_list", "api_resource_list", "api_versions", "version_info"]

KUBERNETES_VERSION = "v1.34.1"
"""The Kubernetes version kubesim models (its scheduler, validation and OpenAPI)."""

_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def version_info() -> dict[str, Any]:
    """/version: the modelled Kubernetes version (kubectl compares it with its own)."""
    return {"major": "1", "minor": KUBERNETES_VERSION.split(".")[1], "gitVersion": f"{KUBERNETES_VERSION}+kubesim",
            "gitCommit": "", "gitTreeState": "clean", "buildDate": "", "goVersion": "", "compiler": "kubesim",
            "platform": "linux/amd64"}


def _groups(registry: ResourceRegistry) -> dict[str, list[str]]:
    """Non-core group -> its served versions (the preferred, i.e. storage, version first)."""
    groups: dict[str, list[str]] = {}
    for rt in registry.types():
        if not rt.group:
            continue
        versions = groups.setdefault(rt.group, [])
        for v in served_versions(registry, rt):
            if v not in versions:
                versions.append(v)
    return groups


def api_versions() -> dict[str, Any]:
    """/api: the core group's versions."""
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]}


def api_group_list(registry: ResourceRegistry) -> dict[str, Any]:
    """/apis: every non-core group with its versions."""
    groups = []
    for group, versions in sorted(_groups(registry).items()):
        entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        groups.append({"name": group, "versions": entries, "preferredVersion": entries[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def _types_in(registry: ResourceRegistry, group: str, version: str) -> list[ResourceType]:
    return [rt for rt in registry.types() if rt.group == group and version in served_versions(registry, rt)]


def api_resource_list(registry: ResourceRegistry, group: str, version: str) -> dict[str, Any] | None:
    """/api/v1 or /apis/GROUP/VERSION: the resources (and subresources) served there; None: not served."""
    types = _types_in(registry, group, version)
    if not types:
        return None
    resources: list[dict[str, Any]] = []
    for rt in sorted(types, key=lambda t: t.plural):
        resources.append({"name": rt.plural, "singularName": rt.kind.lower(), "namespaced": rt.namespaced,
                          "kind": rt.kind, "verbs": list(_VERBS)})
        if rt.status_subresource:
            resources.append({"name": f"{rt.plural}/status", "singularName": "", "namespaced": rt.namespaced,
                              "kind": rt.kind, "verbs": ["get", "patch", "update"]})
        resources.extend(subresources.discovery_entries(registry, rt))  # scale, binding, eviction (helper "rest")
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": resources}
