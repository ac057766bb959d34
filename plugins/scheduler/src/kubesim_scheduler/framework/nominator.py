"""Nominator: pods nominated to run on nodes (status.nominatedNodeName), per node in order.

A preemptor is nominated to the node where its victims are being evicted; filtering then
treats higher-or-equal-priority nominated pods as if they were already running there.
"""

# upstream: pkg/scheduler/backend/queue/nominator.go, scheduling_queue.go
# (NominatedPodsForNode, nominatedPodToInfo)

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .interface import NominatingInfo
from .pod_info import PodInfo, pod_key

__all__ = ["Nominator", "nominated_node_name"]

# key -> the pod as the scheduler currently knows it (None once it is gone)
PodLookup = Callable[[str], "Mapping[str, Any] | None"]


def nominated_node_name(pod: Mapping[str, Any] | None) -> str:
    """pod.status.nominatedNodeName ('' when unset)."""
    if not pod:
        return ""
    return str((pod.get("status") or {}).get("nominatedNodeName") or "")


class Nominator:
    """node -> nominated pods (in nomination order) and pod key -> node.

    `lookup` plays the pod lister: a pod that no longer exists or is already bound is not
    nominated. Without it every pod is accepted.
    """

    def __init__(self, lookup: PodLookup | None = None) -> None:
        self.lookup = lookup
        self._by_node: dict[str, list[str]] = {}
        self._node_of: dict[str, str] = {}
        self._infos: dict[str, PodInfo] = {}

    def __len__(self) -> int:
        return len(self._node_of)

    def __bool__(self) -> bool:
        return bool(self._node_of)

    def nodes(self) -> Iterator[str]:
        """Nodes that have nominated pods."""
        return iter(self._by_node)

    def node_of(self, key: str) -> str | None:
        return self._node_of.get(key)

    def pods_for_node(self, node_name: str) -> list[PodInfo]:
        """NominatedPodsForNode: the latest PodInfo of each pod nominated to the node."""
        keys = self._by_node.get(node_name)
        if not keys:
            return []
        return [self._infos[k] for k in keys]

    def add(self, pod_info: PodInfo, info: NominatingInfo | None = None) -> None:
        """AddNominatedPod: (re)nominate a pod; None or noop mode keeps its status value."""
        key = pod_info.key
        self.delete(key)
        if info is not None and info.mode == NominatingInfo.MODE_OVERRIDE:
            node = info.node_name
        else:
            node = nominated_node_name(pod_info.pod)
        if not node:
            # upstream files an override to "" under the empty node name; nothing can ask
            # for that node, so it is simply not stored here
            return
        if self.lookup is not None:
            current = self.lookup(key)
            if current is None or (current.get("spec") or {}).get("nodeName"):
                return
        self._node_of[key] = node
        self._infos[key] = pod_info
        keys = self._by_node.setdefault(node, [])
        if key not in keys:
            keys.append(key)

    def update(self, old_pod: Mapping[str, Any] | None, new_info: PodInfo) -> None:
        """UpdateNominatedPod: keep an in-memory nomination when neither version carries one."""
        info = None
        old_key = pod_key(old_pod) if old_pod else new_info.key
        if not nominated_node_name(old_pod) and not nominated_node_name(new_info.pod):
            node = self._node_of.get(old_key)
            if node is not None:
                info = NominatingInfo(node, NominatingInfo.MODE_OVERRIDE)
        self.delete(old_key)
        self.add(new_info, info)

    def delete(self, key: str) -> None:
        """DeleteNominatedPodIfExists."""
        node = self._node_of.pop(key, None)
        self._infos.pop(key, None)
        if node is None:
            return
        keys = self._by_node.get(node)
        if keys is not None:
            try:
                keys.remove(key)
            except ValueError:
                pass
            if not keys:
                del self._by_node[node]
