"""Builds the submitters of one scenario run from its options (`runtime.options`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesim_pod_migration.checker import make_checker
from kubesim_pod_migration.client import FilteredClient, MemoryClient, MetricsClient
from kubesim_pod_migration.controller import MigrationController
from kubesim_pod_migration.options import MigrationSettings
from kubesim_pod_migration.policies import make_migration_policy
from kubesim_pod_migration.requests import Cluster, make_request_policy
from kubesim_pod_migration.simulation_controller import register_trace_migration
from kubesim_pod_migration.submitters import (
    JobDeleter,
    JobSubmitter,
    MigrationSubmitter,
    NodeUnscheduler,
    TraceBook,
)
from kubesim_pod_migration.traces import read_trace, shift_jobs

if TYPE_CHECKING:
    from kubesim.controllers import Runtime
    from kubesim.simtime import Submitter

__all__ = ["ACTOR", "build_migration", "build_submitters"]

ACTOR = "submitter:node-unscheduler"
"""The actor of the node unscheduler's writes."""


def build_submitters(runtime: Runtime) -> list[Submitter]:
    """Job submitter, migration submitter, node unscheduler and job deleter, as the options ask."""
    settings = MigrationSettings.of(runtime.options)
    if settings.job_trace is None:
        return []
    start = runtime.clock.now()
    jobs = read_trace(settings.job_trace, start)
    if settings.trace_start == "first" and not settings.job_trace.lower().endswith(".csv"):
        shift_jobs(jobs, start)
    end = start + settings.trace_end if settings.trace_end is not None else None
    book = TraceBook(jobs, end)
    out: list[Submitter] = [JobSubmitter(book, settings.request_factor)]
    if settings.migrate:
        migration = build_migration(runtime, book)
        register_trace_migration(runtime, migration)
        out.append(migration)
    if settings.unscheduler:
        out.append(NodeUnscheduler(book, runtime.client(ACTOR), 1 - settings.unscheduler_threshold / 100))
    if end is not None:
        out.append(JobDeleter(book, end))
    return out


def build_migration(runtime: Runtime, book: TraceBook, *, actor: str = "") -> MigrationSubmitter:
    """The fork's controller, checker and client for `book`, configured by the run's options."""
    settings = MigrationSettings.of(runtime.options)
    metrics = MetricsClient(settings.memo_step)
    client: MemoryClient = metrics if settings.short_jobs else FilteredClient(metrics)
    cluster = Cluster(settings.node_gb)
    controller = MigrationController(
        make_request_policy(settings.request_policy, settings.threshold, cluster, client),
        make_migration_policy(settings.migration_policy, cluster, client, settings.min_size),
        settings.min_request,
    )
    checker = make_checker(settings.checker, settings.slope, settings.backoff)
    return MigrationSubmitter(book, controller, checker, metrics, runtime.recorder, cluster=cluster, actor=actor)

