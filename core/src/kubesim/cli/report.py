"""`kubesim report`: a result file as one self-contained HTML page, and its tables as CSV/JSON."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from kubesim.cli.output import write_atomic
from kubesim.errors import InvalidInput
from kubesim.plugins import Hooks
from kubesim.results import AggregatorError, ResultTables, analyze, load_results
from kubesim.results.report import ReportUnavailable, render_report

if TYPE_CHECKING:
    from kubesim.api import Scenario

__all__ = ["EXIT_FAILED", "EXIT_INVALID", "analyze_file", "fail", "invalid", "report_command"]

EXIT_FAILED = 1
EXIT_INVALID = 2


def fail(message: str, code: int) -> NoReturn:
    """Print `error: message` to stderr and exit with `code`."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def invalid(exc: InvalidInput) -> NoReturn:
    """Print every problem of `exc` as `error: ...` and exit 2."""
    for problem in exc.problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


def load_selected(path: str, scenario: str | None = None) -> list[Scenario]:
    """The results in file `path`, only the one named `scenario` when given; exit 2 on invalid input."""
    try:
        results = load_results(path)
    except InvalidInput as exc:
        invalid(exc)
    return select(path, results, scenario) if scenario is not None else results


def select(path: str, results: list[Scenario], scenario: str | None) -> list[Scenario]:
    """The result named `scenario` (all when None); exit 2 when there is none of that name."""
    if scenario is None:
        return results
    found = [r for r in results if r.name == scenario]
    if not found:
        fail(f"{path}: --scenario: no scenario named {scenario!r}", EXIT_INVALID)
    return found[:1]


def pick_one(path: str, results: list[Scenario], scenario: str | None) -> Scenario:
    """The one result a command works on; exit 2 when the file holds several and none is chosen."""
    results = select(path, results, scenario)
    if len(results) > 1:
        names = ", ".join(r.name for r in results)
        fail(f"{path} holds {len(results)} scenarios ({names}): choose one with --scenario", EXIT_INVALID)
    if not results:
        fail(f"{path}: holds no result", EXIT_INVALID)
    return results[0]


def analyze_file(path: str, hooks: Hooks, scenario: str | None = None) -> list[ResultTables]:
    """Load a result file and compute its tables; exit 2 on invalid input, 1 when an aggregator fails."""
    results = load_selected(path, scenario)
    try:
        return [analyze(r, hooks=hooks) for r in results]
    except AggregatorError as exc:
        fail(str(exc), EXIT_FAILED)


def report_command(hooks: Hooks) -> click.Command:
    """The `report` command, with the installed plugins' aggregators."""

    @click.command("report")
    @click.argument("result", type=click.Path(dir_okay=False))
    @click.option("-o", "--output", type=click.Path(dir_okay=False), default="report.html", show_default=True,
                  help="The HTML page to write.")
    @click.option("--tables", "tables_dir", type=click.Path(file_okay=False),
                  help="Also write every table to this directory (one file per table and format).")
    @click.option("--format", "formats", type=click.Choice(["csv", "json"]), multiple=True, default=("csv",),
                  show_default=True, help="Table file format for --tables (may be given twice).")
    @click.option("--scenario", help="Only the scenario of this name (a result file may hold several).")
    @click.option("--title", help="The page title (default: kubesim report: <file name>).")
    def report(result: str, output: str, tables_dir: str | None, formats: tuple[str, ...],
               scenario: str | None, title: str | None) -> None:
        """Write an HTML report of RESULT (a file written by `kubesim run -o`).

        Plots: cluster allocation and fragmentation, per-node utilization, pending pods
        (on their own axis) with binds and preemptions per step, filter rejection reasons
        (in failed attempts, and in attempts that bound the pod elsewhere); tables: pods
        that failed scheduling, scheduler plugins, and the tables of installed plugins'
        result aggregators. See docs/watching-runs-and-reading-results.md.
        """
        all_tables = analyze_file(result, hooks, scenario)
        try:
            page = render_report(all_tables, title=title or f"kubesim report: {Path(result).name}")
        except ReportUnavailable as exc:
            fail(str(exc), EXIT_INVALID)
        write_atomic(output, page)
        if tables_dir:
            for tables in all_tables:
                target = Path(tables_dir) / tables.scenario if len(all_tables) > 1 else Path(tables_dir)
                tables.write(target, formats=formats)
        click.echo(f"wrote {output}", err=True)

    return report
