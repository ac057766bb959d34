"""NodeInfo: the per-node view plugins see, read from one row of the node table."""

# upstream: pkg/scheduler/framework/types.go (NodeInfo),
# staging/src/k8s.io/kube-scheduler/framework/types.go (HostPortInfo, ImageStateSummary)

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..resources import Resource

if TYPE_CHECKING:
    from .node_table import NodeTable
    from .pod_info import PodInfo

__all__ = ["NodeInfo", "HostPortInfo", "ImageStateSummary", "NodeInfoList", "DEFAULT_BIND_ALL_HOST_IP"]

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


class HostPortInfo:
    """Host ports in use on a node: ip -> {(protocol, port)}, with upstream conflict rules."""

    __slots__ = ("_m", "_counts")

    def __init__(self) -> None:
        self._m: dict[str, set[tuple[str, int]]] = {}
        # reference counts so that two pods claiming the same port can be removed one at a time
        self._counts: dict[tuple[str, str, int], int] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        k = (ip, protocol, port)
        self._counts[k] = self._counts.get(k, 0) + 1
        self._m.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        k = (ip, protocol, port)
        c = self._counts.get(k, 0) - 1
        if c > 0:
            self._counts[k] = c
            return
        self._counts.pop(k, None)
        s = self._m.get(ip)
        if s is not None:
            s.discard((protocol, port))
            if not s:
                del self._m[ip]

    def __len__(self) -> int:
        return sum(len(s) for s in self._m.values())

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """0.0.0.0 conflicts with any ip; other ips conflict with themselves and 0.0.0.0."""
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in s for s in self._m.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            s = self._m.get(key)
            if s is not None and pp in s:
                return True
        return False

    def as_dict(self) -> dict[str, set[tuple[str, int]]]:
        return {k: set(v) for k, v in self._m.items()}


@attrs.frozen(slots=True)
class ImageStateSummary:
    size: int
    num_nodes: int


class NodeInfo:
    """Aggregated information about one node (a live view over a node-table row)."""

    __slots__ = ("table", "row")

    def __init__(self, table: NodeTable, row: int) -> None:
        self.table = table
        self.row = row

    @property
    def node(self) -> Mapping[str, Any]:
        n = self.table.nodes[self.row]
        return n if n is not None else {}

    @property
    def name(self) -> str:
        return self.table.row_names[self.row]

    @property
    def pods(self) -> list[PodInfo]:
        return self.table.pods[self.row].pod_list()

    @property
    def pods_with_affinity(self) -> list[PodInfo]:
        return [p for p in self.table.pods[self.row].values() if p.has_affinity]

    @property
    def pods_with_required_anti_affinity(self) -> list[PodInfo]:
        return [p for p in self.table.pods[self.row].values() if p.has_required_anti_affinity]

    @property
    def used_ports(self) -> HostPortInfo:
        return self.table.used_ports[self.row]

    @property
    def allocatable(self) -> Resource:
        t, r = self.table, self.row
        return Resource(
            int(t.alloc_cpu[r]), int(t.alloc_mem[r]), int(t.alloc_eph[r]), int(t.allowed_pods[r]),
            {n: int(c.alloc[r]) for n, c in t.scalars.items() if c.has[r]},
        )

    @property
    def requested(self) -> Resource:
        t, r = self.table, self.row
        return Resource(
            int(t.req_cpu[r]), int(t.req_mem[r]), int(t.req_eph[r]), 0,
            {n: int(c.req[r]) for n, c in t.scalars.items() if c.req[r]},
        )

    @property
    def non_zero_requested(self) -> Resource:
        t, r = self.table, self.row
        return Resource(int(t.nz_cpu[r]), int(t.nz_mem[r]))

    @property
    def image_states(self) -> dict[str, ImageStateSummary]:
        return {name: self.table.image_state(name) for name in self.table.node_images[self.row]}

    @property
    def generation(self) -> int:
        return int(self.table.row_generation[self.row])

    def __repr__(self) -> str:
        return f"NodeInfo({self.name})"


class NodeInfoList:
    """A lazy sequence of NodeInfo over table rows (what PreFilter/PreScore receive)."""

    __slots__ = ("table", "rows")

    def __init__(self, table: NodeTable, rows: Any) -> None:
        self.table = table
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> NodeInfo:
        return NodeInfo(self.table, int(self.rows[i]))

    def __iter__(self) -> Iterator[NodeInfo]:
        t = self.table
        for r in self.rows:
            yield NodeInfo(t, int(r))
