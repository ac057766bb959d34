"""The kinds `kubesim import` copies, in the order a scenario must create them.

The order is dependency order: what an object refers to is created before it (a pod's
namespace, PriorityClass, node and claims). Bound pods come before the workloads that own
them, and a workload before its own owner (ReplicaSet before Deployment), so that a
controller adopts what exists (k8s.io/kubernetes pkg/controller/controller_ref_manager.go,
ClaimPods) instead of creating replacements for it.
"""

from __future__ import annotations

import attrs

__all__ = ["CONTROLLED_KINDS", "DEFAULT_NAMESPACES", "DRA_GROUP", "IMPORTED_KINDS", "KindSpec",
           "SYSTEM_PRIORITY_CLASSES", "kind_rank", "spec_for"]

from kubesim.cluster.namespaces import DEFAULT_NAMESPACES
from kubesim.cluster.priority import SYSTEM_PRIORITY_CLASSES

DRA_GROUP = "resource.k8s.io"
"""Dynamic Resource Allocation's API group: imported only when the server serves it."""


@attrs.frozen
class KindSpec:
    """One imported kind: API group, the versions to read (preferred first), plural, scope."""

    group: str
    kind: str
    plural: str
    namespaced: bool
    versions: tuple[str, ...] = ("v1",)


IMPORTED_KINDS: tuple[KindSpec, ...] = (
    KindSpec("", "Namespace", "namespaces", False),
    KindSpec("scheduling.k8s.io", "PriorityClass", "priorityclasses", False),
    KindSpec("storage.k8s.io", "StorageClass", "storageclasses", False),
    KindSpec("storage.k8s.io", "CSIDriver", "csidrivers", False),
    KindSpec("", "PersistentVolume", "persistentvolumes", False),
    KindSpec("", "Node", "nodes", False),
    KindSpec("storage.k8s.io", "CSINode", "csinodes", False),
    KindSpec("storage.k8s.io", "CSIStorageCapacity", "csistoragecapacities", True),
    KindSpec(DRA_GROUP, "DeviceClass", "deviceclasses", False, ("v1", "v1beta2", "v1beta1")),
    KindSpec(DRA_GROUP, "ResourceSlice", "resourceslices", False, ("v1", "v1beta2", "v1beta1")),
    KindSpec("", "PersistentVolumeClaim", "persistentvolumeclaims", True),
    KindSpec(DRA_GROUP, "ResourceClaimTemplate", "resourceclaimtemplates", True, ("v1", "v1beta2", "v1beta1")),
    KindSpec(DRA_GROUP, "ResourceClaim", "resourceclaims", True, ("v1", "v1beta2", "v1beta1")),
    KindSpec("policy", "PodDisruptionBudget", "poddisruptionbudgets", True),
    KindSpec("", "Pod", "pods", True),
    KindSpec("batch", "Job", "jobs", True),
    KindSpec("apps", "DaemonSet", "daemonsets", True),
    KindSpec("apps", "StatefulSet", "statefulsets", True),
    KindSpec("apps", "ReplicaSet", "replicasets", True),
    KindSpec("apps", "Deployment", "deployments", True),
)
"""Every kind imported, in creation order. Secrets and ConfigMaps are never imported."""

CONTROLLED_KINDS = frozenset({"ReplicaSet", "StatefulSet"})
"""Owners whose pods kubesim's controllers (kubesim-replicaset, kubesim-statefulset) create
and adopt; pods of other owners (DaemonSet, Job) are always kept as they are."""

_RANK = {(s.group, s.kind): i for i, s in enumerate(IMPORTED_KINDS)}
_BY_KIND = {(s.group, s.kind): s for s in IMPORTED_KINDS}


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def spec_for(api_version: str, kind: str) -> KindSpec | None:
    """The KindSpec of an object's apiVersion and kind, None when the kind is not imported."""
    return _BY_KIND.get((_group(api_version), kind))


def kind_rank(api_version: str, kind: str) -> int:
    """The position of a kind in creation order."""
    return _RANK[(_group(api_version), kind)]

