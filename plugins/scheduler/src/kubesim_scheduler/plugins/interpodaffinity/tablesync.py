"""Keep a ClusterIndex in step with the framework's NodeTable, by diffing row generations.

The NodeTable bumps a row's generation whenever its node or one of its pods changes, so a
sync only looks at rows changed since the last one; both pod-to-pod plugins share one index
per table.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

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


class TableIndex:
    """A ClusterIndex mirroring a NodeTable, plus the map from table rows to index slots."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.index = ClusterIndex()
        self.generation = -1
        self._order: Any = None
        self._rows_shape: tuple[int, int] = (-1, -1)
        self._row_name: dict[int, str] = {}
        self.row_slot = np.full(0, -1, dtype=np.intp)

    def sync(self) -> ClusterIndex:
        """Bring the index up to date with the table and return it."""
        t = self.table
        if t.generation == self.generation:
            return self.index
        order = t.order
        shape = (len(t.free_rows), t.high_water)
        if order is not self._order or shape != self._rows_shape:
            self._reconcile_rows()
            self._order = order
            self._rows_shape = shape
        gens = t.row_generation[: t.high_water]
        for row in np.flatnonzero(gens > self.generation).tolist():
            self._sync_row(row)
        self.generation = t.generation
        return self.index

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
