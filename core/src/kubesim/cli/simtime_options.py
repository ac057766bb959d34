"""`kubesim run`'s simulated-time options: --simulated-time, --until, --max-ticks, --metrics*, --kcs-config."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import click
from click.core import ParameterSource

from kubesim.cli.params import DURATION
from kubesim.simtime.formats import FORMATS
from kubesim.simtime.kcs_config import KcsConfig
from kubesim.simtime.options import MetricsSink, SimTimeOptions, Until, parse_until

__all__ = ["is_stream", "simtime_from_cli", "simtime_options"]


class _UntilType(click.ParamType):  # type: ignore[type-arg,unused-ignore]
    name = "step|time|duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Until:
        if isinstance(value, Until):
            return value
        try:
            return parse_until(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def simtime_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate `run` with the simulated-time options."""
    options = [
        click.option("--kcs-config", type=click.Path(dir_okay=False),
                     help="Run a k8s-cluster-simulator config (tick, startClock, metricsTick, metricsLogger, "
                          "cluster): its nodes are created at step 0, in simulated time."),
        click.option("--metrics-tick", type=DURATION, default=None,
                     help="Write metrics when more than this has passed since the last write (default: the tick)."),
        click.option("--metrics-format", type=click.Choice(sorted(FORMATS)), default="json", show_default=True,
                     help="Format of --metrics: k8s-cluster-simulator's JSON lines, table or humanReadable."),
        click.option("--metrics", type=click.Path(dir_okay=False), default=None,
                     help="Write a metrics record every metricsTick to this file (- for stdout)."),
        click.option("--max-ticks", type=click.IntRange(min=1), default=None,
                     help="Fail a run in simulated time whose work has not ended after this many ticks "
                          "[default: 100000]."),
        click.option("--until", type=_UntilType(), default=None,
                     help="Stop a run in simulated time at this step (120), time (RFC 3339) or duration "
                          "after the start (10h)."),
        click.option("--simulated-time", is_flag=True,
                     help="Run in simulated time: every step is a tick, and the run goes on past the last "
                          "operation until no pod is pending, running or terminating and every submitter "
                          "is done (implied by --until, --max-ticks, --metrics*, --kcs-config)."),
    ]
    for option in options:
        f = option(f)
    return f


def is_stream(dest: str) -> bool:
    """Whether a metrics destination is standard output or error rather than a file."""
    return dest in ("-", "/dev/stdout", "/dev/stderr") or dest.lower() in ("stdout", "stderr")


def _explicit(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def simtime_from_cli(ctx: click.Context, *, simulated_time: bool, until: Until | None, max_ticks: int | None,
                     metrics: str | None, metrics_format: str, metrics_tick: timedelta | None,
                     step_duration: timedelta, start_time: datetime, kcs: KcsConfig | None) -> SimTimeOptions | None:
    """The simulated-time options the command line gives, None when it does not ask for simulated time
    (a scenario's spec.simulatedTime may still)."""
    wanted = simulated_time or until is not None or max_ticks is not None or metrics is not None \
        or metrics_tick is not None or kcs is not None
    if not wanted:
        return None
    sinks = (MetricsSink(metrics, metrics_format),) if metrics else ()
    cli = SimTimeOptions(
        tick=step_duration if _explicit(ctx, "step_duration") else None,
        start=start_time if _explicit(ctx, "start_time") else None,
        metrics_tick=metrics_tick, until=until, max_ticks=max_ticks, metrics=sinks,
        zone=start_time.tzinfo if _explicit(ctx, "start_time") else None,
    )
    if kcs is None:
        return cli
    merged = cli.merged(kcs.options())
    return SimTimeOptions(tick=merged.tick, start=merged.start, metrics_tick=merged.metrics_tick,
                          until=merged.until, max_ticks=merged.max_ticks,
                          metrics=cli.metrics + kcs.loggers, zone=merged.zone)
