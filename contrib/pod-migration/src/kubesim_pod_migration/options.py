"""The `kubesim run` options of the pod-migration plugin and the settings they make.

Named after the fork's flags (`example/main.go`: --useMigrator, --reqPolicy, --migPolicy,
--threshold, --checker, --noShortJobs, --noUnscheduler, --unschedulerThreshold, --memoStep,
--requestFactor). A trace is checked when the command line is read, so a broken one is
invalid input (`error: FILE: PATH: ...`, exit 2) before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import attrs
import click
from kubesim.clock import DEFAULT_EPOCH

from kubesim_pod_migration.checker import CODE_SLOPE, DEFAULT_BACKOFF
from kubesim_pod_migration.traces import check_trace

__all__ = ["MigrationSettings", "run_options"]


@attrs.frozen
class MigrationSettings:
    """Everything the plugin's submitters need, from `runtime.options`."""

    job_trace: str | None = None
    trace_start: str = "first"
    request_factor: float = 0.0
    trace_end: timedelta | None = None
    migrate: bool = False
    request_policy: str = "threshold"
    migration_policy: str = "optimal"
    threshold: float = 45.0
    checker: str = "blocking"
    slope: float = CODE_SLOPE
    backoff: timedelta = DEFAULT_BACKOFF
    memo_step: int = 2
    min_request: float = 0.0
    min_size: float = 5.0
    short_jobs: bool = False
    node_gb: float = 0.0
    unscheduler: bool = True
    unscheduler_threshold: float = 20.0

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> MigrationSettings:
        """Settings from `runtime.options` (the defaults for options not given)."""
        def get(key: str, default: Any) -> Any:
            value = options.get(key)
            return default if value is None else value

        d = cls()
        end = options.get("job_trace_end")
        return cls(
            job_trace=options.get("job_trace"),
            trace_start=get("job_trace_start", d.trace_start),
            request_factor=float(get("job_request_factor", d.request_factor)),
            trace_end=end if isinstance(end, timedelta) else None,
            migrate=bool(get("migrate", d.migrate)),
            request_policy=get("migration_request_policy", d.request_policy),
            migration_policy=get("migration_policy", d.migration_policy),
            threshold=float(get("migration_threshold", d.threshold)),
            checker=get("migration_checker", d.checker),
            slope=float(get("migration_slope", d.slope)),
            backoff=timedelta(seconds=float(get("migration_backoff", d.backoff.total_seconds()))),
            memo_step=int(get("migration_memo_step", d.memo_step)),
            min_request=float(get("migration_min_request", d.min_request)),
            min_size=float(get("migration_min_size", d.min_size)),
            short_jobs=bool(get("migration_short_jobs", d.short_jobs)),
            node_gb=float(get("migration_node_gb", d.node_gb)),
            unscheduler=bool(get("node_unscheduler", d.unscheduler)),
            unscheduler_threshold=float(get("unscheduler_threshold", d.unscheduler_threshold)),
        )


def _check_trace(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Read the trace now: a broken one is InvalidInput (exit 2) before anything runs."""
    if value is not None:
        check_trace(value, DEFAULT_EPOCH)
    return value


def _duration(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if value is None:
        return None
    from kubesim.cli.params import parse_duration

    try:
        return parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def run_options() -> list[click.Option]:
    """The options, built fresh for each CLI (click options are not shareable)."""
    nonneg = click.FloatRange(min=0)
    return [
        click.Option(["--job-trace"], type=click.Path(dir_okay=False), callback=_check_trace,
                     help="Replay a job trace in simulated time: the pod-migration fork's memory-trace JSON "
                          "([{Name, Memory, Time}]) or a CSV job trace (.csv; see docs/pod-migration.md)."),
        click.Option(["--job-trace-start"], type=click.Choice(["first", "absolute"]), default="first",
                     show_default=True,
                     help="first: the JSON trace's first sample is the run's start; absolute: its epoch times as given."),
        click.Option(["--job-request-factor"], type=nonneg, default=0.0, show_default=True,
                     help="Memory request = factor x the size token's 30/80/130 Gi (s/m/l; xl 420Gi); 0: request 0."),
        click.Option(["--job-trace-end"], callback=_duration,
                     help="Delete every job pod this long after the start and end the trace (the fork's JobDeleter)."),
        click.Option(["--migrate/--no-migrate"], default=False, show_default=True,
                     help="Run the migration controller on the trace's jobs (the fork's --useMigrator)."),
        click.Option(["--migration-request-policy"], type=click.Choice(["threshold", "slope"]), default="threshold",
                     show_default=True, help="Which nodes ask for memory to be freed."),
        click.Option(["--migration-policy"], type=click.Choice(["optimal", "max", "big-enough", "slope"]),
                     default="optimal", show_default=True, help="Which pods of such a node migrate."),
        click.Option(["--migration-threshold"], type=click.FloatRange(0, 100), default=45.0, show_default=True,
                     help="Percent of a node's memory to keep free."),
        click.Option(["--migration-checker"], type=click.Choice(["blocking", "concurrent"]), default="blocking",
                     show_default=True, help="blocking: ask again only a backoff after the last migration finished."),
        click.Option(["--migration-slope"], type=click.FloatRange(min=0, min_open=True), default=CODE_SLOPE,
                     show_default=True,
                     help="Downtime seconds per GB: ceil(slope x GB). 3.3506 is the fork's code; its README's "
                          "1.5 GB/s is 0.6667."),
        click.Option(["--migration-backoff"], type=nonneg, default=DEFAULT_BACKOFF.total_seconds(), show_default=True,
                     help="Seconds the blocking checker waits after a migration finished."),
        click.Option(["--migration-memo-step"], type=click.IntRange(min=1), default=2, show_default=True,
                     help="Ticks in a pod's memory slope (the fork's --memoStep)."),
        click.Option(["--migration-min-request"], type=nonneg, default=0.0, show_default=True,
                     help="Requests below this many GB end the controller's pass (the simulator uses 0)."),
        click.Option(["--migration-min-size"], type=nonneg, default=5.0, show_default=True,
                     help="The optimal policy only moves pods above this many GB."),
        click.Option(["--migration-short-jobs/--migration-no-short-jobs"], default=False, show_default=True,
                     help="Also migrate jobs past 95 %% of their runtime or with < 180 s left (the fork: --noShortJobs)."),
        click.Option(["--migration-node-gb"], type=nonneg, default=0.0, show_default=True,
                     help="GB of a node for the policies' percentages; 0: the first node's allocatable memory."),
        click.Option(["--node-unscheduler/--no-node-unscheduler"], default=True, show_default=True,
                     help="With a job trace: cordon nodes above the unscheduler threshold (the fork's NodeUnscheduler)."),
        click.Option(["--unscheduler-threshold"], type=click.FloatRange(0, 100), default=20.0, show_default=True,
                     help="Cordon a node with less than this percent of its memory free; uncordon at 15 points more."),
    ]
