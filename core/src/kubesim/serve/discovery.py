"""Discovery documents: /version, /api, /apis, /apis/GROUP and each group version's resource list.

Shapes as kube-apiserver v1.34 serves them: the legacy documents of k8s.io/apiserver
pkg/endpoints/discovery (APIVersions, APIGroupList, APIGroup, APIResourceList) and the
aggregated discovery of pkg/endpoints/discovery/aggregated (apidiscovery.k8s.io/v2
APIGroupDiscoveryList, v2beta1 too), which kubectl asks for first. Built from the Catalog,
so a CRD shows up as soon as it is registered.
"""

from __future__ import annotations

from typing import Any

from kubesim.serve.catalog import Catalog, Served

__all__ = [
    "AGGREGATED_VERSIONS",
    "KUBERNETES_VERSION",
    "aggregated",
    "api_group",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "version_info",
]

KUBERNETES_VERSION = "v1.34.1"
"""The Kubernetes version kubesim models (its scheduler, validation and OpenAPI)."""

AGGREGATED_VERSIONS = ("v2", "v2beta1")
"""The apidiscovery.k8s.io versions served (the Accept header picks one)."""


def version_info() -> dict[str, Any]:
    """/version: the modelled Kubernetes version (kubectl compares it with its own)."""
    return {"major": "1", "minor": KUBERNETES_VERSION.split(".")[1], "gitVersion": f"{KUBERNETES_VERSION}+kubesim",
            "gitCommit": "", "gitTreeState": "clean", "buildDate": "", "goVersion": "", "compiler": "kubesim",
            "platform": "linux/amd64"}


def api_versions() -> dict[str, Any]:
    """/api: the core group's versions."""
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": ""}]}


def _group(name: str, versions: list[str]) -> dict[str, Any]:
    entries = [{"groupVersion": f"{name}/{v}", "version": v} for v in versions]
    return {"name": name, "versions": entries, "preferredVersion": entries[0]}


def api_group_list(catalog: Catalog) -> dict[str, Any]:
    """/apis: every non-core group with its versions."""
    groups = [_group(g, vs) for g, vs in catalog.group_versions().items() if g]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(catalog: Catalog, group: str) -> dict[str, Any] | None:
    """/apis/GROUP: one group's versions; None: not served."""
    versions = catalog.group_versions().get(group) if group else None
    if not versions:
        return None
    return {"kind": "APIGroup", "apiVersion": "v1", **_group(group, versions)}


def _legacy_resources(s: Served) -> list[dict[str, Any]]:
    rt = s.rt
    entry: dict[str, Any] = {"name": rt.plural, "singularName": s.singular, "namespaced": rt.namespaced,
                             "kind": rt.kind, "verbs": list(s.verbs)}
    if s.short_names:
        entry["shortNames"] = list(s.short_names)
    if s.categories:
        entry["categories"] = list(s.categories)
    found = [entry]
    for sub in s.subresources:
        one: dict[str, Any] = {"name": f"{rt.plural}/{sub.name}", "singularName": "", "namespaced": rt.namespaced}
        if (sub.group, sub.version) != (rt.group, rt.version):
            one.update(group=sub.group, version=sub.version)
        one.update(kind=sub.kind, verbs=list(sub.verbs))
        found.append(one)
    return found


def api_resource_list(catalog: Catalog, group: str, version: str) -> dict[str, Any] | None:
    """/api/v1 or /apis/GROUP/VERSION: the resources (and subresources) served there; None: not served."""
    served = catalog.in_version(group, version)
    if not served:
        return None
    resources = [r for s in served for r in _legacy_resources(s)]
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": resources}


def _response_kind(s: Served, group: str, version: str, kind: str) -> dict[str, str]:
    # Built-ins: the APIResource's group and version, empty unless they differ from the parent's
    # (endpoints/installer.go ConvertGroupVersionIntoToDiscovery); CRDs: always set
    # (apiextensions-apiserver pkg/apiserver/customresource_discovery_controller.go).
    if s.crd is None and group == s.rt.group:
        return {"group": "", "version": "", "kind": kind}
    return {"group": group, "version": version, "kind": kind}


def _discovered(s: Served, version: str) -> dict[str, Any]:
    rt = s.rt
    entry: dict[str, Any] = {"resource": rt.plural, "responseKind": _response_kind(s, rt.group, version, rt.kind),
                             "scope": "Namespaced" if rt.namespaced else "Cluster",
                             "singularResource": s.singular, "verbs": list(s.verbs)}
    if s.short_names:
        entry["shortNames"] = list(s.short_names)
    if s.categories:
        entry["categories"] = list(s.categories)
    if s.subresources:
        entry["subresources"] = [
            {"subresource": sub.name,
             "responseKind": _response_kind(s, sub.group, version if sub.group == rt.group else sub.version,
                                            sub.kind),
             "verbs": list(sub.verbs)}
            for sub in s.subresources]
    return entry


def aggregated(catalog: Catalog, legacy: bool, version: str = "v2") -> dict[str, Any]:
    """The APIGroupDiscoveryList of /api (`legacy`: the core group) or /apis (every other group)."""
    items = []
    for group, versions in catalog.group_versions().items():
        if (group == "") != legacy:
            continue
        entries = [{"version": v, "resources": [_discovered(s, v) for s in catalog.in_version(group, v)],
                    "freshness": "Current"} for v in versions]
        meta: dict[str, Any] = {"name": group, "creationTimestamp": None} if group else {"creationTimestamp": None}
        items.append({"metadata": meta, "versions": entries})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": f"apidiscovery.k8s.io/{version}", "metadata": {},
            "items": items}
