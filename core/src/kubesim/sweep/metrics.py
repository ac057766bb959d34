"""The metrics a sweep computes for each cell, from the tables of `kubesim.results`.

Two forms:

- a summary metric of `kubesim compare` (kubesim.results.compare.METRICS): `unscheduled`,
  `pending`, `allocation`, `fragmentation`, `preemptions`, `attempts`;
- `TABLE.COLUMN:AGG` over any table `analyze` builds, built-in (pods, nodes, cluster,
  plugins, filter_reasons) or a plugin's registered aggregator, with AGG one of sum, mean,
  min, max, first, last, count (e.g. `pods.attempts:mean`, `cluster.allocation:last`).
  Its column in the results table is `TABLE.COLUMN:AGG`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

import attrs

from kubesim.results import (
    BUILTIN_TABLES,
    CLUSTER_COLUMNS,
    FILTER_REASON_COLUMNS,
    NODE_COLUMNS,
    PLUGIN_COLUMNS,
    POD_COLUMNS,
    ResultTables,
)
from kubesim.results.compare import METRICS, summary_metrics

__all__ = ["AGGREGATIONS", "MetricSpec", "compute_metrics", "parse_metric"]

Better = Literal["lower", "higher"]


def _numbers(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float))]  # a bool counts as 0 or 1


def _mean(values: Sequence[Any]) -> float | None:
    nums = _numbers(values)
    return sum(nums) / len(nums) if nums else None


AGGREGATIONS: dict[str, Callable[[Sequence[Any]], float | None]] = {
    "sum": lambda v: float(sum(_numbers(v))),
    "mean": _mean,
    "min": lambda v: min(_numbers(v), default=None),
    "max": lambda v: max(_numbers(v), default=None),
    "first": lambda v: next(iter(_numbers(v[:1])), None),
    "last": lambda v: next(iter(_numbers(v[-1:])), None),
    "count": lambda v: float(sum(1 for x in v if x is not None)),
}
"""How a column's values become one number; None values are left out."""

_BUILTIN_COLUMNS = {
    "pods": POD_COLUMNS, "nodes": NODE_COLUMNS, "cluster": CLUSTER_COLUMNS,
    "plugins": PLUGIN_COLUMNS, "filter_reasons": FILTER_REASON_COLUMNS,
}
_RESOURCE_SUFFIXES = {  # per-resource columns, one set per resource the result holds
    "pods": ("_request",), "nodes": ("_requested", "_allocatable", "_ratio", "_usage"),
    "cluster": ("_requested", "_allocatable", "_allocation"),
}
_FORM = re.compile(r"^([A-Za-z_][\w-]*)\.([A-Za-z_][\w.-]*):([a-z]+)$")


@attrs.frozen
class MetricSpec:
    """One metric: its results-table column and where its value comes from."""

    column: str
    table: str | None = None
    source: str | None = None
    aggregation: str | None = None
    better: Better | None = None

    @property
    def builtin_only(self) -> bool:
        """True when only the built-in tables are needed (no plugin aggregator)."""
        return self.table is None or self.table in BUILTIN_TABLES


def parse_metric(text: Any) -> MetricSpec:
    """A metric from its name; ValueError saying what was expected."""
    if not isinstance(text, str):
        raise ValueError(f"expected a metric name (a string), got {text!r}")
    if text in METRICS:
        return MetricSpec(column=text, better=METRICS[text][0])
    m = _FORM.match(text)
    if m is None:
        raise ValueError(f"expected one of {', '.join(METRICS)} or TABLE.COLUMN:AGG (e.g. pods.attempts:mean), "
                         f"got {text!r}")
    table, column, agg = m.groups()
    if agg not in AGGREGATIONS:
        raise ValueError(f"{text!r}: expected an aggregation among {', '.join(AGGREGATIONS)}, got {agg!r}")
    if table in _BUILTIN_COLUMNS:
        names = [c.name for c in _BUILTIN_COLUMNS[table]]
        suffixes = _RESOURCE_SUFFIXES.get(table, ())
        if column not in names and not any(column.endswith(s) and len(column) > len(s) for s in suffixes):
            more = "".join(f", <resource>{s}" for s in suffixes)
            raise ValueError(f"{text!r}: table {table} has no column {column!r} (columns: {', '.join(names)}{more})")
    return MetricSpec(column=text, table=table, source=column, aggregation=agg)


def compute_metrics(tables: ResultTables, metrics: Sequence[MetricSpec]) -> dict[str, float | None]:
    """Every metric of one result, by column name; KeyError names a missing table or column."""
    summary = summary_metrics(tables) if any(m.table is None for m in metrics) else {}
    out: dict[str, float | None] = {}
    for m in metrics:
        if m.table is None:
            out[m.column] = summary[m.column]
            continue
        assert m.source is not None and m.aggregation is not None
        table = tables[m.table]
        if m.source not in table.column_names:
            raise KeyError(f"metric {m.column}: table {m.table} has no column {m.source!r}")
        out[m.column] = AGGREGATIONS[m.aggregation](table.column(m.source))
    return out
