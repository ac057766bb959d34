"""One call from a result to all its tables: the built-in ones and those of plugins' aggregators."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kubesim.api import Scenario
from kubesim.results.aggregator import Aggregator, AggregatorError, aggregate
from kubesim.results.cluster_table import ClusterStepTable
from kubesim.results.metrics_tables import METRICS_TABLES, metrics_tables
from kubesim.results.node_table import NodeStepTable
from kubesim.results.plugin_table import FilterReasonTable, PluginTable
from kubesim.results.pod_table import PodTable
from kubesim.results.table import Table

if TYPE_CHECKING:
    from kubesim.plugins import Hooks

__all__ = ["BUILTIN_TABLES", "ResultTables", "analyze", "builtin_aggregators", "plugin_aggregators"]

BUILTIN_TABLES = ("pods", "nodes", "cluster", "plugins", "filter_reasons")


def builtin_aggregators() -> dict[str, Aggregator[Any]]:
    """The aggregators of the built-in tables, by table name."""
    return {
        "pods": PodTable(),
        "nodes": NodeStepTable(),
        "cluster": ClusterStepTable(),
        "plugins": PluginTable(),
        "filter_reasons": FilterReasonTable(),
    }


def plugin_aggregators(hooks: Hooks) -> dict[str, Aggregator[Any]]:
    """Aggregators registered through `kubesim_result_aggregators`; a built-in name is an error."""
    found = hooks.result_aggregators()
    for name in found:
        if name in BUILTIN_TABLES:
            raise AggregatorError(f"result aggregator {name!r} clashes with the built-in table of that name")
    return dict(found)


@attrs.frozen
class ResultTables:
    """The tables of one result (one Scenario), by name, and the result itself (the report's
    pod drill-down reads its attempts).

    `tables["pods"]` is one table; iterating (`list(tables)`, `for t in tables`) gives
    every table in order, built-in ones first; `"pods" in tables` tests a name.
    """

    scenario: str
    tables: dict[str, Table]
    result: Scenario | None = attrs.field(default=None, eq=False, repr=False)

    def __iter__(self) -> Iterator[Table]:
        return iter(self.tables.values())

    def __len__(self) -> int:
        return len(self.tables)

    def __contains__(self, name: object) -> bool:
        return name in self.tables

    def __getitem__(self, name: str) -> Table:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r} (tables: {', '.join(self.tables)})") from None

    def write(self, directory: str | Path, *, formats: tuple[str, ...] = ("csv",)) -> list[Path]:
        """Write every table as `<directory>/<table>.<csv|json>`; returns the paths written."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, table in self.tables.items():
            for fmt in formats:
                path = out / f"{name}.{fmt}"
                if fmt == "csv":
                    table.to_csv(path)
                elif fmt == "json":
                    table.to_json(path)
                else:
                    raise ValueError(f"unknown table format {fmt!r} (expected csv or json)")
                written.append(path)
        return written


def analyze(
    result: Scenario,
    *,
    hooks: Hooks | None = None,
    aggregators: Mapping[str, Aggregator[Any]] | None = None,
    builtins: bool = True,
) -> ResultTables:
    """All tables of `result` in one pass over its timeline.

    A result of a run in simulated time has the metrics tables too (node_usage, pod_metrics,
    queue: `kubesim.results.metrics_tables`), built from its metrics records.

    :param hooks: add the aggregators that installed plugins register
    :param aggregators: more aggregators by table name
    :param builtins: include the built-in tables (pods, nodes, cluster, plugins, filter_reasons)
    """
    selected: dict[str, Aggregator[Any]] = builtin_aggregators() if builtins else {}
    extra = dict(plugin_aggregators(hooks)) if hooks is not None else {}
    extra.update(aggregators or {})
    for name, agg in extra.items():
        if name in selected:
            raise AggregatorError(f"result aggregator {name!r} clashes with another table of that name")
        selected[name] = agg
    for name in selected:
        if name in METRICS_TABLES:
            raise AggregatorError(f"result aggregator {name!r} clashes with the metrics table of that name")
    tables = aggregate(result, selected)
    if builtins:
        tables.update(metrics_tables(result))
    return ResultTables(result.name, tables, result)
