"""The per-node, per-step table: each node as it is at the end of each MajorStep."""

from __future__ import annotations

from typing import Any

import attrs

from kubesim.results.events import TimelineEvent
from kubesim.results.resources import resource_order, unit
from kubesim.results.state import ClusterState
from kubesim.results.table import Column, Table

__all__ = ["NODE_COLUMNS", "NodeStepTable", "resource_columns"]

NODE_COLUMNS = (
    Column("step", "int", "MajorStep (the row shows the node at the end of it)"),
    Column("node", "str", "the node's name"),
    Column("unschedulable", "bool", "spec.unschedulable (cordoned)"),
    Column("pods", "int", "bound pods that are not finished"),
    Column("pods_allocatable", "int", "status.allocatable.pods"),
    Column("usage_pods", "int", "pods on the node that report usage (kubesim.io/usage annotation)"),
)


def resource_columns(resources: list[str], *, allocation: str) -> tuple[Column, ...]:
    """requested, allocatable, ratio and usage columns for each resource."""
    cols: list[Column] = []
    for r in resources:
        cols += [
            Column(f"{r}_requested", "int", f"sum of the pods' {r} requests ({unit(r)})"),
            Column(f"{r}_allocatable", "int", f"allocatable {r} ({unit(r)})"),
            Column(f"{r}_{allocation}", "float", f"{r}_requested / {r}_allocatable (empty when nothing is allocatable)"),
            Column(f"{r}_usage", "int", f"sum of the reported {r} usage ({unit(r)}; empty when no pod reports usage)"),
        ]
    return tuple(cols)


@attrs.define
class _Acc:
    rows: list[tuple[int, str, bool, int, int | None, int, dict[str, int], dict[str, int], dict[str, int] | None]] = (
        attrs.field(factory=list))
    resources: set[str] = attrs.field(factory=lambda: {"cpu", "memory"})


def ratio(requested: int, allocatable: int) -> float | None:
    """requested / allocatable, None when nothing is allocatable."""
    return requested / allocatable if allocatable > 0 else None


class NodeStepTable:
    """Aggregator of the "nodes" table; see NODE_COLUMNS and `resource_columns`."""

    name = "nodes"

    def initial(self) -> _Acc:
        return _Acc()

    def fold(self, acc: _Acc, event: TimelineEvent, state: ClusterState) -> _Acc:
        if event.kind != "stepEnd":
            return acc
        major = event.step.major
        for name in sorted(state.nodes):
            n = state.nodes[name]
            acc.resources.update(k for k in n.allocatable if k != "pods")
            acc.resources.update(k for k, v in n.requested.items() if v and k != "pods")
            acc.rows.append((major, name, n.unschedulable, n.pods, n.allocatable.get("pods"), n.usage_pods,
                             dict(n.requested), n.allocatable, dict(n.usage) if n.usage_pods else None))
        return acc

    def table(self, acc: _Acc) -> Table:
        resources = resource_order(frozenset(acc.resources))
        rows = []
        for major, name, cordoned, pods, slots, usage_pods, requested, allocatable, usage in acc.rows:
            values: list[Any] = [major, name, cordoned, pods, slots, usage_pods]
            for r in resources:
                req, alloc = requested.get(r, 0), allocatable.get(r, 0)
                values += [req, alloc, ratio(req, alloc), usage.get(r, 0) if usage is not None else None]
            rows.append(tuple(values))
        return Table(self.name, NODE_COLUMNS + resource_columns(resources, allocation="ratio"), rows,
                     "one row per node per MajorStep, as the node is at the end of the step")
