"""`kubesim sweep SWEEP.yaml -o DIR`: run a grid of scenarios x configurations x parameters x
seeds and rank the configurations.

Exit codes: 0 when every cell succeeded; 1 when a cell failed (its error is recorded, the
others ran) or an output could not be written; 2 for invalid input or a missing optional
dependency (nothing is run); 130/143 when interrupted (the outputs hold the cells finished;
`--resume` continues).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table as RichTable

from kubesim.cli.logconfig import configure_logging
from kubesim.cli.output import OutputError
from kubesim.errors import InvalidInput
from kubesim.interrupts import exit_code, signal_name
from kubesim.plugins import Hooks

if TYPE_CHECKING:
    from kubesim.sweep import CellRecord, Sweep

__all__ = ["sweep_command"]

EXIT_FAILED = 1
EXIT_INVALID = 2
_SUMMARY_ROWS = 10


def _missing_dependencies(dask: str | None) -> list[str]:
    missing = []
    for module, dist in (("pyarrow", "pyarrow"), ("plotly", "plotly")):
        try:
            __import__(module)
        except ImportError:
            missing.append(dist)
    if dask is not None:
        try:
            __import__("distributed")
        except ImportError:
            missing.append("dask[distributed]")
    return missing


def _invalid(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_INVALID)


def sweep_command(hooks: Hooks) -> click.Command:
    """The `sweep` command."""

    @click.command("sweep")
    @click.argument("sweep_file", metavar="SWEEP", type=click.Path(dir_okay=False))
    @click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
                  help="Directory for results.parquet, results.csv, timings.csv, index.html, cells/ and configs/.")
    @click.option("-j", "--jobs", type=click.IntRange(min=1, max=1024), default=None,
                  help="Worker processes (default: one per CPU; 1 runs the cells in this process). "
                       "With --dask local, the LocalCluster's workers.")
    @click.option("--dask", metavar="ADDRESS",
                  help="Run the cells on a Dask distributed cluster: its scheduler (tcp://host:8786), "
                       "or 'local' for a LocalCluster of worker processes on this machine.")
    @click.option("--resume", is_flag=True,
                  help="Skip cells with a successful record in the output directory (same inputs, same "
                       "kubesim and plugin versions); failed and missing cells run again.")
    @click.option("--dry-run", is_flag=True, help="Check the sweep and list its size; run nothing.")
    @click.option("-q", "--quiet", count=True, help="No progress and no summary table.")
    @click.option("-v", "--verbose", count=True, help="Log the runs (info; -vv for debug).")
    def sweep_cmd(sweep_file: str, output: str, jobs: int | None, dask: str | None, resume: bool,
                  dry_run: bool, quiet: int, verbose: int) -> None:
        """Run every cell of the SWEEP file's grid and rank its configurations.

        A cell is one scenario with one configuration, one value of each parameter and
        one seed, run in-process as `kubesim run` would. See docs/sweeps.md.
        """
        configure_logging(verbose - 1 - quiet)
        missing = _missing_dependencies(dask)
        if missing:
            _invalid(f"kubesim sweep needs {', '.join(missing)}: pip install 'kubesim[sweep]'")
        # imported here: every other command starts without the sweep package
        from kubesim.sweep import check_sweep, expand, is_sweep_output, load_sweep, versions
        from kubesim.sweep.executors import DaskUnavailable, default_jobs
        from kubesim.sweep.runner import run_sweep
        from kubesim.sweep.store import Store
        out = Path(output)
        try:
            sweep = load_sweep(sweep_file)
        except InvalidInput as exc:
            for p in exc.problems:
                click.echo(f"error: {p}", err=True)
            sys.exit(EXIT_INVALID)
        if not is_sweep_output(out):
            _invalid(f"{output}: exists and is not a sweep's output directory (no sweep.json): "
                     "give a new or empty directory")
        try:
            if dry_run:  # the configurations' copies go to a directory that is then removed
                with tempfile.TemporaryDirectory(prefix="kubesim-sweep-") as scratch:
                    settings = check_sweep(sweep, hooks, Path(scratch))
            else:
                Store(out).prepare(sweep.name, [])  # marks the directory as this sweep's, even if a check fails
                settings = check_sweep(sweep, hooks, out)
        except InvalidInput as exc:
            for p in exc.problems:
                click.echo(f"error: {p}", err=True)
            sys.exit(EXIT_INVALID)
        except (OSError, OutputError) as exc:
            _invalid(f"{output}: cannot write: {exc}")
        cells = expand(sweep, settings, versions(hooks))
        if dry_run:
            click.echo(f"{sweep.name}: valid, {len(cells)} cells ({len(sweep.scenarios)} scenarios x "
                       f"{len(sweep.configurations)} configurations x "
                       + "".join(f"{len(p.values)} {p.name} x " for p in sweep.parameters)
                       + f"{len(sweep.seeds)} seeds)")
            return
        workers = jobs or default_jobs()
        console = Console(stderr=True)
        try:
            outcome = run_sweep(sweep, cells, out, jobs=workers, dask=dask, resume=resume, progress=quiet == 0,
                                hooks=hooks, verbosity=verbose - 1 - quiet)
        except DaskUnavailable as exc:
            _invalid(str(exc))
        except KeyboardInterrupt as exc:
            click.echo(f"error: interrupted ({signal_name(exc)}); the finished cells are in {output} "
                       "(--resume continues)", err=True)
            sys.exit(exit_code(exc))
        except OutputError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_FAILED)
        if quiet == 0:
            _print_summary(console, sweep, outcome.records, output)
            console.print(f"{len(outcome.records)} cells: {outcome.ran} ran, {outcome.reused} reused, "
                          f"{outcome.failed} failed; wrote {output}/results.parquet, results.csv, timings.csv, "
                          "index.html", highlight=False)
        if outcome.failed or any(r.status != "ok" for r in outcome.records):
            sys.exit(EXIT_FAILED)

    return sweep_cmd


def _print_summary(console: Console, sweep: Sweep, records: Sequence[CellRecord], output: str) -> None:
    from kubesim.sweep import rank

    ranked = rank(sweep, records)
    table = RichTable(title=f"{sweep.name}: candidates by mean {sweep.rank_metric} ({sweep.rank_better} is better)",
                      title_justify="left")
    for col in ("rank", "candidate", f"{sweep.rank_metric} mean", "std", "cells", "failed"):
        table.add_column(col)
    for i, c in enumerate(ranked[:_SUMMARY_ROWS]):
        mean, std = c.mean.get(sweep.rank_metric), c.std.get(sweep.rank_metric)
        table.add_row(str(i + 1), c.label, "-" if mean is None else f"{mean:.4g}",
                      "-" if std is None else f"{std:.3g}", str(c.cells), str(c.failed))
    if len(ranked) > _SUMMARY_ROWS:
        table.caption = f"first {_SUMMARY_ROWS} of {len(ranked)}; all in {output}/index.html"
    console.print(table)
