"""The `migrations` result table: one row per podMigrated event, with the memory each freed.

It reaches `kubesim report` (a table section), the result tables (`kubesim.results`) and
`--tables` exports through the `kubesim_result_aggregators` hook.
"""

from __future__ import annotations

from typing import Any

from kubesim.results import Column, Table, TimelineEvent
from kubesim.results.state import ClusterState

__all__ = ["MIGRATION_COLUMNS", "MigrationsAggregator"]

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
                     description=f"{len(acc)} migrations, {total:g} GB freed on their source nodes, "
                                 f"{downtime} s of downtime in all.")
