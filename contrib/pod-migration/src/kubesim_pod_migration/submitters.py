"""The submitters of a job trace: jobs, migrations, the node unscheduler and the job deleter.

Ports of the fork's submitters (elchead/k8s-cluster-simulator, branch jobruntime_v1):
`pkg/jobparser/jobsubmitter.go` (submit each job at its start), `pkg/migration/submitter.go`
(ask the controller when the checker is ready; freeze each chosen pod, recreate it as
"m" + name on the target after the downtime, delete the source), `pkg/migration/unscheduler.go`
and `pkg/jobparser/jobdeleter.go`. They share one `TraceBook` of jobs, as the Go submitters
share one slice. Without an end time they terminate once every job was submitted and no job
pod is left pending or running.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

import attrs
import structlog
from kubesim.api import PodMigration
from kubesim.clock import format_time, parse_time
from kubesim.simtime import (
    FROZEN_AT_ANNOTATION,
    DeleteEvent,
    FreezeUsageEvent,
    SubmitEvent,
    SubmitterEvent,
    TerminateSubmitterEvent,
    Tick,
)
from kubesim.simtime.simspec import SimSpecError, sim_spec_of

from kubesim_pod_migration.checker import Checker
from kubesim_pod_migration.client import ClientError, MetricsClient, gigabytes
from kubesim_pod_migration.controller import MigrationController, NodeFullError
from kubesim_pod_migration.jobs import Job, job_of_pod, job_pod, migrated_pod, seconds_left, update_job_for_migration
from kubesim_pod_migration.policies import MigrationPolicyError
from kubesim_pod_migration.requests import Cluster, MigrationCmd
from kubesim_pod_migration.snapshot import memory_bytes, node_memory, pod_memory

__all__ = [
    "JobDeleter",
    "JobSubmitter",
    "MigrationSubmitter",
    "NodeUnscheduler",
    "TraceBook",
]

log = structlog.get_logger()
_TERMINAL = frozenset({"Succeeded", "Failed"})


class MigrationRecorder(Protocol):
    """Where podMigrated events go (`runtime.recorder`)."""

    def record_migration(self, migration: PodMigration, *, actor: str) -> None: ...


class NodePatcher(Protocol):
    """Writes node objects (`runtime.client(actor)`)."""

    def patch(self, api_version: str, kind: str, name: str, patch: dict[str, Any]) -> dict[str, Any]: ...


def _executed(pod: Mapping[str, Any], now: datetime) -> timedelta | None:
    """How long a running pod has run (from status.startTime); None when it has not started."""
    start = (pod.get("status") or {}).get("startTime")
    if not isinstance(start, str) or not start:
        return None
    try:
        return max(timedelta(0), now - parse_time(start))
    except ValueError:
        return None


@attrs.define
class TraceBook:
    """The jobs of one trace, by their current pod name, and what happened to them."""

    jobs: list[Job]
    end_time: datetime | None = None
    adopt: bool = False
    """Also take every running simSpec pod as a job (the SimulationController without a trace)."""
    submitted: int = 0
    by_name: dict[str, Job] = attrs.field(init=False)
    seen: set[str] = attrs.field(init=False, factory=set)
    retired: set[str] = attrs.field(init=False, factory=set)

    def __attrs_post_init__(self) -> None:
        self.by_name = {job.name: job for job in self.jobs}

    def rename(self, job: Job, name: str) -> None:
        """Give a migrated job its new pod name (the old one is never taken again)."""
        self.by_name.pop(job.name, None)
        self.retired.add(job.name)
        job.name = name
        self.by_name[name] = job

    def adopt_pods(self, pods: Sequence[Mapping[str, Any]]) -> None:
        """Take running pods with a simSpec that are no job yet (namespace default, as the fork's jobs)."""
        for pod in pods:
            meta = pod.get("metadata") or {}
            name = meta.get("name")
            annotations = meta.get("annotations") or {}
            if (name in self.by_name or name in self.retired or (meta.get("namespace") or "default") != "default"
                    or "simSpec" not in annotations or FROZEN_AT_ANNOTATION in annotations
                    or meta.get("deletionTimestamp") or (pod.get("status") or {}).get("phase") != "Running"):
                continue
            try:
                spec = sim_spec_of(pod)
            except SimSpecError:
                continue
            job = job_of_pod(dict(pod), spec) if spec is not None else None
            if job is not None:
                self.by_name[job.name] = job

    def all_submitted(self) -> bool:
        return self.submitted >= len(self.jobs)

    def ended(self, tick: Tick) -> bool:
        """The end time passed, or (without one) every job ran and none is left; never when adopting."""
        if self.adopt:
            return False
        if self.end_time is not None:
            return self.end_time <= tick.clock
        alive = False
        for pod in tick.pods:
            name = (pod.get("metadata") or {}).get("name")
            if name in self.by_name:
                self.seen.add(name)
                alive = alive or (pod.get("status") or {}).get("phase") not in _TERMINAL
        # a pod submitted in this tick is not in tick.pods yet: every job's pod must have been seen
        return self.all_submitted() and not alive and all(name in self.seen for name in self.by_name)

    def runtimes(self) -> dict[str, int]:
        """Total simSpec seconds of each job's current pod."""
        return {name: int((job.records[-1].time - job.records[0].time).total_seconds())
                for name, job in self.by_name.items()}


@attrs.define
class JobSubmitter:
    """Submits each job's pod when its start time comes; terminates when all are submitted."""

    book: TraceBook
    request_factor: float = 0.0
    name: str = "job-trace"

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        jobs = self.book.jobs
        if self.book.all_submitted():
            return [TerminateSubmitterEvent()]
        events: list[SubmitterEvent] = []
        while self.book.submitted < len(jobs) and jobs[self.book.submitted].start_at <= tick.clock:
            events.append(SubmitEvent(job_pod(jobs[self.book.submitted], self.request_factor)))
            self.book.submitted += 1
        if self.book.all_submitted():
            events.append(TerminateSubmitterEvent())
        return events


@attrs.define
class _Move:
    job: Job
    source: str
    source_node: str
    size_gb: float
    started: datetime
    finish: datetime


@attrs.define
class MigrationSubmitter:
    """Asks the migration controller for migrations and carries them out over simulated time."""

    book: TraceBook
    controller: MigrationController
    checker: Checker
    client: MetricsClient
    recorder: MigrationRecorder | None = None
    cluster: Cluster | None = None
    """The policies' cluster; a node_gb of 0 is set from the first node's allocatable memory."""
    name: str = "pod-migration"
    queue: list[_Move] = attrs.field(factory=list)
    migrations: int = 0
    delegated: bool = False
    """A SimulationController runs this migration (`plan`); the submitter itself stops."""
    actor: str = ""
    """Who writes the migrations (for podMigrated events); default `submitter:<name>`."""

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        if self.delegated:
            return [TerminateSubmitterEvent()]
        return self.plan(tick)

    def plan(self, tick: Tick) -> list[SubmitterEvent]:
        """This tick's freezes, new pods and deletes (and TerminateSubmitterEvent at the end)."""
        now = tick.clock
        events: list[SubmitterEvent] = []
        if self.book.adopt:
            self.book.adopt_pods(tick.pods)
        if tick.metrics is not None:
            nodes = node_memory(tick.metrics)
            self.client.update_node_metrics(nodes)
            if self.cluster is not None and not self.cluster.node_gb and nodes:
                self.cluster.node_gb = float(gigabytes(next(iter(nodes.values())).allocatable))
            self.client.update_pod_metrics(pod_memory(tick.metrics, self.book.runtimes()))
            if self.checker.is_ready(now):
                events.extend(self._start(tick, self._commands()))
        events.extend(self._finish(now))
        if self.book.ended(tick) and (self.book.end_time is not None or not self.queue):
            events.append(TerminateSubmitterEvent())
        return events

    def _commands(self) -> list[MigrationCmd]:
        try:
            return self.controller.migrations()
        except NodeFullError as exc:
            log.debug("provision new node", reason=str(exc))
            return exc.migrations
        except (MigrationPolicyError, ClientError) as exc:  # the fork only logs a failed Submit
            log.debug("migrator failed", reason=str(exc))
            return []

    def _start(self, tick: Tick, commands: Sequence[MigrationCmd]) -> list[SubmitterEvent]:
        events: list[SubmitterEvent] = []
        moving = {move.job.name for move in self.queue}
        pods = {(p.get("metadata") or {}).get("name"): p for p in tick.pods} if commands else {}
        for cmd in commands:
            name = cmd.pod.split("/", 1)[-1]
            job = self.book.by_name.get(name)
            if job is None or name in moving:
                log.debug("not migrating", pod=cmd.pod, reason="not a job of the trace, or already migrating")
                continue
            pod = pods.get(name) or {}
            executed = _executed(pod, tick.clock)
            if executed is not None and seconds_left(job, executed) <= 0:
                log.debug("not migrating", pod=cmd.pod, reason="nothing left to run")
                continue
            if not cmd.new_node:  # the fork migrates anyway: the new pod goes through the scheduler
                log.info("no target node for the migration", pod=cmd.pod)
            finish = self.checker.start(tick.clock, cmd.usage, name)
            update_job_for_migration(job, tick.clock, finish, executed)
            job.migrating_to = cmd.new_node
            self.queue.append(_Move(job, name, str((pod.get("spec") or {}).get("nodeName") or ""), cmd.usage,
                                    tick.clock, finish))
            moving.add(name)
            events.append(FreezeUsageEvent(name))
        return events

    def _finish(self, now: datetime) -> list[SubmitterEvent]:
        events: list[SubmitterEvent] = []
        while self.queue and self.queue[0].job.start_at <= now:
            move = self.queue.pop(0)
            self.book.rename(move.job, "m" + move.source)
            events.append(SubmitEvent(migrated_pod(move.job)))
            events.append(DeleteEvent(move.source))
            self.migrations += 1
            if self.recorder is not None:
                self.recorder.record_migration(PodMigration(
                    pod=move.source, namespace="default", source_node=move.source_node, target_pod=move.job.name,
                    target_node=move.job.migrating_to, size_gb=move.size_gb,
                    downtime_seconds=int((move.finish - move.started).total_seconds()),
                    started_at=format_time(move.started), finished_at=format_time(move.finish),
                ), actor=self.actor or f"submitter:{self.name}")
        return events


@attrs.define
class NodeUnscheduler:
    """Cordons a node above `threshold` of its memory used, uncordons it at `threshold - distance`."""

    book: TraceBook
    patcher: NodePatcher
    threshold: float = 0.8
    distance: float = 0.15
    name: str = "node-unscheduler"

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        if tick.metrics is not None:
            cordoned = {(n.get("metadata") or {}).get("name"): bool((n.get("spec") or {}).get("unschedulable"))
                        for n in tick.nodes}
            for name, m in sorted((tick.metrics.get("Nodes") or {}).items()):
                if name not in cordoned or not isinstance(m, Mapping):
                    continue
                alloc = gigabytes(memory_bytes(m.get("Allocatable")))
                used = gigabytes(memory_bytes(m.get("TotalResourceUsage"))) / alloc if alloc else 0.0
                if used > self.threshold and not cordoned[name]:
                    self.patcher.patch("v1", "Node", name, {"spec": {"unschedulable": True}})
                elif used <= self.threshold - self.distance and cordoned[name]:
                    self.patcher.patch("v1", "Node", name, {"spec": {"unschedulable": None}})
        return [TerminateSubmitterEvent()] if self.book.ended(tick) else []


@attrs.define
class JobDeleter:
    """At the trace's end time, deletes every job pod still there, then terminates."""

    book: TraceBook
    end_time: datetime
    name: str = "job-deleter"

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        if self.end_time > tick.clock:
            return []
        events: list[SubmitterEvent] = []
        for pod in tick.pods:
            meta = pod.get("metadata") or {}
            if (meta.get("name") in self.book.by_name and not meta.get("deletionTimestamp")
                    and (pod.get("status") or {}).get("phase") not in _TERMINAL):
                events.append(DeleteEvent(str(meta["name"]), str(meta.get("namespace") or "default")))
        events.append(TerminateSubmitterEvent())
        return events
