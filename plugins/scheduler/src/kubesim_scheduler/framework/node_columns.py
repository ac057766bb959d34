"""NodeColumns: a read-only column view of the node table for batch plugins.

Batch plugins receive node-table row numbers; this view gives them, per row, the node
name, allocatable and requested amounts and label values as read-only numpy arrays, so
they never touch the table's internals (which change as the runtime changes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .node_table import NodeTable

__all__ = ["NodeColumns", "LabelColumnView"]

# resource name -> (allocatable column, requested column) of the table's native resources
_NATIVE = {
    "cpu": ("alloc_cpu", "req_cpu"),
    "memory": ("alloc_mem", "req_mem"),
    "ephemeral-storage": ("alloc_eph", "req_eph"),
    "pods": ("allowed_pods", "pod_count"),
}
_NON_ZERO = {"cpu": "nz_cpu", "memory": "nz_mem"}


def _read_only(a: np.ndarray) -> np.ndarray:
    """A view of `a` that raises on writes."""
    v: np.ndarray = a.view()
    v.flags.writeable = False
    return v


class LabelColumnView:
    """One label key over all rows: `codes[row]` indexes `values` (-1: the node lacks the key)."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: np.ndarray, values: Sequence[str]) -> None:
        self.codes = _read_only(codes)
        self.values: tuple[str, ...] = tuple(values)

    def __repr__(self) -> str:
        return f"LabelColumnView({len(self.values)} values)"


class NodeColumns:
    """Per-row node data as read-only arrays; index them with the rows a batch method receives.

    Arrays are indexed by row (their length is the table's capacity, not the node count);
    `rows` lists the rows of all current nodes in scheduling order. Amounts are in the
    framework's units: milli-CPU, bytes, counts. `generation` changes on every node or pod
    change, so a plugin can key its own per-table caches on it.
    """

    __slots__ = ("_table",)

    def __init__(self, table: NodeTable) -> None:
        self._table = table

    @property
    def rows(self) -> np.ndarray:
        """Rows of all nodes, in the order the scheduler iterates them."""
        return _read_only(self._table.order)

    @property
    def names(self) -> np.ndarray:
        """Node name per row (object array; '' for unused rows)."""
        return _read_only(self._table.names)

    @property
    def generation(self) -> int:
        return int(self._table.generation)

    def row_of(self, name: str) -> int | None:
        """The row of a node, None when there is no such node."""
        return self._table.row_of(name)

    def allocatable(self, resource: str) -> np.ndarray:
        """status.allocatable of `resource` per row (int64); 0 where a node does not list it."""
        native = _NATIVE.get(resource)
        if native is not None:
            return _read_only(getattr(self._table, native[0]))
        sc = self._table.scalars.get(resource)
        return _read_only(sc.alloc) if sc is not None else self._zeros()

    def requested(self, resource: str) -> np.ndarray:
        """Sum of the requests of the pods on each row (int64); for 'pods', the pod count."""
        native = _NATIVE.get(resource)
        if native is not None:
            return _read_only(getattr(self._table, native[1]))
        sc = self._table.scalars.get(resource)
        return _read_only(sc.req) if sc is not None else self._zeros()

    def non_zero_requested(self, resource: str) -> np.ndarray:
        """Requests with the scheduler's defaults for containers without one (cpu, memory only)."""
        col = _NON_ZERO.get(resource)
        if col is None:
            raise ValueError(f"non_zero_requested: resource {resource!r}: expected one of cpu, memory")
        return _read_only(getattr(self._table, col))

    def label(self, key: str) -> LabelColumnView:
        """The values of label `key` per row (all -1 when no node has had the key)."""
        col = self._table.label_cols.get(key)
        if col is None:
            return LabelColumnView(np.full(self._table.capacity, -1, dtype=np.int32), ())
        return LabelColumnView(col.codes, col.values)

    def labels(self, row: int) -> Mapping[str, str]:
        """All labels of the node in `row`."""
        return MappingProxyType(self._table.node_labels[row])

    def _zeros(self) -> np.ndarray:
        return _read_only(np.zeros(self._table.capacity, dtype=np.int64))
