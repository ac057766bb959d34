"""The `migrations` result tables: one row per podMigrated event, and the totals per node.

It reaches `kubesim report` (a table section), the result tables (`kubesim.results`) and
`--tables` exports through the `kubesim_result_aggregators` hook.
"""

from __future__ import annotations

from typing import Any

from kubesim.results import Column, Table, TimelineEvent
from kubesim.results.state import ClusterState

__all__ = ["MIGRATION_COLUMNS", "NODE_MIGRATION_COLUMNS", "MigrationsAggregator", "NodeMigrationsAggregator"]

MIGRATION_COLUMNS = (
    Column("step", "int", "the MajorStep at which the migrated pod was created on the target"),
    Column("pod", "str", "the source pod (namespace default)"),
    Column("source_node", "str", "the node the pod left"),
    Column("target_pod", "str", "the pod recreated on the target (\"m\" + the source's name)"),
    Column("target_node", "str", "the node it moved to"),
    Column("size_gb", "float", "GB migrated (the pod's usage at the start, decimal GB rounded up): memory freed "
                               "on the source"),
    Column("downtime_seconds", "int", "from freezing the source to the target pod: ceil(slope x GB), plus the wait "
                                      "for earlier migrations"),
    Column("started_at", "str", "simulated time the source froze"),
    Column("finished_at", "str", "simulated time the target pod was created"),
)


class MigrationsAggregator:
    """Folds podMigrated events into the migrations table."""

    name = "migrations"

    def initial(self) -> list[tuple[Any, ...]]:
        return []

    def fold(self, acc: list[tuple[Any, ...]], event: TimelineEvent, state: ClusterState) -> list[tuple[Any, ...]]:
        if event.kind == "podMigrated" and event.event is not None and event.event.pod_migrated is not None:
            m = event.event.pod_migrated
            acc.append((event.step.major, m.pod, m.source_node, m.target_pod, m.target_node, m.size_gb,
                        m.downtime_seconds, m.started_at, m.finished_at))
        return acc

    def table(self, acc: list[tuple[Any, ...]]) -> Table:
        total = sum(row[5] for row in acc)
        downtime = sum(row[6] for row in acc)
        return Table("migrations", MIGRATION_COLUMNS, list(acc),
                     description=f"{len(acc)} migration{'' if len(acc) == 1 else 's'}, {total:g} GB freed on their "
                                 "source nodes, "
                                 f"{downtime} s of downtime in all.")


NODE_MIGRATION_COLUMNS = (
    Column("node", "str", "a node that pods left or moved to"),
    Column("migrated_out", "int", "pods that left it"),
    Column("gb_freed", "float", "GB those pods used on it (freed once each source terminated)"),
    Column("downtime_seconds", "int", "the downtime of the pods that left it"),
    Column("migrated_in", "int", "pods that moved to it"),
    Column("gb_received", "float", "GB those pods brought"),
)


class NodeMigrationsAggregator:
    """Folds podMigrated events into per-node totals (the `migrations_by_node` table)."""

    name = "migrations_by_node"

    def initial(self) -> dict[str, list[Any]]:
        return {}

    def fold(self, acc: dict[str, list[Any]], event: TimelineEvent, state: ClusterState) -> dict[str, list[Any]]:
        if event.kind == "podMigrated" and event.event is not None and event.event.pod_migrated is not None:
            m = event.event.pod_migrated
            out = acc.setdefault(m.source_node, [0, 0.0, 0, 0, 0.0])
            out[0] += 1
            out[1] += m.size_gb
            out[2] += m.downtime_seconds
            into = acc.setdefault(m.target_node, [0, 0.0, 0, 0, 0.0])
            into[3] += 1
            into[4] += m.size_gb
        return acc

    def table(self, acc: dict[str, list[Any]]) -> Table:
        rows = [(node, *acc[node]) for node in sorted(acc)]
        return Table("migrations_by_node", NODE_MIGRATION_COLUMNS, rows,
                     description="Per node: the pods that migrated away (memory freed, their downtime) and in.")

