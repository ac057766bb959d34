"""The kubelet of every node at once, in simulated time (what KWOK does for a real cluster).

It reconciles two kinds of keys: ("Node", "", name) posts a healthy node status, and
("Pod", namespace, name) moves a bound pod along its lifecycle: Pending -> Running (or Failed
for an invalid simSpec) -> Succeeded when its simSpec ends, and a terminating pod is removed
(delete with grace period 0) once its deletionTimestamp has passed. Times that lie ahead are
waited for with `queue.add_after`, so they happen in the first step whose time reaches them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import timedelta
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.controllers import GRACEFUL_POD_DELETION
from kubesim.clock import format_time, parse_time
from kubesim.cluster import FieldSelector, WatchEvent, copy_tree
from kubesim.errors import ApiError, Conflict, NotFound

from .admission import rejection
from .identities import NODE_NETWORK, POD_NETWORK, AddressPool
from .node_status import internal_ip, node_ready_state, node_status_update
from .pod_status import (
    INVALID_SIM_SPEC_REASON,
    TERMINAL_PHASES,
    failed_status,
    node_settled,
    pod_settled,
    running_status,
    sim_spec_message,
    succeeded_status,
)
from .simspec import USAGE_ANNOTATION, SimSpecError, effective_time, sim_spec_of, usage_annotation

__all__ = ["KubeletController"]

NODE, POD = "Node", "Pod"
_NODE_NAME = "spec.nodeName"
Key = tuple[str, str, str]


_AN_INSTANT = timedelta(microseconds=1)
"""The smallest step of the simulated clock: a pod whose phases all last 0 s ends after it."""


class KubeletController(ReconcileController):
    """Node readiness and the pod lifecycle for every node of the cluster.

    It provides graceful pod deletion: in a scenario that runs it, a deleted bound pod keeps
    running with a deletionTimestamp until this kubelet finishes it.
    """

    name = "kubelet"
    provides = frozenset({GRACEFUL_POD_DELETION})
    watches = (("v1", "Node"), ("v1", "Pod"))

    def __init__(self, runtime: Runtime) -> None:
        self._node_ips = AddressPool(NODE_NETWORK)
        self._pod_ips = AddressPool(POD_NETWORK)
        self._assigned_node_ips: dict[str, str] = {}
        self._assigned_pod_ips: dict[tuple[str, str], str] = {}
        self._to_verify: dict[Key, None] = {}
        super().__init__(runtime)

    # --- keys -------------------------------------------------------------------

    @staticmethod
    def _key(obj: dict[str, Any]) -> Key:
        meta = obj.get("metadata") or {}
        kind = str(obj.get("kind"))
        return (kind, str(meta.get("namespace", "")) if kind == POD else "", str(meta.get("name", "")))

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        key = self._key(obj)
        self._to_verify[key] = None
        return [key]

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        key = self._key(obj)
        self._to_verify[key] = None
        keys: list[Hashable] = [key]
        if key[0] == NODE and event.type != "DELETED":
            before = node_ready_state(event.old_object or {}) if event.old_object is not None else None
            if node_ready_state(obj) != before:  # pods waiting for (or stopped by) this node's kubelet
                for pod in self.reader.list("v1", "Pod", field_selector=FieldSelector.equals(_NODE_NAME, key[2])):
                    pod_key = self._key(pod)
                    self._to_verify[pod_key] = None
                    keys.append(pod_key)
        return keys

    # --- reconcile --------------------------------------------------------------

    def reconcile(self, key: Hashable) -> None:
        kind, namespace, name = cast(Key, key)
        self._to_verify[(kind, namespace, name)] = None
        try:
            if kind == NODE:
                self._sync_node(name)
            else:
                self._sync_pod(namespace, name)
        except (Conflict, NotFound):
            self.queue.add(key)  # the object changed or went away meanwhile: look again
        except ApiError as exc:
            self.log.warning("kubelet write failed", kind=kind, namespace=namespace, name=name, error=exc.message)

    def _sync_node(self, name: str) -> None:
        try:
            node = self.client.get("v1", "Node", name, copy=False)  # read-only: written as a new status
        except NotFound:
            return
        given = internal_ip(node)
        if given is not None:
            self._node_ips.reserve(given)
            ip = None
        else:
            ip = self._assigned_node_ips.get(name)
            if ip is None:
                ip = self._assigned_node_ips[name] = self._node_ips.allocate()
        status = node_status_update(node, self.runtime.clock.timestamp(), ip)
        if status is not None:
            self._write_status(node, status)

    def _write_status(self, stored: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        """Write a new status for a stored (read-only) object without copying the rest of it:
        copy on write. Returns the stored object afterwards (read-only too)."""
        new = dict(stored)
        new["metadata"] = dict(stored["metadata"])
        new["status"] = status
        return self.client.update_status(new, copy=False)

    def _node_of(self, pod: dict[str, Any]) -> dict[str, Any] | None:
        """The stored node a pod is bound to (read-only), None when unbound or gone."""
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return None
        try:
            return self.client.get("v1", "Node", node_name, copy=False)
        except NotFound:
            return None

    def _sync_pod(self, namespace: str, name: str) -> None:
        # pods and nodes are read as stored (read-only); every write builds a new status
        try:
            pod = self.client.get("v1", "Pod", name, namespace, copy=False)
        except NotFound:
            self._assigned_pod_ips.pop((namespace, name), None)
            return
        node = self._node_of(pod)
        if node is None or node_ready_state(node) != "True":
            return  # not bound, node gone (pod-gc's job) or the node's kubelet is down
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):
            self._finish_termination(pod)
            return
        status = pod.get("status") or {}
        if status.get("phase") in TERMINAL_PHASES:
            return
        now = self.runtime.clock.now()
        host_ip = internal_ip(node) or ""
        try:
            spec = sim_spec_of(pod)
        except SimSpecError as exc:
            message = sim_spec_message(str(exc))
            self.log.warning("pod has an invalid simSpec annotation", pod=f"{namespace}/{name}", error=str(exc))
            self._write_status(pod, failed_status(pod, format_time(now), host_ip, INVALID_SIM_SPEC_REASON, message))
            return
        if status.get("phase") != "Running":
            on_node = FieldSelector.equals(_NODE_NAME, node["metadata"]["name"])
            others = [o for o in self.reader.list("v1", "Pod", field_selector=on_node)
                      if o["metadata"].get("uid") != meta.get("uid")]
            rejected = rejection(pod, node, others)
            if rejected is not None:  # over capacity: bound without the scheduler (k8s-cluster-simulator's OverCapacity)
                after = self._write_status(pod, failed_status(pod, format_time(now), host_ip, *rejected))
                self.runtime.recorder.record_status(self.name, pod, after)  # the timeline shows the rejection
                return
            pod_ip = host_ip if (pod.get("spec") or {}).get("hostNetwork") else self._pod_ip(namespace, name)
            pod = self._write_status(pod, running_status(pod, format_time(now), host_ip, pod_ip))
        if spec is None:
            return
        start = parse_time(pod["status"]["startTime"])
        at = effective_time(pod, now)  # frozen usage (simtime.kubesim.io/usage-frozen-at) stops the clock
        elapsed = at - start
        per_phase = not self.runtime.simulated_time  # in simulated time, metrics read the simSpec itself
        if spec.finished(elapsed):
            pod = self._write_status(pod, succeeded_status(pod, format_time(start + spec.duration)))
            self._set_usage(pod, usage_annotation(spec, None))  # a recorded write: results see it finish
            return
        if per_phase:
            self._set_usage(pod, usage_annotation(spec, spec.phase_index(elapsed)))
        if at < now:
            return  # frozen: its usage stays and it never finishes on its own
        boundary = spec.next_boundary(elapsed) if per_phase else spec.duration if spec.duration > elapsed else None
        if boundary is None:  # every phase lasts 0 s: it finishes once time has passed
            boundary = _AN_INSTANT
        self.queue.add_after((POD, namespace, name), start + boundary)

    def _pod_ip(self, namespace: str, name: str) -> str:
        ip = self._assigned_pod_ips.get((namespace, name))
        if ip is None:
            ip = self._assigned_pod_ips[(namespace, name)] = self._pod_ips.allocate()
        return ip

    def _set_usage(self, pod: dict[str, Any], value: str) -> None:
        annotations = pod["metadata"].get("annotations") or {}
        if annotations.get(USAGE_ANNOTATION) == value:
            return
        pod = copy_tree(pod)
        pod["metadata"].setdefault("annotations", {})[USAGE_ANNOTATION] = value
        self.client.update(pod, copy=False)  # a fresh copy: handed over

    def _finish_termination(self, pod: dict[str, Any]) -> None:
        """Remove a terminating pod once its grace period is over (deletionTimestamp passed)."""
        meta = pod["metadata"]
        if meta.get("deletionGracePeriodSeconds") == 0:
            return  # already finished; finalizers keep it
        deadline = parse_time(meta["deletionTimestamp"])
        if self.runtime.clock.now() < deadline:
            self.queue.add_after((POD, meta.get("namespace", ""), meta["name"]), deadline)
            return
        self.client.delete("v1", "Pod", meta["name"], meta.get("namespace"), grace_period_seconds=0)

    # --- waiter -----------------------------------------------------------------

    def settled(self) -> bool:
        """Every node and pod touched since the last check is in the state it should be in now."""
        now = self.runtime.clock.now()
        cluster = self.reader
        for key in list(self._to_verify):
            kind, namespace, name = key
            try:
                obj = cluster.get("v1", kind, name, namespace or None, copy=False)
            except NotFound:
                del self._to_verify[key]
                continue
            ok = node_settled(obj) if kind == NODE else pod_settled(obj, self._node_of(obj), now,
                                                                   usage=not self.runtime.simulated_time)
            if not ok:
                return False
            del self._to_verify[key]
        return True
