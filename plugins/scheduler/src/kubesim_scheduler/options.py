"""`kubesim run` options the scheduler adds: --scheduler-config, --detail and --annotations."""

from __future__ import annotations

from typing import Any

import click

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


def run_options() -> list[click.Option]:
    """The options, built fresh for each CLI (click options are not shareable)."""
    return [
        click.Option(
            ["--scheduler-config"], type=click.Path(dir_okay=False), callback=_check_config,
            help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the scheduler.",
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
