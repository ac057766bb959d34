"""RowMemo: per-node results for one pod request, kept from one scheduling cycle to the next.

Consecutive pods often ask for the same resources (the replicas of one workload). Their
NodeResourcesFit codes and resource scores then differ only on the rows that changed in
between, usually the one row the previous pod was bound to. A memo holds the values for
every table row and recomputes just the rows whose `row_generation` moved on; the node
table bumps a row's generation on every change of the node or of its pods.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from ...framework.node_table import NodeTable

__all__ = ["RowMemo"]


class RowMemo:
    """Values of `compute(rows)` for every table row under one key, refreshed by generation.

    `compute` must depend only on the key and on the table columns of the rows it is given,
    and must accept any row below `high_water` (free and ghost rows included).
    """

    __slots__ = ("generation", "key", "table", "values")

    def __init__(self, table: NodeTable) -> None:
        self.table = table
        self.key: Hashable = None
        self.generation = -1
        self.values: np.ndarray | None = None

    def get(self, key: Hashable, rows: np.ndarray, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """compute(rows), from the memo when it holds `key` (a new array each time)."""
        t = self.table
        hw = t.high_water
        if 2 * len(rows) < hw:  # a small share of the nodes (adaptive percentage): direct is cheaper
            return compute(rows)
        values = self.values
        if values is None or key != self.key or len(values) != hw:
            values = self.values = np.asarray(compute(np.arange(hw, dtype=np.intp)))
            self.key = key
        else:
            dirty = np.flatnonzero(t.row_generation[:hw] > self.generation)
            if len(dirty):
                values[dirty] = compute(dirty)
        self.generation = t.generation
        result: np.ndarray = values[rows]
        return result
