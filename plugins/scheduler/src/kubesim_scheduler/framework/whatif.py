"""RowOverlay: temporary pod additions and removals on one node-table row.

Upstream runs preemption's what-if checks on NodeInfo snapshots. Here the node table is
the only node state the batch plugins read, so the row itself is edited and then put back
exactly as it was (same pods, same order) by `restore()`.
"""

# upstream: pkg/scheduler/framework/types.go (NodeInfo.Snapshot, AddPodInfo, RemovePod)

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .node_table import NodeTable
    from .pod_info import PodInfo

__all__ = ["RowOverlay"]


class RowOverlay:
    """Edits of one row that `restore()` undoes; use as a context manager."""

    __slots__ = ("_saved", "node_name", "row", "table")

    def __init__(self, table: NodeTable, row: int) -> None:
        self.table = table
        self.row = row
        self.node_name = table.row_names[row]
        self._saved = list(table.pods[row].items())

    def add(self, pod_info: PodInfo) -> None:
        """Account a pod on the row (assigned to this node)."""
        pi = pod_info if pod_info.node_name == self.node_name else pod_info.assigned_to(self.node_name)
        self.table.add_pod(pi, self.node_name)

    def remove(self, pod_info: PodInfo) -> None:
        if pod_info.key in self.table.pods[self.row]:
            self.table.remove_pod(pod_info.key)

    def restore(self) -> None:
        """Put the row back: drop added pods, re-add removed ones, original order."""
        t, row = self.table, self.row
        saved = dict(self._saved)
        current = t.pods[row]
        for key in [k for k in current if k not in saved]:
            t.remove_pod(key)
        for key, pi in self._saved:
            if key not in current:
                t.add_pod(pi, self.node_name)
        order = [k for k, _ in self._saved]
        if list(current) != order:
            current.reorder(order)

    def __enter__(self) -> RowOverlay:  # noqa: PYI034 - typing.Self needs 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()
