"""Tables of the metrics records a run in simulated time wrote (`status.scenarioResult.metrics`).

Three tables, one row per metrics record (every metricsTick): `node_usage` (per node: pod counts,
and usage, requests and allocatable per resource), `pod_metrics` (per pod: status, node, executed
seconds, usage, request and limit per resource) and `queue` (pending pods). Amounts are integers
as in the other tables: cpu in millicores, memory and other resources in base units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesim.api import Scenario
from kubesim.results.resources import amount, resource_order, unit
from kubesim.results.table import Column, Table

__all__ = ["METRICS_TABLES", "metrics_tables", "node_usage_table", "pod_metrics_table", "queue_table"]

METRICS_TABLES = ("node_usage", "pod_metrics", "queue")
"""The names of the tables built from metrics records."""


def _amount(name: str, rl: Mapping[str, Any] | None) -> int:
    q = (rl or {}).get(name)
    if q is None:
        return 0
    try:
        return amount(name, q)
    except ValueError:
        return 0


def _resources(lists: Sequence[Mapping[str, Any]]) -> list[str]:
    return resource_order(frozenset(str(k) for rl in lists for k in rl))


def node_usage_table(records: Sequence[Mapping[str, Any]]) -> Table:
    """One row per node per metrics record: what it runs, uses and is asked for over time."""
    nodes = [(r["Clock"], name, met) for r in records for name, met in (r.get("Nodes") or {}).items()]
    resources = _resources([rl for _, _, m in nodes for rl in (m["Allocatable"], m["TotalResourceUsage"],
                                                               m["TotalResourceRequest"])])
    columns = [Column("clock", "str", "the record's simulated time (RFC 3339)"),
               Column("node", "str", "the node's name"),
               Column("running", "int", "running pods (RunningPodsNum)"),
               Column("terminating", "int", "terminating pods (TerminatingPodsNum)"),
               Column("failed", "int", "pods that failed to start, e.g. over capacity (FailedPodsNum)"),
               Column("pods_allocatable", "int", "allocatable pods")]
    for r in resources:
        columns += [Column(f"{r}_usage", "int", f"{r} the running and terminating pods use ({unit(r)})"),
                    Column(f"{r}_requested", "int", f"{r} they request ({unit(r)})"),
                    Column(f"{r}_allocatable", "int", f"allocatable {r} ({unit(r)})")]
    rows = []
    for clock, name, m in nodes:
        row: list[Any] = [clock, name, m["RunningPodsNum"], m["TerminatingPodsNum"], m["FailedPodsNum"],
                          _amount("pods", m["Allocatable"])]
        for r in resources:
            row += [_amount(r, m["TotalResourceUsage"]), _amount(r, m["TotalResourceRequest"]),
                    _amount(r, m["Allocatable"])]
        rows.append(tuple(row))
    return Table("node_usage", tuple(columns), rows, "one row per node per metrics record (every metricsTick)")


def pod_metrics_table(records: Sequence[Mapping[str, Any]]) -> Table:
    """One row per pod per metrics record (running, terminating and failed pods)."""
    pods = [(r["Clock"], key, met) for r in records for key, met in (r.get("Pods") or {}).items()]
    resources = _resources([rl for _, _, m in pods for rl in (m["ResourceUsage"], m["ResourceRequest"])])
    columns = [Column("clock", "str", "the record's simulated time (RFC 3339)"),
               Column("namespace", "str", "the pod's namespace"), Column("name", "str", "the pod's name"),
               Column("status", "str", "Ok (running), Deleted (terminating), OverCapacity or Failed"),
               Column("node", "str", "the node it is bound to"),
               Column("bound_at", "str", "when it started on the node (RFC 3339)"),
               Column("executed_seconds", "int", "seconds of its simSpec it has run (frozen when frozen)"),
               Column("priority", "int", "spec.priority")]
    for r in resources:
        columns += [Column(f"{r}_usage", "int", f"{r} it uses ({unit(r)})"),
                    Column(f"{r}_requested", "int", f"{r} it requests ({unit(r)})"),
                    Column(f"{r}_limit", "int", f"its {r} limit ({unit(r)}; 0 when none)")]
    rows = []
    for clock, key, m in pods:
        namespace, _, name = key.partition("/")
        row: list[Any] = [clock, namespace, name, m["Status"], m["Node"], m["BoundAt"], m["ExecutedSeconds"],
                          m["Priority"]]
        for r in resources:
            row += [_amount(r, m["ResourceUsage"]), _amount(r, m["ResourceRequest"]), _amount(r, m["ResourceLimit"])]
        rows.append(tuple(row))
    return Table("pod_metrics", tuple(columns), rows, "one row per pod per metrics record (every metricsTick)")


def queue_table(records: Sequence[Mapping[str, Any]]) -> Table:
    """One row per metrics record: the pods waiting for a node."""
    return Table("queue", (Column("clock", "str", "the record's simulated time (RFC 3339)"),
                           Column("pending", "int", "pods not bound to a node (PendingPodsNum)")),
                 [(r["Clock"], (r.get("Queue") or {}).get("PendingPodsNum", 0)) for r in records],
                 "pending pods per metrics record (every metricsTick)")


def metrics_tables(result: Scenario) -> dict[str, Table]:
    """The metrics tables of a result; empty when it did not run in simulated time."""
    records = result.status.scenario_result.metrics if result.status.scenario_result else None
    if records is None:
        return {}
    return {"node_usage": node_usage_table(records), "pod_metrics": pod_metrics_table(records),
            "queue": queue_table(records)}
