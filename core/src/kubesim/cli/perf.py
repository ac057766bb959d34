"""`kubesim perf FILE`: run upstream scheduler_perf workloads and write their DataItems JSON.

Exit codes: 0 when every selected workload ran (Succeeded), 1 when one failed or an output
could not be written, or with --fail-on-threshold when one is below its threshold; 2 for
invalid input (nothing is run).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from kubesim.cli.consoles import console
from kubesim.cli.logconfig import configure_logging
from kubesim.cli.output import OutputError, check_outputs, write_data
from kubesim.cli.profiling import profile_options, profiled
from kubesim.errors import InvalidInput, Problem
from kubesim.feature_gates import FeatureGateError, parse_feature_gates
from kubesim.perf.compile import compile_workload
from kubesim.perf.config import TestCase, Workload, load_test_cases
from kubesim.perf.dataitems import data_items, threshold_failures
from kubesim.perf.runner import feature_gates_option, prepare_scenario, run_plan
from kubesim.perf.select import select_workloads
from kubesim.perf.templates import TemplateCache
from kubesim.plugins import Hooks

__all__ = ["perf_command"]

EXIT_FAILED = 1
EXIT_INVALID = 2


def _fail_invalid(exc: InvalidInput) -> None:
    for problem in exc.problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


def _plugin_options(hooks: Hooks, case: TestCase, workload: Workload, cli_options: Mapping[str, Any]) -> dict[str, Any]:
    """The scheduler's options for one workload: the file's schedulerConfigPath (unless
    --scheduler-config is given) checked as `run` checks it, and the file's featureGates with
    --feature-gates over them."""
    options = dict(cli_options)
    if not options.get("scheduler_config") and case.scheduler_config_path:
        path = str(case.path_of(case.scheduler_config_path))
        for option in hooks.run_options():
            if option.name == "scheduler_config" and option.callback is not None:
                try:
                    option.callback(click.get_current_context(), option, path)
                except InvalidInput as exc:
                    raise InvalidInput([Problem(f"{case.path}.schedulerConfigPath",
                                                f"{p.file or path}: {p.path + ': ' if p.path else ''}{p.message}",
                                                case.file) for p in exc.problems]) from None
        options["scheduler_config"] = path
    feature_gates_option(case.feature_gates, f"{case.path}.featureGates", case.file)  # its own errors, its own path
    gates = {**case.feature_gates, **workload.feature_gates}
    if options.get("feature_gates"):
        try:
            gates.update(parse_feature_gates(str(options["feature_gates"])))
        except FeatureGateError as exc:  # already checked by the option; kept for direct callers
            raise InvalidInput([Problem("--feature-gates", str(exc))]) from None
    options["feature_gates"] = feature_gates_option(gates, f"{workload.path}.featureGates", case.file)
    return options


def _check_names(cases: Sequence[TestCase], workloads: Sequence[str], test_cases: Sequence[str]) -> None:
    """A --workload or --test-case naming nothing in the file is a mistake, not an empty selection."""
    known_cases = [c.name for c in cases]
    known = {w.name for c in cases for w in c.workloads} | {f"{c.name}/{w.name}" for c in cases for w in c.workloads}
    problems = [Problem(f"--test-case {name}", f"no such testCase (have: {', '.join(known_cases)})")
                for name in test_cases if name not in known_cases]
    problems += [Problem(f"--workload {name}", "no such workload (give NAME or TESTCASE/NAME; --list shows them)")
                 for name in workloads if name not in known]
    if problems:
        raise InvalidInput(problems)


def _table(rows: Sequence[tuple[str, str, Mapping[str, Any]]]) -> None:
    from rich.table import Table

    table = Table(title="kubesim perf (throughput: pods per CPU second of this process)")
    for col in ("workload", "phase", "pods/s avg", "p50", "bound", "pending", "attempts s/u/e", "nodes used"):
        table.add_column(col)
    for name, phase, data in rows:
        table.add_row(name, phase, f"{data.get('Average', 0):.0f}", f"{data.get('Perc50', 0):.0f}",
                      str(data.get("Bound", "")), str(data.get("Pending", "")),
                      f"{data.get('Scheduled', '')}/{data.get('Unschedulable', '')}/{data.get('Error', '')}",
                      str(data.get("NodesUsed", "")))
    console(stderr=True).print(table)


def perf_command(hooks: Hooks) -> click.Command:
    """The `perf` command, with the scheduler's `run` options (--scheduler-config, --feature-gates, --detail)."""

    @click.command()
    @click.argument("file", type=click.Path(dir_okay=False))
    @click.option("-o", "--output", type=click.Path(dir_okay=False),
                  help="Write the DataItems JSON here (default: standard output).")
    @click.option("--label", "labels", multiple=True, metavar="LABELS",
                  help="Run workloads whose testCase and workload labels include these (comma-separated; "
                       "-label excludes), e.g. --label performance. Repeatable; all must match.")
    @click.option("--workload", "workloads", multiple=True, metavar="NAME",
                  help="Run only this workload (NAME or TESTCASE/NAME). Repeatable.")
    @click.option("--test-case", "test_cases", multiple=True, metavar="NAME", help="Run only this testCase. Repeatable.")
    @click.option("--step-duration", type=click.FloatRange(min=0.001), default=1.0, show_default=True,
                  help="Simulated seconds per step (sleep, churn intervals and per-second rates are laid out on them).")
    @click.option("--sample-interval", type=click.FloatRange(min=0.001), default=1.0, show_default=True,
                  help="CPU seconds per throughput sample (upstream samples every wall-clock second).")
    @click.option("--max-objects", type=click.IntRange(min=1), default=2_000_000, show_default=True,
                  help="Refuse a workload that writes more objects than this.")
    @click.option("--all-controllers", is_flag=True,
                  help="Also run the installed pre-simulation controllers (kubelet, ...); scheduler_perf runs "
                       "only the API server and the scheduler.")
    @click.option("--fail-on-threshold", is_flag=True, help="Exit 1 when a workload is below its threshold.")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed of every random choice.")
    @click.option("--list", "list_only", is_flag=True, help="List the selected workloads and exit.")
    @profile_options
    @click.option("-q", "--quiet", count=True, help="No summary table.")
    def perf(file: str, output: str | None, labels: tuple[str, ...], workloads: tuple[str, ...],
             test_cases: tuple[str, ...], step_duration: float, sample_interval: float, max_objects: int,
             all_controllers: bool, fail_on_threshold: bool, seed: int, list_only: bool,
             profile_path: str | None, profile_top: int | None, quiet: int, **plugin_options: Any) -> None:
        """Run the workloads of FILE, an upstream scheduler_perf config (a list of testCases), on the
        embedded cluster, and write scheduler_perf's DataItems JSON."""
        configure_logging(-1 - quiet)
        check_outputs(**{"--output": output, "--profile": profile_path})
        try:
            cases = load_test_cases(file)
            selected = select_workloads(cases, labels=labels, workloads=workloads, test_cases=test_cases)
            _check_names(cases, workloads, test_cases)
            templates = {case.file: TemplateCache(case.file) for case in cases}
            plans = []
            for case, workload in selected:
                plan = compile_workload(case, workload, step_seconds=step_duration, max_objects=max_objects,
                                        templates=templates[case.file], all_controllers=all_controllers)
                options = _plugin_options(hooks, case, workload, plugin_options)
                scenario = prepare_scenario(plan, hooks, case.file)
                plan.scenario = {}  # the Scenario holds what is needed: no second copy during the runs
                plans.append((case, workload, plan, scenario, options))
        except InvalidInput as exc:
            _fail_invalid(exc)
        if list_only:
            for case, workload, plan, _, _ in plans:
                click.echo(f"{plan.name}\t{plan.objects} operations\t{plan.steps} steps")
            return
        if not plans:
            click.echo(f"warning: no workload of {file} matches the selection", err=True)
        items: list[dict[str, Any]] = []
        rows: list[tuple[str, str, dict[str, Any]]] = []
        failed, below = False, []
        with profiled(profile_path, profile_top):
            for case, workload, plan, scenario, options in plans:
                record = run_plan(plan, scenario, hooks, options, seed=seed, step_seconds=step_duration, max_objects=max_objects)
                found = data_items(plan, record, sample_seconds=sample_interval)
                items.extend(found)
                below.extend(threshold_failures(case, workload, found))
                if record.phase != "Succeeded":
                    failed = True
                    click.echo(f"error: {plan.name}: {record.phase}: {record.message or ''}", err=True)
                summary: dict[str, Any] = {}
                for item in found:
                    summary.update(item["data"])
                rows.append((plan.name, record.phase, summary))
        document = {"version": "v1", "dataItems": items}
        if output:
            try:
                write_data(output, document)
            except OutputError as exc:
                click.echo(f"error: {exc}", err=True)
                failed = True
        else:
            from kubesim.cli.output import dump_json

            click.echo(dump_json(document))
        if not quiet:
            _table(rows)
        for message in below:
            click.echo(f"{'error' if fail_on_threshold else 'warning'}: below threshold: {message}", err=True)
        if failed or (below and fail_on_threshold):
            sys.exit(EXIT_FAILED)

    for option in hooks.run_options():
        perf.params.append(option)
    return perf
