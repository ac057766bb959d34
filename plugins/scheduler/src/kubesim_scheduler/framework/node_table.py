"""The node table: every node as one row of numpy columns, updated in O(1) per pod.

It replaces upstream's cache + snapshot of NodeInfo structs. Built-in plugins filter and
score all candidate rows at once on these columns; NodeInfo views serve per-node plugins.
"""

# upstream: pkg/scheduler/backend/cache/cache.go (node/pod bookkeeping, image states),
# pkg/scheduler/backend/cache/node_tree.go (zone-interleaved node order),
# pkg/scheduler/framework/types.go (NodeInfo.update)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from kubesim.k8s.podrequests import resource_list
from kubesim.k8s.selectors import DOES_NOT_EXIST, EQUALS, EXISTS, IN, NOT_EQUALS, NOT_IN, Requirement

from ..resources import resource_from_list
from ..taints import Taint, taint_of
from .node_info import HostPortInfo, ImageStateSummary, NodeInfo
from .node_pods import NodePods
from .pod_info import PodInfo

__all__ = ["NodeTable", "NodeTableListener", "LabelColumn", "ScalarColumn", "zone_key"]

_I64 = np.int64


def zone_key(node: Mapping[str, Any]) -> str:
    """utilnode.GetZoneKey: region and zone joined by a NUL, '' when neither is set."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    zone = labels.get("failure-domain.beta.kubernetes.io/zone", labels.get("topology.kubernetes.io/zone", ""))
    region = labels.get("failure-domain.beta.kubernetes.io/region", labels.get("topology.kubernetes.io/region", ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTableListener:
    """Receives every change of the table, for plugins that keep their own indexes in step.

    Register with `NodeTable.add_listener`; rows identify nodes (a row is reused only after
    `node_removed` and the removal of all its pods).
    """

    def node_added(self, row: int, node: Mapping[str, Any]) -> None:
        """A node was added or replaced (also called for updates)."""

    def node_removed(self, row: int, name: str) -> None:
        """A node was removed."""

    def pod_added(self, row: int, pod_info: PodInfo) -> None:
        """A pod was bound or assumed on the node in `row`."""

    def pod_removed(self, row: int, pod_info: PodInfo) -> None:
        """A pod left the node in `row` (deleted, or an assumption was forgotten)."""


class LabelColumn:
    """One label key over all rows: int32 value codes (-1 when the node lacks the key)."""

    __slots__ = ("codes", "vocab", "values")

    def __init__(self, capacity: int) -> None:
        self.codes = np.full(capacity, -1, dtype=np.int32)
        self.vocab: dict[str, int] = {}
        self.values: list[str] = []

    def code(self, value: str) -> int:
        c = self.vocab.get(value)
        if c is None:
            c = len(self.values)
            self.vocab[value] = c
            self.values.append(value)
        return c

    def grow(self, capacity: int) -> None:
        new = np.full(capacity, -1, dtype=np.int32)
        new[: len(self.codes)] = self.codes
        self.codes = new


class ScalarColumn:
    """An extended/scalar resource: allocatable, requested, and whether the node lists it."""

    __slots__ = ("alloc", "req", "has")

    def __init__(self, capacity: int) -> None:
        self.alloc = np.zeros(capacity, dtype=_I64)
        self.req = np.zeros(capacity, dtype=_I64)
        self.has = np.zeros(capacity, dtype=bool)

    def grow(self, capacity: int) -> None:
        for name in ("alloc", "req", "has"):
            old = getattr(self, name)
            new = np.zeros(capacity, dtype=old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)


_INT_COLUMNS = (
    "alloc_cpu", "alloc_mem", "alloc_eph", "allowed_pods",
    "req_cpu", "req_mem", "req_eph", "nz_cpu", "nz_mem", "pod_count", "row_generation",
)


class NodeTable:
    """Columns for every node, rows reused after deletion; `order` lists live rows in node-tree order."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        for name in _INT_COLUMNS:
            setattr(self, name, np.zeros(capacity, dtype=_I64))
        self.valid = np.zeros(capacity, dtype=bool)  # row holds a node (not a ghost)
        self.unschedulable = np.zeros(capacity, dtype=bool)
        self.taint_sig = np.zeros(capacity, dtype=np.int32)
        self.has_ports = np.zeros(capacity, dtype=bool)
        self.alloc_cpu: np.ndarray
        self.alloc_mem: np.ndarray
        self.alloc_eph: np.ndarray
        self.allowed_pods: np.ndarray
        self.req_cpu: np.ndarray
        self.req_mem: np.ndarray
        self.req_eph: np.ndarray
        self.nz_cpu: np.ndarray
        self.nz_mem: np.ndarray
        self.pod_count: np.ndarray
        self.row_generation: np.ndarray

        self.row_names: list[str] = [""] * capacity
        self.nodes: list[Mapping[str, Any] | None] = [None] * capacity
        self.pods: list[NodePods] = [NodePods() for _ in range(capacity)]
        self.used_ports: list[HostPortInfo] = [HostPortInfo() for _ in range(capacity)]
        self.node_images: list[dict[str, int]] = [{} for _ in range(capacity)]
        self.node_labels: list[Mapping[str, str]] = [{} for _ in range(capacity)]
        self.node_taints: list[tuple[Taint, ...]] = [() for _ in range(capacity)]

        self.name_to_row: dict[str, int] = {}
        self.free_rows: list[int] = []
        self.high_water = 0
        self.label_cols: dict[str, LabelColumn] = {}
        self.scalars: dict[str, ScalarColumn] = {}
        self.sig_taints: list[tuple[Taint, ...]] = [()]
        self._sig_index: dict[tuple[Taint, ...], int] = {(): 0}
        self.image_nodes: dict[str, dict[int, None]] = {}
        self.image_size: dict[str, int] = {}
        self._image_rows_cache: dict[str, np.ndarray] = {}
        self.pod_row: dict[str, int] = {}
        # pods held with any pod (anti-)affinity, and with required anti-affinity: while both
        # are 0, InterPodAffinity skips pods without terms of their own without its index
        self.affinity_pods = 0
        self.required_anti_affinity_pods = 0
        self.generation = 0
        # bumped whenever a node's fields are set or cleared (not by pods): what depends on
        # nodes alone (any taint, any unschedulable node) is memoised by it
        self.node_generation = 0
        # node tree: zone -> names (insertion order), zones in first-seen order
        self._tree: dict[str, list[str]] = {}
        self._zone_of: dict[str, str] = {}
        self._order: np.ndarray | None = None
        self._order_range: tuple[np.ndarray, bool] | None = None  # (order, order_is_range())
        self._names_arr: np.ndarray | None = None
        self.listeners: list[NodeTableListener] = []

    def add_listener(self, listener: NodeTableListener) -> None:
        """Subscribe to node/pod changes; the listener is first told about existing ones."""
        self.listeners.append(listener)
        for row in self.order.tolist():
            listener.node_added(row, self.nodes[row] or {})
            for pi in self.pods[row].values():
                listener.pod_added(row, pi)

    # ----------------------------------------------------------------- rows
    def _grow(self) -> None:
        cap = self.capacity * 2
        for name in (*_INT_COLUMNS, "valid", "unschedulable", "taint_sig", "has_ports"):
            old = getattr(self, name)
            new = np.zeros(cap, dtype=old.dtype)
            new[: self.capacity] = old
            setattr(self, name, new)
        for col in self.label_cols.values():
            col.grow(cap)
        for sc in self.scalars.values():
            sc.grow(cap)
        self.node_generation += 1
        extra = cap - self.capacity
        self.row_names.extend([""] * extra)
        self.nodes.extend([None] * extra)
        self.pods.extend(NodePods() for _ in range(extra))
        self.used_ports.extend(HostPortInfo() for _ in range(extra))
        self.node_images.extend({} for _ in range(extra))
        self.node_labels.extend({} for _ in range(extra))
        self.node_taints.extend(() for _ in range(extra))
        self.capacity = cap

    def _new_row(self, name: str) -> int:
        if self.free_rows:
            row = self.free_rows.pop()
        else:
            if self.high_water == self.capacity:
                self._grow()
            row = self.high_water
            self.high_water += 1
        self.row_names[row] = name
        self.name_to_row[name] = row
        return row

    def _release_row(self, row: int) -> None:
        name = self.row_names[row]
        del self.name_to_row[name]
        self.row_names[row] = ""
        for col in _INT_COLUMNS:
            getattr(self, col)[row] = 0
        for sc in self.scalars.values():
            sc.alloc[row] = 0
            sc.req[row] = 0
            sc.has[row] = False
        self.pods[row] = NodePods()
        self.used_ports[row] = HostPortInfo()
        self.has_ports[row] = False
        self.free_rows.append(row)

    def _bump(self, row: int) -> None:
        self.generation += 1
        self.row_generation[row] = self.generation

    def scalar(self, name: str) -> ScalarColumn:
        sc = self.scalars.get(name)
        if sc is None:
            sc = self.scalars[name] = ScalarColumn(self.capacity)
        return sc

    def label_column(self, key: str) -> LabelColumn:
        col = self.label_cols.get(key)
        if col is None:
            col = self.label_cols[key] = LabelColumn(self.capacity)
        return col

    # ---------------------------------------------------------------- nodes
    def add_node(self, node: Mapping[str, Any]) -> int:
        """Add or replace a node; returns its row."""
        name = (node.get("metadata") or {}).get("name", "")
        row = self.name_to_row.get(name)
        if row is None:
            row = self._new_row(name)
        elif self.nodes[row] is not None:
            self._clear_node_fields(row)
        self._set_node_fields(row, node)
        self._tree_add(name, zone_key(node))
        self._bump(row)
        for lst in self.listeners:
            lst.node_added(row, node)
        return row

    def update_node(self, node: Mapping[str, Any]) -> int:
        return self.add_node(node)

    def remove_node(self, name: str) -> None:
        """Remove a node; a row whose pods are still assigned stays as a ghost until they go."""
        row = self.name_to_row.get(name)
        if row is None or self.nodes[row] is None:
            return
        self._clear_node_fields(row)
        self._tree_remove(name)
        self._bump(row)
        for lst in self.listeners:
            lst.node_removed(row, name)
        if not self.pods[row]:
            self._release_row(row)

    def _set_node_fields(self, row: int, node: Mapping[str, Any]) -> None:
        self.node_generation += 1
        self.nodes[row] = node
        self.valid[row] = True
        spec = node.get("spec") or {}
        status = node.get("status") or {}
        alloc = resource_from_list(resource_list(status.get("allocatable"), "status.allocatable"))
        self.alloc_cpu[row] = alloc.milli_cpu
        self.alloc_mem[row] = alloc.memory
        self.alloc_eph[row] = alloc.ephemeral_storage
        self.allowed_pods[row] = alloc.allowed_pod_number
        for n, v in alloc.scalar_resources.items():
            sc = self.scalar(n)
            sc.alloc[row] = v
            sc.has[row] = True
        self.unschedulable[row] = bool(spec.get("unschedulable"))
        taints = tuple(taint_of(t) for t in spec.get("taints") or ())
        sig = self._sig_index.get(taints)
        if sig is None:
            sig = len(self.sig_taints)
            self.sig_taints.append(taints)
            self._sig_index[taints] = sig
        self.taint_sig[row] = sig
        self.node_taints[row] = taints
        labels = (node.get("metadata") or {}).get("labels") or {}
        self.node_labels[row] = labels
        for k, v in labels.items():
            col = self.label_column(k)
            col.codes[row] = col.code(v)
        imgs: dict[str, int] = {}
        for image in status.get("images") or ():
            size = int(image.get("sizeBytes") or 0)
            for iname in image.get("names") or ():
                if iname not in self.image_nodes:
                    self.image_nodes[iname] = {}
                    self.image_size[iname] = size
                self.image_nodes[iname][row] = None
                self._image_rows_cache.pop(iname, None)
                imgs.setdefault(iname, size)
        self.node_images[row] = imgs

    def _clear_node_fields(self, row: int) -> None:
        self.node_generation += 1
        self.nodes[row] = None
        self.valid[row] = False
        for col in ("alloc_cpu", "alloc_mem", "alloc_eph", "allowed_pods"):
            getattr(self, col)[row] = 0
        for sc in self.scalars.values():
            sc.alloc[row] = 0
            sc.has[row] = False
        self.unschedulable[row] = False
        self.taint_sig[row] = 0
        self.node_taints[row] = ()
        for k in self.node_labels[row]:
            self.label_cols[k].codes[row] = -1
        self.node_labels[row] = {}
        for iname in self.node_images[row]:
            nodes = self.image_nodes.get(iname)
            if nodes is not None:
                nodes.pop(row, None)
                self._image_rows_cache.pop(iname, None)
                if not nodes:
                    del self.image_nodes[iname]
                    del self.image_size[iname]
        self.node_images[row] = {}

    # ------------------------------------------------------------ node tree
    def _tree_add(self, name: str, zone: str) -> None:
        old = self._zone_of.get(name)
        if old == zone:
            return
        if old is not None:
            self._tree_remove(name)
        self._tree.setdefault(zone, []).append(name)
        self._zone_of[name] = zone
        self._order = None
        self._names_arr = None

    def _tree_remove(self, name: str) -> None:
        zone = self._zone_of.pop(name, None)
        if zone is None:
            return
        names = self._tree[zone]
        names.remove(name)
        if not names:
            del self._tree[zone]
        self._order = None
        self._names_arr = None

    @property
    def order(self) -> np.ndarray:
        """Rows of all nodes in nodeTree.list() order (round-robin over zones)."""
        if self._order is None:
            lists = list(self._tree.values())
            out: list[int] = []
            i = 0
            while True:
                added = False
                for names in lists:
                    if i < len(names):
                        out.append(self.name_to_row[names[i]])
                        added = True
                if not added:
                    break
                i += 1
            self._order = np.array(out, dtype=np.intp)
        return self._order

    def order_is_range(self) -> bool:
        """Whether `order` is 0..high_water-1 in order (one zone, no released rows): rows
        listed in it can be read by slicing instead of gathering."""
        order = self.order
        if self._order_range is None or self._order_range[0] is not order:
            n = self.high_water
            same = len(order) == n and (n == 0 or bool((order == np.arange(n, dtype=order.dtype)).all()))
            self._order_range = (order, same)
        return self._order_range[1]

    @property
    def num_nodes(self) -> int:
        return len(self._zone_of)

    @property
    def names(self) -> np.ndarray:
        """Node name per row as an object array (a fresh array after each node add/remove)."""
        if self._names_arr is None:
            self._names_arr = np.array(self.row_names, dtype=object)
        return self._names_arr

    def row_of(self, name: str) -> int | None:
        row = self.name_to_row.get(name)
        if row is None or not self.valid[row]:
            return None
        return row

    def node_info(self, row: int) -> NodeInfo:
        return NodeInfo(self, row)

    def get(self, name: str) -> NodeInfo | None:
        row = self.row_of(name)
        return None if row is None else NodeInfo(self, row)

    # ----------------------------------------------------------------- pods
    def add_pod(self, pi: PodInfo, node_name: str | None = None) -> None:
        """Account an assigned (or assumed) pod on its node, appended to its pods.

        A pod already held is removed first (the cache's updatePod: remove + add), so it
        moves to the end and the node's last pod takes its old slot (NodePods).
        """
        name = node_name or pi.node_name
        if pi.key in self.pod_row:
            self.remove_pod(pi.key)
        row = self.name_to_row.get(name)
        if row is None:
            row = self._new_row(name)  # ghost row: pod known before its node
        self.pods[row][pi.key] = pi
        self.pod_row[pi.key] = row
        self._account(row, pi, 1)
        for lst in self.listeners:
            lst.pod_added(row, pi)

    def remove_pod(self, key: str) -> PodInfo | None:
        row = self.pod_row.pop(key, None)
        if row is None:
            return None
        pi = self.pods[row].pop(key)
        self._account(row, pi, -1)
        for lst in self.listeners:
            lst.pod_removed(row, pi)
        if self.nodes[row] is None and not self.pods[row]:
            self._release_row(row)
        return pi

    def replace_pod(self, pi: PodInfo) -> bool:
        """The cache's updatePod (remove + add) for a pod held on a known node whose new
        PodInfo accounts exactly as the old one (`PodInfo.with_pod`): it moves to the end
        and is swapped in, with no accounting; False (nothing done) for any other pod."""
        row = self.pod_row.get(pi.key)
        if row is None or self.nodes[row] is None:
            return False
        pods = self.pods[row]
        old = pods[pi.key]
        for lst in self.listeners:
            lst.pod_removed(row, old)
        pods.move_to_end(pi.key)
        pods[pi.key] = pi
        for lst in self.listeners:
            lst.pod_added(row, pi)
        self._bump(row)
        return True

    def move_pod_to_end(self, key: str) -> None:
        """Remove + add of the same PodInfo (confirming an assumed pod): only the order changes."""
        row = self.pod_row.get(key)
        if row is not None:
            self.pods[row].move_to_end(key)

    def pod_info(self, key: str) -> PodInfo | None:
        row = self.pod_row.get(key)
        return None if row is None else self.pods[row].get(key)

    def _account(self, row: int, pi: PodInfo, sign: int) -> None:
        r = pi.requests
        self.req_cpu[row] += sign * r.milli_cpu
        self.req_mem[row] += sign * r.memory
        self.req_eph[row] += sign * r.ephemeral_storage
        for n, v in r.scalar_resources.items():
            self.scalar(n).req[row] += sign * v
        self.nz_cpu[row] += sign * pi.non0_cpu
        self.nz_mem[row] += sign * pi.non0_mem
        self.pod_count[row] += sign
        if pi.has_affinity:
            self.affinity_pods += sign
            if pi.has_required_anti_affinity:
                self.required_anti_affinity_pods += sign
        if pi.host_ports:
            up = self.used_ports[row]
            for ip, proto, port in pi.host_ports:
                (up.add if sign > 0 else up.remove)(ip, proto, port)
            self.has_ports[row] = len(up) > 0
        self._bump(row)

    def all_pods(self) -> Iterable[PodInfo]:
        for row in self.order:
            yield from self.pods[row].values()

    # -------------------------------------------------------------- queries
    def image_state(self, name: str) -> ImageStateSummary:
        return ImageStateSummary(self.image_size[name], len(self.image_nodes[name]))

    def image_rows(self, name: str) -> np.ndarray:
        """Rows of nodes that hold an image (cached until that image's node set changes)."""
        arr = self._image_rows_cache.get(name)
        if arr is None:
            arr = np.fromiter(self.image_nodes.get(name, ()), dtype=np.intp)
            self._image_rows_cache[name] = arr
        return arr

    def requirement_mask(self, req: Requirement, rows: np.ndarray) -> np.ndarray:
        """Vectorised Requirement.Matches over the labels of `rows`."""
        col = self.label_cols.get(req.key)
        n = len(rows)
        if col is None:
            return np.full(n, req.op in (NOT_IN, NOT_EQUALS, DOES_NOT_EXIST), dtype=bool)
        codes = col.codes[rows]
        op = req.op
        if op == EXISTS:
            result: np.ndarray = codes >= 0
            return result
        if op == DOES_NOT_EXIST:
            result = codes < 0
            return result
        if op in (IN, EQUALS, NOT_IN, NOT_EQUALS):
            wanted = [col.vocab[v] for v in req.values if v in col.vocab]
            if not wanted:
                hit = np.zeros(n, dtype=bool)
            elif len(wanted) == 1:
                hit = codes == wanted[0]
            else:
                hit = np.isin(codes, wanted)
            return hit if op in (IN, EQUALS) else ~hit
        # Gt / Lt: evaluate over the vocabulary once, then map the codes.
        vocab_ok = np.fromiter((req.matches({req.key: v}) for v in col.values), dtype=bool, count=len(col.values))
        vocab_ok = np.append(vocab_ok, False)  # index -1 -> missing key
        result = vocab_ok[codes]
        return result
