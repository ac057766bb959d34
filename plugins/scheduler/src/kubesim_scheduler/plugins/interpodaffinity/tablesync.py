"""Keep a ClusterIndex in step with the framework's NodeTable.

The NodeTable bumps a row's generation whenever its node or one of its pods changes, so a
sync only looks at rows changed since the last one; both pod-to-pod plugins share one index
per table. Once synced, the index also listens to the table's pod changes and replays them
(a bind costs one index update), instead of comparing every pod of the changed node; rows
whose node changed, or whose changes were not all heard, are compared pod by pod as before.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ...framework.node_table import NodeTableListener
from ...framework.pod_info import PodInfo
from .podindex import ClusterIndex
from .terms import PodAffinityInfo, pod_affinity_info

__all__ = ["TableIndex", "affinity_info_of", "table_index"]

_CACHE_KEY = "InterPodAffinity/terms"
_INDEXES: weakref.WeakKeyDictionary[Any, TableIndex] = weakref.WeakKeyDictionary()


def affinity_info_of(pod_info: Any) -> PodAffinityInfo:
    """The parsed affinity terms of a framework PodInfo, memoised in its per-pod cache."""
    cache = getattr(pod_info, "cache", None)
    if cache is None:
        return pod_affinity_info(pod_info.pod)
    pod = pod_info.pod
    meta = pod.get("metadata")
    aff = (pod.get("spec") or {}).get("affinity")
    hit = cache.get(_CACHE_KEY)
    # The parse depends only on metadata and spec.affinity, which assumed copies share.
    if hit is not None and hit[0] is meta and hit[1] is aff:
        info: PodAffinityInfo = hit[2]
        return info
    info = pod_affinity_info(pod)
    cache[_CACHE_KEY] = (meta, aff, info)
    return info


def table_index(table: Any) -> TableIndex:
    """The shared TableIndex of a NodeTable."""
    ti = _INDEXES.get(table)
    if ti is None:
        ti = _INDEXES[table] = TableIndex(table)
    return ti


# pod changes kept for the next sync at most; beyond, that sync compares the changed rows
_LOG_LIMIT = 100_000


class TableIndex(NodeTableListener):
    """A ClusterIndex mirroring a NodeTable, plus the map from table rows to index slots."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.index = ClusterIndex()
        self.generation = -1
        self._order: Any = None
        self._rows_shape: tuple[int, int] = (-1, -1)
        self._row_name: dict[int, str] = {}
        self.row_slot = np.full(0, -1, dtype=np.intp)
        # pod changes heard since the last sync: (row, pod info, added); None: not listening
        # (before the first sync, and after an overflow until the next one)
        self._log: list[tuple[int, PodInfo, bool]] | None = None
        self._node_rows: set[int] = set()  # rows whose node changed since the last sync
        self._listening = False

    # ----- NodeTableListener ------------------------------------------------------------------
    def node_added(self, row: int, node: Any) -> None:
        self._node_rows.add(row)

    def node_removed(self, row: int, name: str) -> None:
        self._node_rows.add(row)

    def pod_added(self, row: int, pod_info: PodInfo) -> None:
        self._hear(row, pod_info, True)

    def pod_removed(self, row: int, pod_info: PodInfo) -> None:
        self._hear(row, pod_info, False)

    def _hear(self, row: int, pod_info: PodInfo, added: bool) -> None:
        log = self._log
        if log is not None:
            if len(log) >= _LOG_LIMIT:
                self._log = None  # the next sync compares rows
            else:
                log.append((row, pod_info, added))

    # ----- sync ---------------------------------------------------------------------------------
    def sync(self) -> ClusterIndex:
        """Bring the index up to date with the table and return it."""
        t = self.table
        if t.generation == self.generation:
            return self.index
        if not self._listening:
            t.add_listener(self)  # told about existing nodes and pods: dropped just below
            self._listening = True
        order = t.order
        shape = (len(t.free_rows), t.high_water)
        if order is not self._order or shape != self._rows_shape:
            self._reconcile_rows()
            self._order = order
            self._rows_shape = shape
        gens = t.row_generation[: t.high_water]
        changed = np.flatnonzero(gens > self.generation).tolist()
        log = self._log
        if log is None:
            for row in changed:
                self._sync_row(row)
        else:
            self._replay(changed, log)
        self._log = []
        self._node_rows = set()
        self.generation = t.generation
        return self.index

    def _replay(self, changed: list[int], log: list[tuple[int, PodInfo, bool]]) -> None:
        """Apply the heard pod changes to rows that only saw those; compare the other rows."""
        t = self.table
        heard = {row for row, _, _ in log}
        compare = {
            row for row in changed
            if row not in heard or row in self._node_rows or not t.row_names[row]
            or self._row_name.get(row) != t.row_names[row]
        }
        replay = heard.intersection(changed).difference(compare)
        idx = self.index
        for row, pi, added in log:
            if row not in replay:
                continue
            name = t.row_names[row]
            if added:
                idx.add_pod(pi.pod, affinity_info_of(pi), key=pi.key, node_name=name)
            elif idx.pod_of(pi.key) is pi.pod and idx.node_of(pi.key) == name:
                idx.remove_key(pi.key)
        for row in sorted(compare):
            self._sync_row(row)

    def slots(self, rows: np.ndarray) -> np.ndarray:
        """Index slots of table rows."""
        result: np.ndarray = self.row_slot[rows]
        return result

    # ----- internals ----------------------------------------------------------------------
    def _reconcile_rows(self) -> None:
        """Drop nodes whose rows were released or reused since the last sync."""
        t = self.table
        for row, name in list(self._row_name.items()):
            if row >= t.high_water or t.row_names[row] != name:
                self._purge(name)
                del self._row_name[row]
                if row < len(self.row_slot):
                    self.row_slot[row] = -1

    def _purge(self, name: str) -> None:
        idx = self.index
        for key in idx.keys_on(name):
            idx.remove_key(key)
        idx.remove_node(name)

    def _sync_row(self, row: int) -> None:
        t = self.table
        idx = self.index
        name = t.row_names[row]
        prev = self._row_name.get(row)
        if prev is not None and prev != name:
            self._purge(prev)
        if not name:
            self._row_name.pop(row, None)
            return
        self._row_name[row] = name
        node = t.nodes[row]
        if node is None:
            idx.remove_node(name)
        elif idx.node_obj(name) is not node:
            idx.add_node(node)
        if row >= len(self.row_slot):
            grown = np.full(max(t.capacity, row + 1), -1, dtype=np.intp)
            grown[: len(self.row_slot)] = self.row_slot
            self.row_slot = grown
        self.row_slot[row] = idx.node_pos[name] if idx.has_live_node(name) else -1
        table_pods = t.pods[row]
        for key in idx.keys_on(name):
            if key not in table_pods:
                idx.remove_key(key)
        for key, pi in table_pods.items():
            if idx.pod_of(key) is not pi.pod or idx.node_of(key) != name:
                idx.add_pod(pi.pod, affinity_info_of(pi), key=key, node_name=name)
