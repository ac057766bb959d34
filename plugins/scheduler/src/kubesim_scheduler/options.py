"""`kubesim run` options the scheduler adds: --scheduler-config, --feature-gates, --detail
and --annotations."""

from __future__ import annotations

from typing import Any

import click
from kubesim.errors import InvalidInput, Problem
from kubesim.feature_gates import FeatureGateError, format_feature_gates, parse_feature_gates

from .plugins.registry import in_tree_registry
from .profiles import load_settings
from .results import DETAIL_LEVELS

__all__ = ["run_options"]


def _check_config(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Load the configuration now so that a broken one is invalid input (InvalidInput: each
    problem as `error: FILE: PATH: ...`, exit 2) before anything runs, not a failed run."""
    if value is None:
        return None
    from kubesim.plugins import load_plugins

    registry = load_plugins().scheduler_plugins() or in_tree_registry()
    load_settings(value, registry)
    return value


def _check_feature_gates(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Parse `A=true,B=false` now: an unknown gate, a bad value or a locked gate set the other
    way is invalid input (`error: --feature-gates: ...`, exit 2). The value becomes the
    canonical text (gates sorted), None when it sets nothing."""
    if value is None:
        return None
    try:
        gates = parse_feature_gates(str(value))
    except FeatureGateError as exc:
        raise InvalidInput([Problem("--feature-gates", str(exc))]) from None
    return format_feature_gates(gates) or None


def run_options() -> list[click.Option]:
    """The options, built fresh for each CLI (click options are not shareable)."""
    return [
        click.Option(
            ["--scheduler-config"], type=click.Path(dir_okay=False), callback=_check_config,
            help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the scheduler.",
        ),
        click.Option(
            ["--feature-gates"], metavar="NAME=BOOL,...", callback=_check_feature_gates,
            help="kube-scheduler feature gates, as its --feature-gates flag takes them (v1.34 defaults; "
                 "e.g. SchedulerAsyncPreemption=false). See docs/feature-gates.md.",
        ),
        click.Option(
            ["--detail"], type=click.Choice(DETAIL_LEVELS), default="auto", show_default=True,
            help="Per-attempt scheduling results: full (every node and plugin), summary (counts, "
                 "aggregated filter reasons, best nodes), none; auto = full up to 100 nodes.",
        ),
        click.Option(
            ["--annotations"], is_flag=True, default=False,
            help="Write each pod's scheduling results into its annotations under "
                 "kube-scheduler-simulator.sigs.k8s.io/ keys, as kube-scheduler-simulator does.",
        ),
    ]
