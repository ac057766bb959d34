"""Ports of the fork's pkg/migration/{submitter,unscheduler}_test.go and
pkg/jobparser/{jobsubmitter,jobdeleter}_test.go."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from kubesim.api import PodMigration
from kubesim.simtime import DeleteEvent, FreezeUsageEvent, SubmitEvent, SubmitterEvent, TerminateSubmitterEvent, Tick

from kubesim_pod_migration.checker import BlockingChecker, migration_seconds
from kubesim_pod_migration.client import MetricsClient
from kubesim_pod_migration.controller import NodeFullError
from kubesim_pod_migration.jobs import Job, Record
from kubesim_pod_migration.requests import MigrationCmd, NodeFreeGbRequest
from kubesim_pod_migration.submitters import JobDeleter, JobSubmitter, MigrationSubmitter, NodeUnscheduler, TraceBook

NOW = datetime(2022, 5, 11, 8, 0, tzinfo=timezone.utc)
END = NOW + timedelta(minutes=30)
MIGRATION_TIME = timedelta(minutes=5)
BACKOFF = timedelta(seconds=45)
EMPTY_METRICS: dict[str, Any] = {"Nodes": {}, "Pods": {}}


def tick(at: datetime, *, pods: Sequence[dict[str, Any]] = (), nodes: Sequence[dict[str, Any]] = (),
         metrics: dict[str, Any] | None = EMPTY_METRICS) -> Tick:
    return Tick(clock=at, step=0, nodes=nodes, pods=pods, metrics=metrics, rng=random.Random(0))


def jobs() -> list[Job]:
    return [Job("j1", [Record(NOW, 100)], NOW, NOW), Job("j2", [Record(NOW, 100)], NOW, NOW)]


@attrs.define
class ControllerStub:
    """Answers GetMigrations from a script (the last answer repeats), counting calls."""

    answers: list[list[MigrationCmd] | Exception]
    calls: int = 0

    def migrations(self) -> list[MigrationCmd]:
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


@attrs.define
class RecorderStub:
    recorded: list[PodMigration] = attrs.field(factory=list)

    def record_migration(self, migration: PodMigration, *, actor: str) -> None:
        self.recorded.append(migration)


def migration_submitter(answers: list[list[MigrationCmd] | Exception], book_jobs: list[Job] | None = None,
                        recorder: RecorderStub | None = None) -> tuple[MigrationSubmitter, ControllerStub]:
    stub = ControllerStub(answers)
    book = TraceBook(book_jobs if book_jobs is not None else jobs(), END)
    return MigrationSubmitter(book, stub, BlockingChecker(), MetricsClient(), recorder), stub  # type: ignore[arg-type]


def no_pod_event(events: Sequence[SubmitterEvent]) -> bool:
    return all(isinstance(e, FreezeUsageEvent) for e in events)


def migrated_after(sut: MigrationSubmitter, at: datetime, pod: str) -> Sequence[SubmitterEvent]:
    events = sut.submit(tick(at + MIGRATION_TIME))
    assert any(isinstance(e, SubmitEvent) and e.pod["metadata"]["name"] == pod for e in events)
    assert DeleteEvent(pod[1:], "default") in events
    return events


def test_submit_with_node_full_error_still_freezes_what_was_validated() -> None:
    full = NodeFullError(NodeFreeGbRequest("z2", 10), [], [MigrationCmd("default/j1", 20)])
    sut, _ = migration_submitter([full])
    events = sut.submit(tick(NOW))
    assert events and no_pod_event(events)
    assert FreezeUsageEvent("j1") in events


def test_set_new_node() -> None:
    sut, _ = migration_submitter([[MigrationCmd("default/j2", 30, "j3")], []])
    sut.submit(tick(NOW))
    events = migrated_after(sut, NOW, "mj2")
    pods = [e.pod for e in events if isinstance(e, SubmitEvent)]
    assert [p["spec"]["nodeName"] for p in pods] == ["j3"]


def test_migrate_multiple_jobs() -> None:
    sut, stub = migration_submitter([[MigrationCmd("default/j2", 30)], [MigrationCmd("default/j1", 30)], []])
    assert no_pod_event(sut.submit(tick(NOW)))  # no migrated pod before the migration time
    sut.submit(tick(NOW))
    sut.submit(tick(NOW + timedelta(seconds=1)))
    assert stub.calls == 1  # not asked again while the migration runs
    migrated_after(sut, NOW, "mj2")
    assert stub.calls == 2
    after = NOW + MIGRATION_TIME + BACKOFF
    sut.submit(tick(after))
    assert stub.calls == 2
    migrated_after(sut, after, "mj1")


def test_migrate_migrated_job() -> None:
    book_jobs = jobs()
    book_jobs[1].name = "mj2"
    sut, _ = migration_submitter([[MigrationCmd("default/mj2", 20)], []], book_jobs)
    sut.submit(tick(NOW))
    migrated_after(sut, NOW, "mmj2")


def test_backoff_interval_after_migration() -> None:
    sut, stub = migration_submitter([[MigrationCmd("default/j2", 10)], []])
    sut.submit(tick(NOW))
    assert stub.calls == 1
    migrated_after(sut, NOW, "mj2")
    assert stub.calls == 2
    sut.submit(tick(NOW + timedelta(seconds=migration_seconds(10) + 20)))  # before the backoff
    assert stub.calls == 2
    sut.submit(tick(NOW + MIGRATION_TIME + BACKOFF))
    assert stub.calls == 3


def test_terminate_submitter_at_end_time() -> None:
    sut, _ = migration_submitter([[MigrationCmd("default/j2", 1e9)]])
    assert TerminateSubmitterEvent() in sut.submit(tick(END))


def test_after_migration_the_shared_job_has_the_new_name_and_a_podmigrated_event() -> None:
    book_jobs, recorder = jobs(), RecorderStub()
    sut, _ = migration_submitter([[MigrationCmd("default/j2", 10, "z1")], []], book_jobs, recorder)
    assert no_pod_event(sut.submit(tick(NOW, pods=[{"metadata": {"name": "j2"}, "spec": {"nodeName": "z2"}}])))
    migrated_after(sut, NOW, "mj2")
    assert book_jobs[1].name == "mj2"
    assert recorder.recorded == [PodMigration(
        pod="j2", namespace="default", source_node="z2", target_pod="mj2", target_node="z1", size_gb=10,
        downtime_seconds=34, started_at="2022-05-11T08:00:00Z", finished_at="2022-05-11T08:00:34Z")]


def test_freeze_usage() -> None:
    sut, _ = migration_submitter([[MigrationCmd("default/j2", 1e9)]])
    assert FreezeUsageEvent("j2") in sut.submit(tick(NOW))


def test_no_controller_call_without_metrics() -> None:
    sut, stub = migration_submitter([[MigrationCmd("default/j2", 10)]])
    assert sut.submit(tick(NOW, metrics=None)) == []
    assert stub.calls == 0


# --- jobsubmitter_test.go / jobdeleter_test.go -----------------------------------------------

def one_job() -> list[Job]:
    return [Job.of("j1", [Record(NOW, 100), Record(NOW + timedelta(hours=1), 100)])]


@pytest.mark.parametrize("offset", [0, 5])
def test_submit_job_at_or_after_its_time(offset: int) -> None:
    events = JobSubmitter(TraceBook(one_job())).submit(tick(NOW + timedelta(seconds=offset)))
    assert len(events) == 2
    assert isinstance(events[0], SubmitEvent) and events[0].pod["metadata"]["name"] == "j1"
    assert events[1] == TerminateSubmitterEvent()


def test_do_not_submit_job_before_its_time() -> None:
    assert JobSubmitter(TraceBook(one_job())).submit(tick(NOW - timedelta(seconds=5))) == []


def test_submitted_jobs_leave_the_submitter() -> None:
    sut = JobSubmitter(TraceBook(jobs()))
    events = sut.submit(tick(NOW))
    assert [e.pod["metadata"]["name"] for e in events if isinstance(e, SubmitEvent)] == ["j1", "j2"]
    assert events[2] == TerminateSubmitterEvent()
    assert sut.submit(tick(NOW)) == [TerminateSubmitterEvent()]


def test_job_deleter_deletes_jobs_and_terminates_at_end_time() -> None:
    book = TraceBook(jobs())
    pods = [{"metadata": {"name": "j1", "namespace": "default"}, "status": {"phase": "Running"}},
            {"metadata": {"name": "j2", "namespace": "default"}, "status": {"phase": "Pending"}},
            {"metadata": {"name": "other", "namespace": "default"}, "status": {"phase": "Running"}}]
    sut = JobDeleter(book, NOW)
    assert sut.submit(tick(NOW - timedelta(seconds=1), pods=pods)) == []
    assert sut.submit(tick(NOW, pods=pods)) == [DeleteEvent("j1"), DeleteEvent("j2"), TerminateSubmitterEvent()]


# --- unscheduler_test.go ---------------------------------------------------------------------

@attrs.define
class PatcherStub:
    patches: list[tuple[str, dict[str, Any]]] = attrs.field(factory=list)

    def patch(self, api_version: str, kind: str, name: str, patch: dict[str, Any]) -> dict[str, Any]:
        self.patches.append((name, patch))
        return {}


def node_metrics(usage: dict[str, int]) -> dict[str, Any]:
    return {"Nodes": {name: {"Allocatable": {"memory": "100G"}, "TotalResourceUsage": {"memory": f"{gb}G"}}
                      for name, gb in usage.items()}, "Pods": {}}


def test_unschedule_when_node_full() -> None:
    patcher = PatcherStub()
    sut = NodeUnscheduler(TraceBook([], NOW + timedelta(minutes=5)), patcher, 0.8, 0.15)
    nodes = [{"metadata": {"name": "zone3"}, "spec": {}}, {"metadata": {"name": "zone2"}, "spec": {}}]
    assert sut.submit(tick(NOW, nodes=nodes, metrics=node_metrics({"zone3": 10, "zone2": 85}))) == []
    assert patcher.patches == [("zone2", {"spec": {"unschedulable": True}})]  # zone3 (10 %) stays schedulable
    cordoned = [nodes[0], {"metadata": {"name": "zone2"}, "spec": {"unschedulable": True}}]
    assert sut.submit(tick(NOW, nodes=cordoned, metrics=node_metrics({"zone3": 10, "zone2": 70}))) == []
    assert len(patcher.patches) == 1  # 70 % is not 15 points below the threshold
    events = sut.submit(tick(NOW + timedelta(minutes=5), nodes=cordoned,
                             metrics=node_metrics({"zone3": 10, "zone2": 64})))
    assert patcher.patches[-1] == ("zone2", {"spec": {"unschedulable": None}})
    assert events == [TerminateSubmitterEvent()]


def test_terminating_pods_are_no_candidates() -> None:
    from kubesim_pod_migration.snapshot import pod_memory

    record = {"Pods": {
        "default/a": {"Node": "z1", "ResourceUsage": {"memory": "30G"}, "ExecutedSeconds": 60, "Status": "Ok"},
        "default/b": {"Node": "z1", "ResourceUsage": {"memory": "20G"}, "ExecutedSeconds": 60, "Status": "Deleted"},
        "default/c": {"Node": "z1", "ResourceUsage": {}, "Status": "OverCapacity"},
        "default/d": {"Node": "", "ResourceUsage": {}, "Status": "Ok"},
    }}
    pods = pod_memory(record, {"a": 900})
    assert list(pods) == ["default/a"]
    assert (pods["default/a"].usage, pods["default/a"].runtime, pods["default/a"].executed) == (30 * 10**9, 900, 60)


def test_a_pod_that_waited_for_a_node_is_cut_where_it_is_not_at_the_trace_time() -> None:
    records = [Record(NOW + i * timedelta(minutes=1), (i + 1) * 10**9) for i in range(11)]  # 10 minutes
    job = Job.of("j", records)
    sut, _ = migration_submitter([[MigrationCmd("default/j", 1, "z2")], []], [job])
    started = {"metadata": {"name": "j"}, "spec": {"nodeName": "z1"},
               "status": {"startTime": "2022-05-11T08:05:00Z"}}  # bound 5 minutes late
    at = NOW + timedelta(minutes=7)  # it ran 2 minutes: 8 are left, not 3
    assert sut.submit(tick(at, pods=[started])) == [FreezeUsageEvent("j")]
    finish = at + timedelta(seconds=migration_seconds(1))
    events = sut.submit(tick(finish))
    [new] = [e.pod for e in events if isinstance(e, SubmitEvent)]
    assert job.records[0] == Record(finish, 3 * 10**9)  # the sample of minute 2 ...
    assert (job.records[-1].time - job.records[0].time) == timedelta(minutes=8)  # ... and the 8 minutes after it
    assert new["spec"]["nodeName"] == "z2"


def test_a_pod_with_nothing_left_to_run_is_not_migrated() -> None:
    job = Job.of("j", [Record(NOW, 10**9), Record(NOW + timedelta(minutes=1), 10**9)])
    sut, _ = migration_submitter([[MigrationCmd("default/j", 1, "z2")]], [job])
    done = {"metadata": {"name": "j"}, "status": {"startTime": "2022-05-11T08:00:00Z"}}
    assert sut.submit(tick(NOW + timedelta(minutes=1), pods=[done])) == []
