"""Builders for the storage objects of the volume plugin tables, and a store that lists them.

They mirror upstream's st.MakePersistentVolume()/MakePersistentVolumeClaim() wrappers and
the fake listers (tf.PersistentVolumeLister ...) closely enough that the tables read like
the Go originals.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scheduler_harness import make_pod

from kubesim_scheduler.framework import CycleState, Status
from kubesim_scheduler.testing import PluginTestFramework, new_framework, register_plugin

Obj = dict[str, Any]
_rv = itertools.count(1)

ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def make_pv(name: str, *, labels: Mapping[str, str] | None = None, capacity: str | None = None,
            storage_class: str = "", claim: tuple[str, str, str] | None = None, phase: str | None = None,
            access_modes: Sequence[str] = (), node_affinity: Mapping[str, Sequence[str]] | None = None,
            csi: tuple[str, str] | None = None, annotations: Mapping[str, str] | None = None) -> Obj:
    """A PersistentVolume; `claim` is (namespace, name, uid) of its claimRef, `csi` (driver, handle)."""
    spec: Obj = {}
    if capacity is not None:
        spec["capacity"] = {"storage": capacity}
    if storage_class:
        spec["storageClassName"] = storage_class
    if claim is not None:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1], "uid": claim[2]}
    if access_modes:
        spec["accessModes"] = list(access_modes)
    if node_affinity is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": k, "operator": "In", "values": list(v)} for k, v in node_affinity.items()]}]}}
    if csi is not None:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    meta: Obj = {"name": name, "labels": dict(labels or {}), "resourceVersion": str(next(_rv))}
    if annotations:
        meta["annotations"] = dict(annotations)
    pv: Obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec}
    if phase is not None:
        pv["status"] = {"phase": phase}
    return pv


def make_pvc(name: str, *, namespace: str = "default", volume: str = "", storage_class: str | None = None,
             request: str | None = None, access_modes: Sequence[str] = (), uid: str = "",
             annotations: Mapping[str, str] | None = None, phase: str | None = None,
             owner_uid: str = "", deleting: bool = False) -> Obj:
    """A PersistentVolumeClaim (`volume`: spec.volumeName; `owner_uid`: its controlling pod)."""
    spec: Obj = {}
    if volume:
        spec["volumeName"] = volume
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    if request is not None:
        spec["resources"] = {"requests": {"storage": request}}
    if access_modes:
        spec["accessModes"] = list(access_modes)
    meta: Obj = {"name": name, "namespace": namespace, "uid": uid or f"pvc-uid-{name}",
                 "resourceVersion": str(next(_rv))}
    if annotations:
        meta["annotations"] = dict(annotations)
    if owner_uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "owner", "uid": owner_uid,
                                    "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    pvc: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}
    if phase is not None:
        pvc["status"] = {"phase": phase}
    return pvc


def make_sc(name: str, mode: str | None = None, provisioner: str = "", *,
            allowed_topologies: Sequence[Mapping[str, Sequence[str]]] | None = None) -> Obj:
    """A StorageClass (`mode` None: volumeBindingMode unset, as upstream's fake listers allow)."""
    sc: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
               "provisioner": provisioner}
    if mode is not None:
        sc["volumeBindingMode"] = mode
    if allowed_topologies is not None:
        sc["allowedTopologies"] = [{"matchLabelExpressions": [{"key": k, "values": list(v)} for k, v in t.items()]}
                                   for t in allowed_topologies]
    return sc


def make_csinode(name: str, limits: Mapping[str, int | None], *, annotations: Mapping[str, str] | None = None) -> Obj:
    """A CSINode with one driver per entry (None: a driver without allocatable.count)."""
    drivers = []
    for driver, count in limits.items():
        d: Obj = {"name": driver, "nodeID": name, "topologyKeys": []}
        if count is not None:
            d["allocatable"] = {"count": count}
        drivers.append(d)
    meta: Obj = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta, "spec": {"drivers": drivers}}


def pvc_pod(name: str, *claims: str, node: str = "", namespace: str = "default", uid: str = "",
            extra_volumes: Sequence[Mapping[str, Any]] = ()) -> Obj:
    """A pod with one persistentVolumeClaim volume per claim name (st.MakePod().PVC(...))."""
    volumes = [{"name": f"vol-{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)]
    volumes.extend(dict(v) for v in extra_volumes)
    pod = make_pod(name, node=node, spec_extra={"volumes": volumes} if volumes else None)
    pod["metadata"]["namespace"] = namespace
    if uid:
        pod["metadata"]["uid"] = uid
    return pod


class ObjectStore:
    """The API objects the plugins list (a fake informer cache) and the updates they write."""

    def __init__(self, objects: Iterable[Mapping[str, Any]] = ()) -> None:
        self.objects: dict[tuple[str, str, str], Obj] = {}
        self.updates: list[Obj] = []
        for o in objects:
            self.put(o)

    @staticmethod
    def _key(o: Mapping[str, Any]) -> tuple[str, str, str]:
        meta = o.get("metadata") or {}
        return str(o.get("kind")), str(meta.get("namespace") or ""), str(meta.get("name") or "")

    def put(self, o: Mapping[str, Any]) -> None:
        self.objects[self._key(o)] = copy.deepcopy(dict(o))

    def list(self, kind: str, namespace: str | None) -> list[Obj]:
        return [o for (k, ns, _), o in sorted(self.objects.items()) if k == kind and (namespace is None or ns == namespace)]

    def update(self, obj: dict[str, Any]) -> Obj:
        """clientset Update: bumps the resourceVersion; the object must exist."""
        key = self._key(obj)
        if key not in self.objects:
            raise LookupError(f'{key[0].lower()} "{key[2]}" not found')
        stored = copy.deepcopy(obj)
        stored.setdefault("metadata", {})["resourceVersion"] = str(next(_rv))
        self.objects[key] = stored
        self.updates.append(stored)
        return stored


def volume_framework(plugin: str, store: ObjectStore, nodes: Sequence[Mapping[str, Any]] = (),
                     pods: Sequence[Mapping[str, Any]] = (), feature_gates: Mapping[str, bool] | None = None,
                     args: Mapping[str, Any] | None = None) -> PluginTestFramework:
    """A framework with just `plugin`, reading and writing `store`."""
    return new_framework([register_plugin(plugin, args=args)], nodes, pods, lister=store.list,
                         update_object=store.update, feature_gates=feature_gates)


def pre_filter_then_filter(fw: PluginTestFramework, plugin: str, pod: Mapping[str, Any], node: str,
                           ) -> tuple[Status | None, Status | None, CycleState]:
    """The plugin's PreFilter status, then its Filter status on `node` (run even after a failed
    or skipped PreFilter, as upstream's tables do), and the cycle state."""
    pl: Any = fw.plugin(plugin)
    state = fw.cycle_state(pod)
    _res, pre = pl.pre_filter(state, pod, None)
    info = fw.scheduler.handle.get_node_info(node)
    filt = pl.filter(state, pod, info)
    return pre, filt, state
