"""The cluster's nodes and pods rebuilt from a timeline, event by event.

The timeline holds full objects for creates and patches, the target of deletes, and
the pod with its node for podScheduled; that is enough to know, after any event,
where every pod runs and how much of every node is requested. A pod counts against
its node while it is bound and not terminal (Succeeded/Failed), as in
`kubectl describe node`; pods bound to a node that is gone count again if a node of
that name comes back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from kubesim.api import ScenarioStep
from kubesim.k8s.keys import namespaced_name as pod_key  # "namespace/name", the key of a pod in `ClusterState.pods`
from kubesim.results.events import TimelineEvent
from kubesim.results.resources import node_allocatable, pod_requests, pod_usage

__all__ = ["ClusterState", "NodeState", "PodState", "pod_key"]

_TERMINAL = ("Succeeded", "Failed")


def _older(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """True when `new` is an earlier version than `old` (both with numeric resourceVersions)."""
    a = (new.get("metadata") or {}).get("resourceVersion")
    b = (old.get("metadata") or {}).get("resourceVersion")
    return isinstance(a, str) and isinstance(b, str) and a.isdigit() and b.isdigit() and int(a) < int(b)


@attrs.define(slots=True, eq=False)
class PodState:
    """A pod as the timeline last showed it."""

    key: str
    uid: str | None
    requests: dict[str, int]
    created: ScenarioStep
    priority: int = 0
    node: str | None = None
    terminal: bool = False
    usage: dict[str, int] | None = None
    object: Mapping[str, Any] = attrs.field(factory=dict, repr=False)

    @property
    def pending(self) -> bool:
        """Not bound to a node and not finished: waiting for a scheduler."""
        return self.node is None and not self.terminal


@attrs.define(slots=True, eq=False)
class NodeState:
    """A node with the sums over the pods that count against it."""

    name: str
    allocatable: dict[str, int]
    unschedulable: bool = False
    object: Mapping[str, Any] = attrs.field(factory=dict, repr=False)
    requested: dict[str, int] = attrs.field(factory=dict)
    pods: int = 0
    usage: dict[str, int] = attrs.field(factory=dict)
    usage_pods: int = 0


def _add(dst: dict[str, int], src: Mapping[str, int], sign: int) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, 0) + sign * v


class ClusterState:
    """Nodes and pods after the events applied so far; read it, do not change it."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeState] = {}
        self.pods: dict[str, PodState] = {}
        self._on_node: dict[str, set[str]] = {}

    # --- queries ---------------------------------------------------------------

    def pending_pods(self) -> Iterator[PodState]:
        """Pods that are not bound and not finished, in creation order."""
        return (p for p in self.pods.values() if p.pending)

    def pods_on(self, node: str) -> Iterator[PodState]:
        """Pods bound to `node` that count against it, by key."""
        for key in sorted(self._on_node.get(node, ())):
            pod = self.pods[key]
            if not pod.terminal:
                yield pod

    # --- replay ----------------------------------------------------------------

    def apply(self, event: TimelineEvent) -> None:
        """Apply one timeline event (stepEnd markers and events about other kinds change nothing)."""
        kind = event.kind
        if kind in ("stepEnd", "done"):
            return
        if kind in ("podScheduled", "podUnscheduled", "podPreempted"):
            pr = event.pod_result
            assert pr is not None
            pod = self._upsert_pod(pr.pod, event.step)
            if kind == "podScheduled" and pr.bound_to:
                self._set(pod, node=pr.bound_to)
            return
        api_version, obj_kind, namespace, name = event.target
        if api_version != "v1" or obj_kind not in ("Pod", "Node"):
            return
        if kind == "delete":
            if obj_kind == "Pod":
                self._delete_pod(pod_key(namespace, name))
            else:
                self.nodes.pop(name, None)
            return
        obj = event.object
        assert obj is not None
        if obj_kind == "Pod":
            self._upsert_pod(obj, event.step)
        else:
            self._upsert_node(obj)

    # --- pods ------------------------------------------------------------------

    def _charge(self, pod: PodState, sign: int) -> None:
        if pod.node is None or pod.terminal:
            return
        node = self.nodes.get(pod.node)
        if node is None:
            return
        _add(node.requested, pod.requests, sign)
        node.pods += sign
        if pod.usage is not None:
            _add(node.usage, pod.usage, sign)
            node.usage_pods += sign

    def _set(self, pod: PodState, **changes: Any) -> None:
        self._charge(pod, -1)
        if "node" in changes and changes["node"] != pod.node:
            if pod.node is not None:
                self._on_node.get(pod.node, set()).discard(pod.key)
            if changes["node"] is not None:
                self._on_node.setdefault(changes["node"], set()).add(pod.key)
        for k, v in changes.items():
            setattr(pod, k, v)
        self._charge(pod, +1)

    def _upsert_pod(self, obj: Mapping[str, Any], step: ScenarioStep) -> PodState:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        key = pod_key(meta.get("namespace"), str(meta.get("name", "")))
        uid = meta.get("uid")
        pod = self.pods.get(key)
        if pod is not None and uid and pod.uid and pod.uid != uid:
            self._delete_pod(key)  # a new pod under an old name
            pod = None
        if pod is None:
            pod = PodState(key, uid, {}, step)
            self.pods[key] = pod
        elif _older(obj, pod.object):
            return pod  # a pod event may carry the pod as its sender saw it, before a later write
        self._set(
            pod,
            uid=uid or pod.uid,
            requests=pod_requests(obj),
            priority=int(spec.get("priority") or 0),
            node=spec.get("nodeName") or pod.node,
            terminal=(obj.get("status") or {}).get("phase") in _TERMINAL,
            usage=pod_usage(obj),
            object=obj,
        )
        return pod

    def _delete_pod(self, key: str) -> None:
        pod = self.pods.pop(key, None)
        if pod is None:
            return
        self._charge(pod, -1)
        if pod.node is not None:
            self._on_node.get(pod.node, set()).discard(key)

    # --- nodes -----------------------------------------------------------------

    def _upsert_node(self, obj: Mapping[str, Any]) -> None:
        name = str((obj.get("metadata") or {}).get("name", ""))
        node = self.nodes.get(name)
        fresh = node is None
        if node is None:
            node = self.nodes[name] = NodeState(name, {})
        node.allocatable = node_allocatable(obj)
        node.unschedulable = bool((obj.get("spec") or {}).get("unschedulable"))
        node.object = obj
        if fresh:
            for key in sorted(self._on_node.get(name, ())):
                self._charge(self.pods[key], +1)
