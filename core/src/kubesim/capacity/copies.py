"""Pods to place: copies of a template, pending pods in the scheduling queue's order, and
placing a group of pods the way the scheduler's queue retries them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kubesim.capacity.simulator import Placement, SchedulingSimulator

__all__ = ["pending_pods", "place_all", "pod_copies", "pod_key", "queue_order"]


def pod_key(pod: Mapping[str, Any]) -> str:
    """namespace/name."""
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def pod_copies(template: Mapping[str, Any], taken: set[str], prefix: str = "") -> Iterator[dict[str, Any]]:
    """Copies named `<name>-<i>` from i = 0 (cluster-capacity's singlePodGenerator), skipping
    names already in `taken`, with deterministic uids."""
    # upstream: kubernetes-sigs/cluster-capacity pkg/framework/podgenerator.go (Generate)
    meta = template.get("metadata") or {}
    base = str(meta.get("name") or str(meta.get("generateName", "pod")).rstrip("-"))
    namespace = meta.get("namespace") or "default"
    i = 0
    while True:
        name = f"{base}-{i}"
        i += 1
        if f"{namespace}/{name}" in taken:
            continue
        # copies share the template's deeper parts (containers, affinity ...): nothing writes
        # them; each gets its own metadata and spec mappings (a bind replaces spec)
        pmeta = {k: v for k, v in meta.items() if k not in ("generateName", "resourceVersion")}
        pmeta.update(name=name, namespace=namespace, uid=f"kubesim-capacity-{prefix}{i - 1}")
        for field in ("labels", "annotations"):
            if isinstance(pmeta.get(field), dict):
                pmeta[field] = dict(pmeta[field])
        spec = {k: v for k, v in (template.get("spec") or {}).items() if k != "nodeName"}
        yield {**template, "metadata": pmeta, "spec": spec}


def _priority(pod: Mapping[str, Any]) -> int:
    value = (pod.get("spec") or {}).get("priority")
    return value if isinstance(value, int) else 0


def queue_order(pods: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """PrioritySort's order: higher priority first, then earlier creation, then namespace/name."""
    # upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go (Less)
    return sorted(pods, key=lambda p: (-_priority(p), str((p.get("metadata") or {}).get("creationTimestamp") or ""),
                                       pod_key(p)))


def pending_pods(objects: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Pods waiting for a node (no spec.nodeName, not terminal, not being deleted, not gated)."""
    out = []
    for obj in objects:
        if obj.get("kind") != "Pod" or obj.get("apiVersion") != "v1":
            continue
        spec = obj.get("spec") or {}
        if spec.get("nodeName") or spec.get("schedulingGates"):
            continue
        if (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        if (obj.get("metadata") or {}).get("deletionTimestamp"):
            continue
        out.append(obj)
    return queue_order(out)


def place_all(sim: SchedulingSimulator, pods: Sequence[Mapping[str, Any]], explain: bool = False) -> dict[str, Placement]:
    """Schedule `pods` in queue order; the ones that fail are tried again after every pass
    that bound something (a bind is the cluster event that requeues them), until a pass binds
    nothing: at most len(pods) passes. Returns each pod's last placement by namespace/name
    (without `explain`, PostFilter is not run: see SchedulingSimulator.schedule)."""
    out: dict[str, Placement] = {}
    todo = queue_order(pods)
    while todo:
        failed = []
        for pod in todo:
            placement = sim.schedule(pod, explain)
            out[pod_key(pod)] = placement
            if placement.node is None:
                failed.append(pod)
        if len(failed) == len(todo):
            break
        todo = failed
    return out
