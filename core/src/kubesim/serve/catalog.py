"""What the server serves, per resource: names, verbs, subresources and, for CRDs, the definition.

One `Catalog` feeds discovery, OpenAPI and tables. The built-ins' short names, categories,
verbs and subresources are kube-apiserver v1.34's (pkg/registry/*/storage: ShortNames(),
Categories(), the REST interfaces each storage implements); a CRD's come from its
spec.names. The catalog is rebuilt only when the registered kinds or the stored CRDs change.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Mapping
from typing import Any

import attrs

from kubesim.cluster import Cluster
from kubesim.cluster.jsontree import copy_tree
from kubesim.cluster.registry import CRD_TYPE, ResourceType, crd_group_kind
from kubesim.scenario.crd import SCENARIO_CRD
from kubesim.serve.resources import served_versions
from kubesim.serve.state import ServerState

__all__ = ["ALL_VERBS", "Catalog", "Served", "Subresource", "catalog_of", "version_priority"]

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
_NO_COLLECTION_DELETE = ("create", "delete", "get", "list", "patch", "update", "watch")
_SUB_VERBS = ("get", "patch", "update")


@attrs.frozen
class Subresource:
    """One served subresource: its name, the kind it answers with and its verbs."""

    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...]


@attrs.frozen
class Served:
    """One served resource (all its versions) as discovery lists it."""

    rt: ResourceType
    versions: tuple[str, ...]
    singular: str
    short_names: tuple[str, ...]
    categories: tuple[str, ...]
    verbs: tuple[str, ...]
    subresources: tuple[Subresource, ...]
    crd: Mapping[str, Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The CustomResourceDefinition (None for built-ins)."""


_ALL = ("all",)
# (group, plural) -> (short names, categories); pkg/registry/<group>/<resource>/storage/storage.go
_NAMES: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("", "configmaps"): (("cm",), ()),
    ("", "endpoints"): (("ep",), ()),
    ("", "events"): (("ev",), ()),
    ("", "limitranges"): (("limits",), ()),
    ("", "namespaces"): (("ns",), ()),
    ("", "nodes"): (("no",), ()),
    ("", "persistentvolumeclaims"): (("pvc",), ()),
    ("", "persistentvolumes"): (("pv",), ()),
    ("", "pods"): (("po",), _ALL),
    ("", "replicationcontrollers"): (("rc",), _ALL),
    ("", "resourcequotas"): (("quota",), ()),
    ("", "serviceaccounts"): (("sa",), ()),
    ("", "services"): (("svc",), _ALL),
    ("apps", "daemonsets"): (("ds",), _ALL),
    ("apps", "deployments"): (("deploy",), _ALL),
    ("apps", "replicasets"): (("rs",), _ALL),
    ("apps", "statefulsets"): (("sts",), _ALL),
    ("batch", "cronjobs"): (("cj",), _ALL),
    ("batch", "jobs"): ((), _ALL),
    ("policy", "poddisruptionbudgets"): (("pdb",), ()),
    ("scheduling.k8s.io", "priorityclasses"): (("pc",), ()),
    ("storage.k8s.io", "storageclasses"): (("sc",), ()),
    ("apiextensions.k8s.io", "customresourcedefinitions"): (("crd", "crds"), ("api-extensions",)),
}

# Built-in groups in the order kube-apiserver lists them (pkg/controlplane/apiserver/aggregator.go
# apiVersionPriorities, highest group priority first); CRD groups follow, by name.
_GROUP_ORDER = ("", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
                "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
                "rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io",
                "apiextensions.k8s.io", "scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io",
                "discovery.k8s.io", "flowcontrol.apiserver.k8s.io", "resource.k8s.io")


def _group_priority(group: str) -> tuple[int, str]:
    return (_GROUP_ORDER.index(group) if group in _GROUP_ORDER else len(_GROUP_ORDER), group)


_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(version: str) -> tuple[int, int, int, str]:
    """A sort key putting versions in kube-aware order (k8s.io/apimachinery pkg/version
    CompareKubeAwareVersionStrings): v2, v1, v1beta2, v1beta1, v1alpha1, then others by name."""
    found = _KUBE_VERSION.match(version)
    if found is None:
        return (3, 0, 0, version)
    major, stage, minor = found.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0), version)


_SCALED = frozenset({("", "replicationcontrollers"), ("apps", "deployments"), ("apps", "replicasets"),
                     ("apps", "statefulsets")})


