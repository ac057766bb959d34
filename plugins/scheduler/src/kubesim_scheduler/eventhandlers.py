"""Node and pod events into the scheduler's node table and queue.

Follows kubernetes pkg/scheduler/eventhandlers.go: addNodeToCache, updateNodeInCache,
deleteNodeFromCache, addPodToSchedulingQueue / addPodToCache, updatePodInSchedulingQueue /
updatePodInCache, deletePodFromSchedulingQueue / deletePodFromCache, each moving the
unschedulable pods its cluster event may help; and the cache's confirmation of an assumed
pod (pkg/scheduler/backend/cache AddPod).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .binding import BindingCycle
from .framework.events import (
    ASSIGNED_POD,
    NODE,
    ActionType,
    ClusterEvent,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from .framework.handle import Handle
from .framework.node_table import NodeTable
from .framework.pod_info import PodInfo, parses_alike, pod_key
from .framework.runtime import Framework
from .framework.waiting_pods import waiting_pod_uid
from .scheduling_queue import SchedulingQueue

__all__ = ["EventHandlers", "STORAGE_EVENT_KINDS"]

#: kinds whose events the volume plugins register, with their apiVersion
STORAGE_EVENT_KINDS: Mapping[str, str] = {
    "PersistentVolume": "v1", "PersistentVolumeClaim": "v1", "StorageClass": "storage.k8s.io/v1",
    "CSINode": "storage.k8s.io/v1", "CSIDriver": "storage.k8s.io/v1",
    "CSIStorageCapacity": "storage.k8s.io/v1", "VolumeAttachment": "storage.k8s.io/v1",
}


class EventHandlers:
    """The Scheduler's event handlers (a mixin): they keep `nodes` and `pods`, the objects the
    scheduler was told about (the informers' stores), and update the node table and queue."""

    table: NodeTable
    queue: SchedulingQueue
    frameworks: dict[str, Framework]
    handle: Handle
    nodes: dict[str, Mapping[str, Any]]
    pods: dict[str, Mapping[str, Any]]
    _binding: BindingCycle

    # ----------------------------------------------------------------- nodes
    def add_node(self, node: Mapping[str, Any]) -> None:
        """addNodeToCache; a node already known is an update."""
        name = (node.get("metadata") or {}).get("name", "")
        if name in self.nodes:
            self.update_node(node)
            return
        self.nodes[name] = node
        self.table.add_node(node)
        self.queue.move_all_to_active_or_backoff(ClusterEvent(NODE, ActionType.ADD), None, node)

    def update_node(self, node: Mapping[str, Any]) -> None:
        """updateNodeInCache: requeue for each scheduling-relevant change; an unknown node is added."""
        name = (node.get("metadata") or {}).get("name", "")
        old = self.nodes.get(name)
        if old is None:
            self.add_node(node)
            return
        self.nodes[name] = node
        self.table.update_node(node)
        for evt in node_scheduling_properties_change(node, old):
            self.queue.move_all_to_active_or_backoff(evt, old, node)

    def remove_node(self, node: Mapping[str, Any] | str) -> None:
        """deleteNodeFromCache (by object or name)."""
        name = node if isinstance(node, str) else (node.get("metadata") or {}).get("name", "")
        old = self.nodes.pop(name, None)
        if old is None:
            return
        self.queue.move_all_to_active_or_backoff(ClusterEvent(NODE, ActionType.DELETE), old, None)
        self.table.remove_node(name)

    # --------------------------------------------------------------- storage
    def storage_event(self, kind: str, event_type: str, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> None:
        """A PV, PVC, StorageClass, CSINode, CSIDriver, CSIStorageCapacity or VolumeAttachment
        changed: move the pods its event may help (upstream's informer handlers for them)."""
        if event_type == "DELETED":
            self.queue.move_all_to_active_or_backoff(ClusterEvent(kind, ActionType.DELETE), new, None)
        elif event_type == "ADDED" or old is None:
            self.queue.move_all_to_active_or_backoff(ClusterEvent(kind, ActionType.ADD), None, new)
        else:
            self.queue.move_all_to_active_or_backoff(ClusterEvent(kind, ActionType.UPDATE), old, new)

    # ------------------------------------------------------------------ pods
    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """A pod appeared: account it on its node if bound, else queue it for its profile."""
        key = pod_key(pod)
        if key in self.pods:
            self.update_pod(pod)
            return
        self.pods[key] = pod
        pi = PodInfo(pod)
        if pi.node_name:
            self.table.add_pod(pi)
            self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, pod)
        elif pi.scheduler_name in self.frameworks and not (pod.get("metadata") or {}).get("deletionTimestamp"):
            self.queue.add(pi)

    def update_pod(self, pod: Mapping[str, Any]) -> None:
        """updatePodInCache / updatePodInSchedulingQueue; an unknown pod is added."""
        key = pod_key(pod)
        old = self.pods.get(key)
        if old is None:
            self.add_pod(pod)
            return
        self.pods[key] = pod
        if self._confirms_assumed(key, old, pod):
            # upstream AddPod of an assumed pod is updatePod (remove + add): it moves to the end
            self.table.move_pod_to_end(key)
            self.queue.delete(key)
            return
        was_assigned = bool((old.get("spec") or {}).get("nodeName"))
        if was_assigned and self._replaced_alike(key, pod):
            for evt in pod_scheduling_properties_change(pod, old):
                self.queue.move_all_to_active_or_backoff(evt, old, pod)
            return
        pi = PodInfo(pod)
        if pi.node_name:
            assumed = self.table.pod_info(key)
            self.table.add_pod(pi)
            if not was_assigned:
                self.queue.delete(key)
                if assumed is None:
                    self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, pod)
                return
            for evt in pod_scheduling_properties_change(pod, old):
                self.queue.move_all_to_active_or_backoff(evt, old, pod)
        elif self._binding.waiting and self.table.pod_info(key) is not None:
            # upstream updatePodInSchedulingQueue: an assumed pod (waiting at Permit) stays put
            return
        elif pi.scheduler_name in self.frameworks:
            self.queue.update(old, pi)

    def _replaced_alike(self, key: str, pod: Mapping[str, Any]) -> bool:
        """updatePodInCache for a status-only write to a bound pod (the kubelet's): the cache's
        remove + add with the held PodInfo's parses (nothing it derives has changed)."""
        held = self.table.pod_info(key)
        return held is not None and parses_alike(held, pod) and self.table.replace_pod(held.with_pod(pod))

    def _confirms_assumed(self, key: str, old: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
        """The binding of a pod this scheduler assumed, changing nothing else it reads.

        upstream's cache.AddPod of an assumed pod swaps in the informer's copy by remove +
        add; the assumed PodInfo already accounts exactly this pod on this node, so it
        is kept (no parse, no change for the plugins' indexes) and only moved to the end. Only spec.nodeName, the status conditions and
        metadata.resourceVersion may differ from the assumed copy.
        """
        if (old.get("spec") or {}).get("nodeName"):
            return False
        assumed = self.table.pod_info(key)
        if assumed is None:
            return False
        spec, mine = pod.get("spec") or {}, assumed.pod
        if not spec.get("nodeName") or spec != (mine.get("spec") or {}):
            return False
        return _same_except(pod.get("metadata"), mine.get("metadata"), "resourceVersion") and _same_except(
            pod.get("status"), mine.get("status"), "conditions"
        )

    def remove_pod(self, pod: Mapping[str, Any] | str) -> None:
        """deletePodFromCache / deletePodFromSchedulingQueue (a waiting pod is rejected)."""
        key = pod if isinstance(pod, str) else pod_key(pod)
        old = self.pods.pop(key, None)
        self.handle.forget_pod_info(key)
        if self._binding.waiting and old is not None:
            # upstream deletePodFromSchedulingQueue: RejectWaitingPod
            self.handle.reject_waiting_pod(waiting_pod_uid(old))
        if self.table.remove_pod(key) is not None and old is not None:
            self.queue.delete(key)
            self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), old, None)
        else:
            self.queue.delete(key)


def _same_except(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, key: str) -> bool:
    """a == b, ignoring `key`."""
    a, b = a or {}, b or {}
    return all(k in b and v == b[k] for k, v in a.items() if k != key) and all(k in a for k in b if k != key)
