"""Builders for the DynamicResources tests: an in-memory API for resource.k8s.io objects and
objects shaped like upstream's st.MakeResourceClaim()/MakeResourceSlice() wrappers."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from kubesim_scheduler.scheduler import Scheduler

DRIVER = "some-driver"
NS = "default"


class FakeApi:
    """Lister and writer over plain dicts (the scheduler's view of resource.k8s.io objects)."""

    def __init__(self, *objects: Mapping[str, Any]) -> None:
        self.objects: dict[tuple[str, str | None, str], dict[str, Any]] = {}
        for o in objects:
            self.put(copy.deepcopy(dict(o)))

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        m = obj["metadata"]
        self.objects[(obj["kind"], m.get("namespace"), m["name"])] = obj
        return obj

    def list(self, kind: str, namespace: str | None) -> Iterable[Mapping[str, Any]]:
        return [o for (k, ns, _), o in sorted(self.objects.items(), key=lambda kv: kv[0][2])
                if k == kind and (namespace is None or ns == namespace)]

    def update(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.put(copy.deepcopy(dict(obj)))

    def update_status(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.put(copy.deepcopy(dict(obj)))

    def claim(self, name: str) -> dict[str, Any]:
        return self.objects[("ResourceClaim", NS, name)]


def node(name: str, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    cap = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {"capacity": cap, "allocatable": cap}}


def device_class(name: str = "class", *selectors: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": s}} for s in selectors]}}


def device(name: str, **attributes: Any) -> dict[str, Any]:
    attrs_ = {}
    for k, v in attributes.items():
        kind = "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "string"
        attrs_[k] = {kind: v}
    return {"name": name, "attributes": attrs_, "capacity": {"memory": {"value": "16Gi"}}}


def resource_slice(node_name: str, *devices: Mapping[str, Any], pool: str = "", driver: str = DRIVER,
                   generation: int = 0, count: int = 1, name: str = "") -> dict[str, Any]:
    pool = pool or node_name
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name or f"{node_name}-{driver}"},
            "spec": {"driver": driver, "nodeName": node_name, "devices": [dict(d) for d in devices],
                     "pool": {"name": pool, "generation": generation, "resourceSliceCount": count}}}


def request(name: str = "req-1", cls: str = "class", count: int | None = 1, mode: str = "ExactCount",
            selectors: Iterable[str] = (), admin: bool = False) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    if admin:
        exactly["adminAccess"] = True
    return {"name": name, "exactly": exactly}


def claim(name: str = "my-claim", *requests: Mapping[str, Any], constraints: Iterable[Mapping[str, Any]] = (),
          owner: Mapping[str, Any] | None = None, allocation: Mapping[str, Any] | None = None,
          reserved_for: Iterable[Mapping[str, Any]] = (), deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"uid-{name}"}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner["metadata"]["name"],
                                    "uid": owner["metadata"]["uid"], "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
        meta["finalizers"] = ["x"]
    status: dict[str, Any] = {}
    if allocation is not None:
        status["allocation"] = copy.deepcopy(dict(allocation))
    if reserved_for:
        status["reservedFor"] = [dict(r) for r in reserved_for]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": [dict(r) for r in (requests or (request(),))],
                                 "constraints": [dict(c) for c in constraints]}}, "status": status}


def pod(name: str = "my-pod", *, claim_name: str = "my-claim", template: str = "", generated: str | None = None,
        uid: str = "") -> dict[str, Any]:
    entry = {"name": "my-pod-claim"}
    if template:
        entry["resourceClaimTemplateName"] = template
    else:
        entry["resourceClaimName"] = claim_name
    status: dict[str, Any] = {"phase": "Pending"}
    if generated is not None:
        status["resourceClaimStatuses"] = [{"name": "my-pod-claim", "resourceClaimName": generated}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "uid": uid or f"uid-{name}"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "my-pod-claim"}]}}],
                     "resourceClaims": [entry], "schedulerName": "default-scheduler"},
            "status": status}


def in_use(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"resource": "pods", "name": p["metadata"]["name"], "uid": p["metadata"]["uid"]}


def allocation_on(node_name: str, *devices: str, req: str = "req-1") -> dict[str, Any]:
    return {"devices": {"results": [{"request": req, "driver": DRIVER, "pool": node_name, "device": d} for d in devices]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}


def schedule(api: FakeApi, nodes: Iterable[Mapping[str, Any]], the_pod: Mapping[str, Any], *others: Mapping[str, Any]) -> Any:
    s = Scheduler(lister=api.list, writer=api, seed=0)
    for n in nodes:
        s.add_node(n)
    for o in others:
        s.add_pod(o)
    s.add_pod(the_pod)
    attempts = s.run(max_attempts=5)
    return s, attempts


def dra_reasons(attempt: Any) -> dict[str, str]:
    return {n: r["DynamicResources"] for n, r in attempt.filter_results().items()
            if r.get("DynamicResources", "passed") != "passed"}
