"""The cluster-per-step table: totals at the end of each MajorStep and what happened during it."""

from __future__ import annotations

from typing import Any

import attrs

from kubesim.results.attempts import new_attempts
from kubesim.results.events import TimelineEvent
from kubesim.results.fragmentation import fragmentation
from kubesim.results.node_table import ratio, resource_columns
from kubesim.results.resources import resource_order
from kubesim.results.state import ClusterState, pod_key
from kubesim.results.table import Column, Table

__all__ = ["ALLOCATION_RESOURCES", "CLUSTER_COLUMNS", "ClusterStepTable"]

ALLOCATION_RESOURCES = ("cpu", "memory")

CLUSTER_COLUMNS = (
    Column("step", "int", "MajorStep (totals are at the end of it, counts are of events during it)"),
    Column("nodes", "int", "nodes in the cluster"),
    Column("pods", "int", "pods that are not finished"),
    Column("bound", "int", "pods bound to a node and not finished"),
    Column("pending", "int", "pods not bound and not finished"),
    Column("scheduled", "int", "binds during the step"),
    Column("unschedulable", "int", "pods that failed a scheduling attempt during the step and are still pending"),
    Column("failed_attempts", "int", "failed scheduling attempts during the step"),
    Column("preempted", "int", "pods preempted during the step"),
    Column("deleted", "int", "pods deleted during the step"),
    Column("allocation", "float", "mean of cpu_allocation and memory_allocation (the allocation rate)"),
    Column("fragmentation", "float", "share of free cpu/memory on nodes that cannot fit the median pending pod "
                                     "(else the median pod); see kubesim.results.fragmentation"),
)


@attrs.define
class _Acc:
    rows: list[dict[str, Any]] = attrs.field(factory=list)
    step: dict[str, int] = attrs.field(factory=dict)
    failed: set[str] = attrs.field(factory=set)
    resources: set[str] = attrs.field(factory=lambda: {"cpu", "memory"})


class ClusterStepTable:
    """Aggregator of the "cluster" table; see CLUSTER_COLUMNS, plus per-resource totals."""

    name = "cluster"

    def initial(self) -> _Acc:
        return _Acc()

    def fold(self, acc: _Acc, event: TimelineEvent, state: ClusterState) -> _Acc:
        kind = event.kind
        counts = acc.step
        if kind == "podScheduled":
            counts["scheduled"] = counts.get("scheduled", 0) + 1
        elif kind == "podUnscheduled":
            counts["failed_attempts"] = counts.get("failed_attempts", 0) + len(new_attempts(event))
            _, _, namespace, name = event.target
            acc.failed.add(pod_key(namespace, name))
        elif kind == "podPreempted":
            counts["preempted"] = counts.get("preempted", 0) + 1
        elif kind == "delete" and event.is_kind("v1", "Pod"):
            counts["deleted"] = counts.get("deleted", 0) + 1
        elif kind == "stepEnd":
            acc.rows.append(self._snapshot(acc, event.step.major, state))
            acc.step = {}
            acc.failed = set()
        return acc

    def _snapshot(self, acc: _Acc, major: int, state: ClusterState) -> dict[str, Any]:
        requested: dict[str, int] = {}
        allocatable: dict[str, int] = {}
        for n in state.nodes.values():
            for k, v in n.allocatable.items():
                allocatable[k] = allocatable.get(k, 0) + v
            for k, v in n.requested.items():
                requested[k] = requested.get(k, 0) + v
        acc.resources.update(k for k in allocatable if k != "pods")
        live = [p for p in state.pods.values() if not p.terminal]
        pending = sum(1 for p in live if p.node is None)
        ratios = [ratio(requested.get(r, 0), allocatable.get(r, 0)) for r in ALLOCATION_RESOURCES]
        known = [x for x in ratios if x is not None]
        return {
            "step": major,
            "nodes": len(state.nodes),
            "pods": len(live),
            "bound": len(live) - pending,
            "pending": pending,
            "scheduled": acc.step.get("scheduled", 0),
            "unschedulable": sum(1 for k in acc.failed if k in state.pods and state.pods[k].pending),
            "failed_attempts": acc.step.get("failed_attempts", 0),
            "preempted": acc.step.get("preempted", 0),
            "deleted": acc.step.get("deleted", 0),
            "allocation": sum(known) / len(known) if known else None,
            "fragmentation": fragmentation(state),
            "_requested": requested,
            "_allocatable": allocatable,
        }

    def table(self, acc: _Acc) -> Table:
        resources = resource_order(frozenset(acc.resources))
        extra = tuple(c for c in resource_columns(resources, allocation="allocation") if not c.name.endswith("_usage"))
        rows = []
        for row in acc.rows:
            values = [row[c.name] for c in CLUSTER_COLUMNS]
            for r in resources:
                req, alloc = row["_requested"].get(r, 0), row["_allocatable"].get(r, 0)
                values += [req, alloc, ratio(req, alloc)]
            rows.append(tuple(values))
        return Table(self.name, CLUSTER_COLUMNS + extra, rows, "one row per MajorStep")