def _builtin_subresources(rt: ResourceType) -> tuple[Subresource, ...]:
    subs: list[Subresource] = []
    if (rt.group, rt.plural) == ("", "pods"):
        # pods/binding and pods/eviction (pkg/registry/core/pod/storage: BindingREST, EvictionREST)
        subs.append(Subresource("binding", "", "v1", "Binding", ("create",)))
        subs.append(Subresource("eviction", "policy", "v1", "Eviction", ("create",)))
    if (rt.group, rt.plural) in _SCALED:
        subs.append(Subresource("scale", "autoscaling", "v1", "Scale", _SUB_VERBS))
    if rt.status_subresource:
        subs.append(Subresource("status", rt.group, rt.version, rt.kind, _SUB_VERBS))
    return tuple(subs)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _custom(rt: ResourceType, crd: Mapping[str, Any] | None, scalable: bool
            ) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[Subresource, ...]]:
    """A CRD kind's singular name, short names, categories and subresources (scale when its storage
    version declares one: registry.custom_scale, what serve/subresources.py serves)."""
    spec = crd.get("spec") if crd is not None else None
    names = spec.get("names") if isinstance(spec, Mapping) else None
    names = names if isinstance(names, Mapping) else {}
    singular = names.get("singular") if isinstance(names.get("singular"), str) else ""
    subs: list[Subresource] = []
    if scalable:
        subs.append(Subresource("scale", "autoscaling", "v1", "Scale", _SUB_VERBS))
    if rt.status_subresource:
        subs.append(Subresource("status", rt.group, rt.version, rt.kind, _SUB_VERBS))
    return singular or rt.kind.lower(), _strings(names.get("shortNames")), _strings(names.get("categories")), \
        tuple(subs)


@attrs.frozen
class Catalog:
    """Every served resource, sorted by (group, plural)."""

    served: tuple[Served, ...]

    def in_version(self, group: str, version: str) -> list[Served]:
        """The resources served in one group version."""
        return [s for s in self.served if s.rt.group == group and version in s.versions]

    def group_versions(self) -> dict[str, list[str]]:
        """Group ("" for core) -> its served versions, in kube-apiserver's order: groups by priority,
        versions highest first (the first is the preferred version)."""
        groups: dict[str, list[str]] = {}
        for s in self.served:
            versions = groups.setdefault(s.rt.group, [])
            versions.extend(v for v in s.versions if v not in versions)
        return {g: sorted(groups[g], key=version_priority) for g in sorted(groups, key=_group_priority)}

    def find(self, rt: ResourceType) -> Served | None:
        """The entry of one registered type."""
        return next((s for s in self.served if s.rt == rt), None)


def _build(cluster: Cluster, crds: Mapping[tuple[str, str], Mapping[str, Any]]) -> Catalog:
    registry = cluster.registry
    served: list[Served] = []
    for rt in registry.types():
        versions = tuple(served_versions(registry, rt))
        if registry.is_builtin(rt):
            short, cats = _NAMES.get((rt.group, rt.plural), ((), ()))
            verbs = _NO_COLLECTION_DELETE if (rt.group, rt.plural) == ("", "namespaces") else ALL_VERBS
            served.append(Served(rt, versions, rt.kind.lower(), short, cats, verbs, _builtin_subresources(rt)))
            continue
        crd = crds.get((rt.group, rt.kind))
        singular, short, cats, subs = _custom(rt, crd, registry.custom_scale(rt) is not None)
        served.append(Served(rt, versions, singular, short, cats, ALL_VERBS, subs, crd))
    served.sort(key=lambda s: (s.rt.group, s.rt.plural))
    return Catalog(tuple(served))


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.key: object = None
        self.catalog: Catalog | None = None


_CACHES: weakref.WeakKeyDictionary[ServerState, _Cache] = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def catalog_of(state: ServerState) -> Catalog:
    """The catalog of `state`'s cluster as it is now (cached until a kind or a CRD changes)."""
    with _CACHES_LOCK:
        cache = _CACHES.setdefault(state, _Cache())
    with state.locked() as cluster:
        stored = list(cluster.list(CRD_TYPE.api_version, CRD_TYPE.kind))
        key = (tuple(cluster.registry.types()),
               tuple((o["metadata"]["name"], o["metadata"].get("resourceVersion")) for o in stored))
        with cache.lock:
            if cache.catalog is not None and cache.key == key:
                return cache.catalog
        crds: dict[tuple[str, str], Mapping[str, Any]] = {crd_group_kind(SCENARIO_CRD): SCENARIO_CRD}
        if state.hooks is not None:
            for crd in state.hooks.custom_resources():
                crds[crd_group_kind(crd)] = crd
        for obj in stored:  # copies: the catalog is read without the lock
            crds[crd_group_kind(obj)] = copy_tree(obj)
        catalog = _build(cluster, crds)
    with cache.lock:
        cache.key, cache.catalog = key, catalog
    return catalog
