"""The `kubesim` command: run, validate, plugins, report, compare, explain, serve, import, record, capacity
and sweep.

Exit codes: 0 when every scenario ended Succeeded or Paused, 1 when one Failed (its
result is still written) or an output could not be written, 2 for invalid input (nothing
is run), 3 with `run --fail-on-paused` when one ended Paused (it ran out of operations
before a done operation; its result is written), 130 when interrupted by SIGINT and 143
by SIGTERM (what was computed is written).
"""

from __future__ import annotations

import gc
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import click
import structlog
from rich.table import Table

from kubesim.api import Scenario, ScenarioPhase
from kubesim.cli.consoles import console
from kubesim.cli.lazy import LazyGroup
from kubesim.cli.logconfig import configure_logging
from kubesim.cli.output import OutputError, check_outputs, write_atomic, write_data
from kubesim.cli.params import BYTES, DURATION, TIME
from kubesim.cli.profiling import profile_options, profiled
from kubesim.cli.progress import LIVE_INTERVAL, Mode, RunProgress
from kubesim.cli.simtime_options import is_stream, simtime_from_cli, simtime_options
from kubesim.cli.validate import check_step_times, load_and_validate
from kubesim.clock import DEFAULT_EPOCH
from kubesim.controllers.settle import MAX_OBJECTS, SettleLimits
from kubesim.errors import InvalidInput
from kubesim.interrupts import exit_code, received, signal_name
from kubesim.plugins import Hooks, PluginError, load_plugins
from kubesim.scenario import UPDATE_STRATEGIES, EngineOptions, ScenarioRun, Simulator
from kubesim.scenario import gate as builtin_gate
from kubesim.scenario.memory import relax_full_collections
from kubesim.simtime.kcs_config import load_kcs_config, with_kcs_cluster
from kubesim.simtime.options import Until

__all__ = ["build_cli", "main"]

EXIT_FAILED = 1
EXIT_INVALID = 2
EXIT_PAUSED = 3

_stderr = console(stderr=True)


def _fail_invalid(exc: InvalidInput) -> None:
    for problem in exc.problems:
        click.echo(f"error: {problem}", err=True)
    sys.exit(EXIT_INVALID)


def _verbosity(verbose: int, quiet: int) -> int:
    return verbose - quiet


def _verbose_options(f: Any) -> Any:
    f = click.option("-v", "--verbose", count=True, help="More log output (debug).")(f)
    return click.option("-q", "--quiet", count=True, help="Less log output; -qq for errors only.")(f)


def _summary(scenarios: Sequence[Scenario]) -> Table:
    table = Table(title="kubesim results", show_lines=False)
    for col in ("scenario", "phase", "step", "events", "message"):
        table.add_column(col)
    for s in scenarios:
        result = s.status.scenario_result
        counts: Counter[str] = Counter()
        for events in (result.timeline.values() if result else []):
            for e in events:
                for field in ("create", "patch", "delete", "done", "pod_scheduled", "pod_unscheduled", "pod_preempted",
                              "pod_migrated"):
                    if getattr(e, field) is not None:
                        counts[field] += 1
        detail = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        step = s.status.step_status.step
        table.add_row(s.name, s.status.phase.value if s.status.phase else "", str(step),
                      detail, s.status.message or "")
    return table


def _cluster_listing(runs: Sequence[ScenarioRun]) -> dict[str, Any]:
    items = runs[-1].cluster.objects() if runs else []
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def _write_output(path: str, write: Callable[[str], None]) -> bool:
    """Write one output (`write(path)`); a failure is reported and does not stop the other outputs."""
    try:
        write(path)
    except OutputError as exc:
        click.echo(f"error: {exc}", err=True)
        return False
    return True


