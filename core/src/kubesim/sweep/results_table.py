"""The sweep's results table: a row per cell as results.csv and results.parquet, plus timings.csv.

Columns: `cell` (the key), `scenario`, `configuration`, one per parameter, `seed`, one per
metric, `status` (ok or failed), `error`. Rows follow the grid's order. Both files hold only
what the inputs decide, so they are byte-identical whatever the executor; the wall time of
each cell is written separately to timings.csv (`cell`, `wall_seconds`), which pandas or
polars join on `cell`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubesim.cli.output import replace_atomic, write_atomic
from kubesim.sweep.spec import Sweep
from kubesim.sweep.store import CellRecord

__all__ = ["columns", "rows", "write_csv", "write_parquet", "write_timings"]


def columns(sweep: Sweep) -> list[str]:
    """The table's column names in order."""
    return (["cell", "scenario", "configuration", *(p.name for p in sweep.parameters), "seed",
             *(m.column for m in sweep.metrics), "status", "error"])


def rows(sweep: Sweep, records: Sequence[CellRecord]) -> list[list[Any]]:
    """One list of values per record, in the order of `columns`."""
    out = []
    for r in records:
        out.append([r.key, r.scenario, r.configuration, *(r.parameters[p.name] for p in sweep.parameters), r.seed,
                    *(r.metrics.get(m.column) for m in sweep.metrics), r.status, r.error])
    return out


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    return v


def write_csv(path: Path, sweep: Sweep, records: Sequence[CellRecord]) -> None:
    """results.csv (RFC 4180, `\\n` line ends, empty for null)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns(sweep))
    for row in rows(sweep, records):
        writer.writerow([_csv_value(v) for v in row])
    write_atomic(path, buf.getvalue())


def _arrow_column(pa: Any, values: list[Any]) -> Any:
    """A typed Arrow array: int64, float64, bool or string (other values as their JSON text)."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.bool_())
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.array(values, type=pa.int64())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
    return pa.array([None if v is None else v if isinstance(v, str) else str(_csv_value(v)) for v in values],
                    type=pa.string())


def write_parquet(path: Path, sweep: Sweep, records: Sequence[CellRecord]) -> None:
    """results.parquet: typed columns (metrics float64, seed int64, parameters by their values' type)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = columns(sweep)
    data = rows(sweep, records)
    metric_columns = {m.column for m in sweep.metrics}
    arrays = []
    for i, name in enumerate(names):
        values = [row[i] for row in data]
        if name in metric_columns:
            arrays.append(pa.array([None if v is None else float(v) for v in values], type=pa.float64()))
        elif name in ("cell", "scenario", "configuration", "status", "error"):
            arrays.append(pa.array(values, type=pa.string()))
        else:
            arrays.append(_arrow_column(pa, values))
    table = pa.Table.from_arrays(arrays, names=names)
    replace_atomic(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_timings(path: Path, timings: Sequence[tuple[str, float | None]]) -> None:
    """timings.csv: each cell's wall time in seconds (the one output that changes from run to run)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["cell", "wall_seconds"])
    for key, seconds in timings:
        writer.writerow([key, "" if seconds is None else f"{seconds:.3f}"])
    write_atomic(path, buf.getvalue())
