"""kubesim hook implementations: run options, the trace's submitters and the migrations table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click
from kubesim import hookimpl

from kubesim_pod_migration.options import run_options
from kubesim_pod_migration.results import MigrationsAggregator, NodeMigrationsAggregator
from kubesim_pod_migration.simulation_controller import MigrationSimulationController
from kubesim_pod_migration.trace_run import build_submitters

if TYPE_CHECKING:
    from kubesim.controllers import ControllerFactory, Runtime
    from kubesim.simtime import Submitter

__all__ = ["kubesim_controllers", "kubesim_result_aggregators", "kubesim_run_options", "kubesim_submitters"]


@hookimpl
def kubesim_run_options() -> Sequence[click.Option]:
    """--job-trace, --migrate and the migration controller's settings for `kubesim run`."""
    return run_options()


@hookimpl
def kubesim_submitters(runtime: Runtime) -> Sequence[Submitter]:
    """The job trace's submitters (none without --job-trace)."""
    return build_submitters(runtime)


@hookimpl
def kubesim_result_aggregators() -> Mapping[str, Any]:
    """The `migrations` table (one row per podMigrated event) and `migrations_by_node`."""
    return {"migrations": MigrationsAggregator(), "migrations_by_node": NodeMigrationsAggregator()}


@hookimpl
def kubesim_controllers() -> Sequence[ControllerFactory]:
    """`pod-migration`: the migration controller as a SimulationController (list it after the scheduler)."""
    return [MigrationSimulationController]