def build_cli(hooks: Hooks) -> click.Group:
    """The click command group, with `run` options contributed by plugins."""

    @click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(package_name="kubesim")
    def cli() -> None:
        """kubesim: deterministic scenario-based simulation of Kubernetes schedulers and controllers."""

    @cli.command()
    @click.argument("files", nargs=-1)
    @click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the Scenario(s) with status and timeline as JSON.")
    @click.option("--export-cluster", type=click.Path(dir_okay=False), help="Write every object of the final cluster as a kubectl-style List (.yaml or .json).")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed for every random choice (ties, generated names).")
    @click.option("--step-duration", type=DURATION, default="10s", show_default=True, help="Simulated time between MajorSteps.")
    @click.option("--start-time", type=TIME, default=DEFAULT_EPOCH.strftime("%Y-%m-%dT%H:%M:%SZ"), show_default=True, help="Simulated time of step 0.")
    @click.option("--update-results-strategy", type=click.Choice(UPDATE_STRATEGIES), envvar="UPDATE_SCENARIO_RESULTS_STRATEGY", default="AtMovingNextStep", show_default=True, help="When the in-cluster Scenario's status.scenarioResult is updated.")
    @click.option("--allow-unknown-targets", is_flag=True, help="Allow patch/delete of objects no earlier operation creates (controllers may create them).")
    @click.option("--max-objects", type=click.IntRange(min=1), default=MAX_OBJECTS, show_default=True, help="Fail a scenario whose cluster grows past this many objects.")
    @click.option("--max-input-size", type=BYTES, default=None, metavar="SIZE",
                  help="Read scenario FILES up to this size (default 64Mi; a 500,000-pod scenario is about 220Mi of JSON).")
    @click.option("--fail-on-paused", is_flag=True, help="Exit 3 when a scenario ends Paused (no done operation), e.g. in CI.")
    @click.option("--progress-interval", type=DURATION, default="5s", show_default=True, help="Time between progress log lines on stderr when it is not a terminal (-q: none).")
    @simtime_options
    @profile_options
    @_verbose_options
    def run(files: tuple[str, ...], output: str | None, export_cluster: str | None, seed: int,
            step_duration: timedelta, start_time: datetime, update_results_strategy: str,
            allow_unknown_targets: bool, max_objects: int, max_input_size: int | None, fail_on_paused: bool,
            progress_interval: timedelta,
            simulated_time: bool, until: Until | None, max_ticks: int | None, metrics: str | None,
            metrics_format: str, metrics_tick: timedelta | None, kcs_config: str | None,
            profile_path: str | None, profile_top: int | None, verbose: int, quiet: int,
            **plugin_options: Any) -> None:
        """Run the scenarios in FILES (YAML or JSON, several documents each) one after another.

        With --kcs-config, FILES may be left out: the config's cluster runs on its own.
        """
        verbosity = _verbosity(verbose, quiet)
        configure_logging(verbosity)
        ctx = click.get_current_context()
        try:
            kcs = load_kcs_config(kcs_config) if kcs_config else None
            if not files and kcs is None:
                raise click.UsageError("give scenario FILES, or --kcs-config")
            scenarios = load_and_validate(files, hooks, allow_unknown_targets=allow_unknown_targets,
                                          max_bytes=max_input_size) if files else []
            if kcs is not None:
                scenarios = with_kcs_cluster(kcs, scenarios)
            sim = simtime_from_cli(ctx, simulated_time=simulated_time, until=until, max_ticks=max_ticks,
                                   metrics=metrics, metrics_format=metrics_format, metrics_tick=metrics_tick,
                                   step_duration=step_duration, start_time=start_time, kcs=kcs)
            options = EngineOptions(seed=seed, step_duration=step_duration, start_time=start_time,
                                    update_strategy=update_results_strategy,
                                    allow_unknown_targets=allow_unknown_targets,
                                    settle_limits=SettleLimits(max_objects=max_objects),
                                    plugin_options=plugin_options, simulated_time=sim)
            check_step_times(options, scenarios)
        except InvalidInput as exc:
            _fail_invalid(exc)
        sinks = {f"--metrics {s.dest}": s.dest for s in (sim.metrics if sim else ()) if not is_stream(s.dest)}
        check_outputs(**{"--output": output, "--export-cluster": export_cluster, "--profile": profile_path, **sinks})
        for path in sinks.values():
            if not _write_output(path, lambda p: write_atomic(p, "")):  # truncated once: each scenario appends its records
                sys.exit(EXIT_FAILED)
        mode: Mode = "off" if verbosity < 0 else "live" if _stderr.is_terminal else "log"
        interrupted: KeyboardInterrupt | None = None
        with RunProgress(_stderr, mode, log_interval=progress_interval.total_seconds()) as progress:
            simulator = Simulator(hooks, options, progress=progress.update,
                                  live=progress.update if mode != "off" else None, live_interval=LIVE_INTERVAL)
            try:
                with profiled(profile_path, profile_top):
                    simulator.run(scenarios)
            except KeyboardInterrupt as exc:
                interrupted = exc
        results = [run.scenario for run in simulator.runs]
        written = True
        if output and simulator.runs:
            data = [run.to_json() for run in simulator.runs]
            # streamed to the file: the results' JSON data shares its objects with the runs
            written = _write_output(output, lambda p: write_data(p, data if len(data) > 1 else data[0]))
        if export_cluster:
            written = _write_output(export_cluster, lambda p: write_data(p, _cluster_listing(simulator.runs))) and written
        if verbosity >= 0 and results:
            _stderr.print(_summary(results))
        if interrupted is not None:
            click.echo(f"error: interrupted ({signal_name(interrupted)})", err=True)
            sys.exit(exit_code(interrupted))
        if not written or any(s.status.phase == ScenarioPhase.FAILED for s in results):
            sys.exit(EXIT_FAILED)
        paused = [s for s in results if s.status.phase == ScenarioPhase.PAUSED]
        for s in paused:
            if fail_on_paused or verbosity >= 0:
                level = "error" if fail_on_paused else "warning"
                hint = "" if fail_on_paused else " (--fail-on-paused makes this exit 3)"
                click.echo(f"{level}: scenario {s.name} ended Paused at step {s.status.step_status.step}: "
                           f"its operations ran out before a done operation{hint}", err=True)
        if paused and fail_on_paused:
            sys.exit(EXIT_PAUSED)

    for option in hooks.run_options():
        run.params.append(option)

    @cli.command()
    @click.argument("files", nargs=-1, required=True)
    @click.option("--allow-unknown-targets", is_flag=True, help="Allow patch/delete of objects no earlier operation creates.")
    @_verbose_options
    def validate(files: tuple[str, ...], allow_unknown_targets: bool, verbose: int, quiet: int,
                 **plugin_options: Any) -> None:
        """Check scenario FILES (and the plugins' `run` options given, e.g. --scheduler-config) without running them."""
        configure_logging(_verbosity(verbose, quiet))
        try:
            scenarios = load_and_validate(files, hooks, allow_unknown_targets=allow_unknown_targets)
        except InvalidInput as exc:
            _fail_invalid(exc)
        if quiet == 0:
            for s in scenarios:
                click.echo(f"{s.name}: valid ({len(s.spec.operations)} operations)")

    for option in hooks.run_options():  # their callbacks check them as `run` would
        validate.params.append(option)

    @cli.command()
    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
    def plugins(as_json: bool) -> None:
        """List installed plugins with their distribution, version and hooks."""
        infos = [i for i in hooks.plugin_infos() if i.module != builtin_gate.__name__]
        if as_json:
            click.echo(json.dumps([
                {"name": i.name, "module": i.module, "distribution": i.distribution,
                 "version": i.version, "hooks": list(i.hooks)} for i in infos
            ], indent=2))
            return
        table = Table()
        for col in ("name", "distribution", "version", "hooks"):
            table.add_column(col)
        for i in infos:
            table.add_row(i.name, i.distribution or "-", i.version or "-", ", ".join(i.hooks))
        console().print(table)

    assert isinstance(cli, LazyGroup)
    # imported when used: `kubesim run` does not pay for plotting, the web app or the tables
    for name, module, factory in (("report", "report", "report_command"), ("compare", "compare", "compare_command"),
                                  ("serve", "serve", "serve_command"), ("import", "import_cmd", "import_command"),
                                  ("record", "record_cmd", "record_command"),
                                  ("capacity", "capacity", "capacity_command"), ("sweep", "sweep", "sweep_command")):
        cli.add_lazy_command(name, f"kubesim.cli.{module}", factory, hooks)
    cli.add_lazy_command("perf", "kubesim.cli.perf", "perf_command", hooks)
    cli.add_lazy_command("explain", "kubesim.cli.explain", "explain_command")
    return cli


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `kubesim` command."""
    configure_logging(0)
    relax_full_collections()
    try:
        try:
            hooks = load_plugins()
        except PluginError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_INVALID)
        structlog.get_logger().debug("plugins loaded", plugins=[i.name for i in hooks.plugin_infos()])
        code = build_cli(hooks).main(args=list(argv) if argv is not None else None, prog_name="kubesim",
                                     standalone_mode=False)
        if isinstance(code, int) and code:  # ctx.exit(n) returns n when click does not exit itself
            sys.exit(code)
    except KeyboardInterrupt as exc:
        click.echo(f"error: interrupted ({signal_name(exc)})", err=True)
        sys.exit(exit_code(exc))
    except click.exceptions.Abort:  # click turns an interrupt in its own code into Abort
        interrupt = received() or KeyboardInterrupt()
        click.echo(f"error: interrupted ({signal_name(interrupt)})", err=True)
        sys.exit(exit_code(interrupt))
    except click.exceptions.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except InvalidInput as exc:  # an option's value (a plugin's configuration file) checked on parsing
        _fail_invalid(exc)
    except OutputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    finally:
        # The process ends here. What a run leaves in reference cycles (cluster, controllers,
        # results) would be collected object by object at interpreter shutdown: about two
        # seconds after a 10,000-pod run. Frozen objects are left to the exit instead.
        gc.freeze()
