"""Builders for the Kubernetes objects tests create: plain dicts in the API's JSON form.

Every builder returns a new dict that `Cluster.create`, a Scenario's createOperation and
`kubectl apply` all accept; keyword arguments left out are left out of the object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "deployment",
    "namespace",
    "node",
    "owner_reference",
    "pod",
    "pod_template",
    "priority_class",
    "replicaset",
    "statefulset",
    "taint",
]

Obj = dict[str, Any]
DEFAULT_IMAGE = "registry.k8s.io/pause:3.10"


def _meta(
    name: str, namespace: str | None, labels: Mapping[str, str] | None, annotations: Mapping[str, str] | None
) -> Obj:
    meta: Obj = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def taint(spec: str | Mapping[str, Any]) -> Obj:
    """A node taint from `kubectl taint` syntax ("key=value:Effect", "key:Effect") or a dict."""
    if not isinstance(spec, str):
        return dict(spec)
    key_value, sep, effect = spec.rpartition(":")
    if not sep or not key_value or not effect:
        raise ValueError(f"taint {spec!r}: expected key[=value]:Effect")
    key, has_value, value = key_value.partition("=")
    out: Obj = {"key": key, "effect": effect}
    if has_value:
        out["value"] = value
    return out


def node(
    name: str,
    *,
    cpu: str | int = "4",
    memory: str = "8Gi",
    pods: str | int = 110,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[str | Mapping[str, Any]] = (),
    ready: bool | str | None = True,
    unschedulable: bool = False,
    resources: Mapping[str, str | int] | None = None,
    ip: str | None = None,
) -> Obj:
    """A v1 Node with capacity = allocatable, the hostname label and (unless ready=None) a Ready condition.

    `ready` is the condition's status: True, False or a string ("Unknown").
    `resources` adds extended resources (e.g. {"nvidia.com/gpu": 2}); `taints` take
    `kubectl taint` strings or dicts.
    """
    capacity = {"cpu": str(cpu), "memory": str(memory), "pods": str(pods)}
    capacity.update({k: str(v) for k, v in (resources or {}).items()})
    status: Obj = {"capacity": dict(capacity), "allocatable": dict(capacity)}
    if ready is not None:
        state = ready if isinstance(ready, str) else ("True" if ready else "False")
        status["conditions"] = [{"type": "Ready", "status": state}]
    if ip is not None:
        status["addresses"] = [{"type": "InternalIP", "address": ip}]
    spec: Obj = {}
    if taints:
        spec["taints"] = [taint(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": _meta(name, None, {"kubernetes.io/hostname": name, **(labels or {})}, None),
        "status": status,
    }
    if spec:
        obj["spec"] = spec
    return obj


def _container(
    name: str, image: str, cpu: str | int | None, memory: str | None, limits: Mapping[str, str | int] | None
) -> Obj:
    container: Obj = {"name": name, "image": image}
    requests = {k: str(v) for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    resources: Obj = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = {k: str(v) for k, v in limits.items()}
    if resources:
        container["resources"] = resources
    return container


def owner_reference(
    owner: Mapping[str, Any], *, controller: bool = True, block_owner_deletion: bool | None = None
) -> Obj:
    """An ownerReference to a stored object (it must have a uid)."""
    meta = owner["metadata"]
    ref: Obj = {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": controller,
    }
    if block_owner_deletion is not None:
        ref["blockOwnerDeletion"] = block_owner_deletion
    return ref


def pod(
    name: str,
    *,
    namespace: str = "default",
    cpu: str | int | None = None,
    memory: str | None = None,
    limits: Mapping[str, str | int] | None = None,
    node_name: str | None = None,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    priority: int | None = None,
    priority_class_name: str | None = None,
    image: str = DEFAULT_IMAGE,
    container: str = "main",
    owner: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Obj:
    """A v1 Pod with one container (`container`) requesting `cpu`/`memory` (left out when not given).

    `owner` makes a stored object the pod's controller; `spec` adds or overrides spec fields
    (tolerations, affinity, terminationGracePeriodSeconds, ...).
    """
    body: Obj = {"containers": [_container(container, image, cpu, memory, limits)]}
    if node_name is not None:
        body["nodeName"] = node_name
    if priority is not None:
        body["priority"] = priority
    if priority_class_name is not None:
        body["priorityClassName"] = priority_class_name
    body.update(spec or {})
    meta = _meta(name, namespace, labels, annotations)
    if owner is not None:
        meta["ownerReferences"] = [owner_reference(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def namespace(name: str, *, labels: Mapping[str, str] | None = None) -> Obj:
    """A v1 Namespace."""
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _meta(name, None, labels, None)}


def priority_class(
    name: str,
    value: int,
    *,
    global_default: bool = False,
    preemption_policy: str | None = None,
    description: str | None = None,
) -> Obj:
    """A scheduling.k8s.io/v1 PriorityClass."""
    obj: Obj = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if global_default:
        obj["globalDefault"] = True
    if preemption_policy is not None:
        obj["preemptionPolicy"] = preemption_policy
    if description is not None:
        obj["description"] = description
    return obj


def pod_template(
    labels: Mapping[str, str],
    *,
    image: str = DEFAULT_IMAGE,
    cpu: str | int | None = None,
    memory: str | None = None,
    container: str = "main",
    spec: Mapping[str, Any] | None = None,
) -> Obj:
    """A PodTemplateSpec carrying `labels`, with one container."""
    body: Obj = {"containers": [_container(container, image, cpu, memory, None)], **(spec or {})}
    return {"metadata": {"labels": dict(labels)}, "spec": body}


def _workload(
    kind: str,
    name: str,
    namespace: str,
    replicas: int,
    labels: Mapping[str, str] | None,
    template: Mapping[str, Any] | None,
    template_options: Mapping[str, Any],
    spec: Mapping[str, Any] | None,
) -> Obj:
    selected = dict(labels) if labels else {"app": name}
    body: Obj = {
        "replicas": replicas,
        "selector": {"matchLabels": selected},
        "template": dict(template) if template is not None else pod_template(selected, **template_options),
    }
    body.update(spec or {})
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
    }


def deployment(
    name: str,
    replicas: int = 1,
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    image: str = DEFAULT_IMAGE,
    cpu: str | int | None = None,
    memory: str | None = None,
    container: str = "main",
    template: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Obj:
    """An apps/v1 Deployment selecting `labels` (default app=<name>); `spec` adds fields (strategy, ...)."""
    return _workload(
        "Deployment",
        name,
        namespace,
        replicas,
        labels,
        template,
        {"image": image, "cpu": cpu, "memory": memory, "container": container},
        spec,
    )


def replicaset(
    name: str,
    replicas: int = 1,
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    image: str = DEFAULT_IMAGE,
    cpu: str | int | None = None,
    memory: str | None = None,
    container: str = "main",
    template: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Obj:
    """An apps/v1 ReplicaSet selecting `labels` (default app=<name>)."""
    return _workload(
        "ReplicaSet",
        name,
        namespace,
        replicas,
        labels,
        template,
        {"image": image, "cpu": cpu, "memory": memory, "container": container},
        spec,
    )


def statefulset(
    name: str,
    replicas: int = 1,
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    service_name: str = "",
    image: str = DEFAULT_IMAGE,
    cpu: str | int | None = None,
    memory: str | None = None,
    container: str = "main",
    template: Mapping[str, Any] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Obj:
    """An apps/v1 StatefulSet selecting `labels` (default app=<name>), governed by `service_name`."""
    extra: Obj = {"serviceName": service_name or name, **(spec or {})}
    return _workload(
        "StatefulSet",
        name,
        namespace,
        replicas,
        labels,
        template,
        {"image": image, "cpu": cpu, "memory": memory, "container": container},
        extra,
    )
