"""Running a sweep end to end: cells to run (all, or those `--resume` has no record of),
the executor, the records as cells finish, and the outputs at the end (also after an
interruption, from the cells finished so far)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from kubesim.cli.output import write_atomic
from kubesim.plugins import Hooks
from kubesim.sweep.cell import CellResult
from kubesim.sweep.executors import run_dask, run_local
from kubesim.sweep.grid import Cell
from kubesim.sweep.page import render_page
from kubesim.sweep.progress import SweepProgress
from kubesim.sweep.results_table import write_csv, write_parquet, write_timings
from kubesim.sweep.spec import Sweep
from kubesim.sweep.store import CellRecord, Store, record_of

__all__ = ["SweepOutcome", "run_sweep", "write_outputs"]


@attrs.frozen
class SweepOutcome:
    """What a sweep did: its records in grid order (cells not finished are left out) and counts."""

    records: list[CellRecord]
    ran: int
    reused: int
    failed: int
    complete: bool


def run_sweep(sweep: Sweep, cells: Sequence[Cell], out: Path, *, jobs: int, dask: str | None = None,
              resume: bool = False, progress: bool = True, hooks: Hooks | None = None, verbosity: int = -1,
              on_record: Callable[[CellRecord], None] | None = None) -> SweepOutcome:
    """Run every cell (those with a stored record too, unless `resume`) and write the outputs.

    A KeyboardInterrupt stops the executor; the outputs are written from the cells finished
    and the interrupt is raised again.
    """
    store = Store(out)
    store.prepare(sweep.name, cells)
    by_key: dict[str, list[Cell]] = {}
    for cell in cells:
        by_key.setdefault(cell.key, []).append(cell)
    records: dict[str, CellRecord] = {}
    if resume:
        for key, same in by_key.items():
            found = store.load(same[0])
            if found is not None and found.status == "ok":
                records[key] = found
    todo = [same[0].task for key, same in by_key.items() if key not in records]
    reused = len(records)
    failed = 0

    with SweepProgress(len(by_key), skipped=reused, enabled=progress) as bar:
        def on_result(result: CellResult) -> None:
            nonlocal failed
            record = record_of(by_key[result.key][0], result)
            store.save(record, result.wall_seconds)
            records[result.key] = record
            failed += int(record.status != "ok")
            bar.advance(record.status != "ok")
            if on_record is not None:
                on_record(record)

        try:
            if dask is not None:
                run_dask(todo, dask, jobs, on_result, verbosity=verbosity)
            else:
                run_local(todo, jobs, on_result, hooks=hooks, verbosity=verbosity)
        finally:
            ordered = _in_order(cells, records)
            write_outputs(sweep, out, ordered, store)
    return SweepOutcome(ordered, ran=len(records) - reused, reused=reused, failed=failed,
                        complete=len(records) == len(by_key))


def _in_order(cells: Sequence[Cell], records: dict[str, CellRecord]) -> list[CellRecord]:
    """A record per finished cell in grid order (a cell that repeats another's inputs gets its own row)."""
    out = []
    for cell in cells:
        found = records.get(cell.key)
        if found is not None:
            out.append(attrs.evolve(found, scenario=cell.scenario, configuration=cell.configuration,
                                    parameters=dict(cell.parameters), seed=cell.seed))
    return out


def write_outputs(sweep: Sweep, out: Path, records: Sequence[CellRecord], store: Store) -> None:
    """results.csv, results.parquet, timings.csv and index.html from the records."""
    write_csv(out / "results.csv", sweep, records)
    write_parquet(out / "results.parquet", sweep, records)
    write_timings(out / "timings.csv", [(r.key, store.wall_seconds(r.key)) for r in records])
    write_atomic(out / "index.html", render_page(sweep, records))
