"""Handle: what plugins may reach besides their arguments (node table, pods, objects, binding)."""

# upstream: pkg/scheduler/framework/interface.go (Handle), framework/listers.go

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .node_info import NodeInfo, NodeInfoList
from .node_table import NodeTable
from .pod_info import PodInfo, pod_key

__all__ = ["Handle", "ObjectLister", "Binder"]

# (kind, namespace or None) -> objects as dicts, e.g. ("Service", "default"), ("Namespace", None)
ObjectLister = Callable[[str, "str | None"], Iterable[Mapping[str, Any]]]
# (pod, node name) -> None; raises on failure
Binder = Callable[[Mapping[str, Any], str], None]


def _no_objects(_kind: str, _ns: str | None) -> Iterable[Mapping[str, Any]]:
    return ()


class Handle:
    """Shared by all plugins of a scheduler; reads always see the current node table."""

    def __init__(
        self,
        node_table: NodeTable,
        *,
        lister: ObjectLister | None = None,
        binder: Binder | None = None,
        now: Callable[[], float] | None = None,
    ) -> None:
        self.node_table = node_table
        self._lister = lister or _no_objects
        self._binder = binder
        self._now = now or (lambda: 0.0)
        self._pod_infos: dict[str, PodInfo] = {}
        self.nominated_pods: dict[str, list[PodInfo]] = {}  # node name -> nominated pods

    # nodes
    def snapshot_nodes(self) -> NodeInfoList:
        """All nodes, in the node-tree order the scheduler iterates."""
        return NodeInfoList(self.node_table, self.node_table.order)

    def get_node_info(self, name: str) -> NodeInfo | None:
        return self.node_table.get(name)

    def num_nodes(self) -> int:
        return self.node_table.num_nodes

    # pods
    def pod_info(self, pod: Mapping[str, Any]) -> PodInfo:
        """The PodInfo of a pod dict (parsed once per object identity)."""
        key = pod_key(pod)
        pi = self.node_table.pod_info(key) or self._pod_infos.get(key)
        if pi is None or pi.pod is not pod:
            pi = PodInfo(pod)
            self._pod_infos[key] = pi
        return pi

    def forget_pod_info(self, key: str) -> None:
        self._pod_infos.pop(key, None)

    def assigned_pods(self) -> Iterable[PodInfo]:
        """Pods bound or assumed on nodes."""
        return self.node_table.all_pods()

    # other API objects
    def list_objects(self, kind: str, namespace: str | None = None) -> list[Mapping[str, Any]]:
        return list(self._lister(kind, namespace))

    def get_object(self, kind: str, namespace: str | None, name: str) -> Mapping[str, Any] | None:
        for o in self._lister(kind, namespace):
            if (o.get("metadata") or {}).get("name") == name:
                return o
        return None

    def namespace_labels(self, namespace: str) -> Mapping[str, str]:
        ns = self.get_object("Namespace", None, namespace)
        return ((ns or {}).get("metadata") or {}).get("labels") or {}

    # actions
    def bind(self, pod: Mapping[str, Any], node_name: str) -> None:
        """Write the binding (DefaultBinder); raises when it fails."""
        if self._binder is None:
            raise RuntimeError("no binder configured")
        self._binder(pod, node_name)

    def now(self) -> float:
        return self._now()
