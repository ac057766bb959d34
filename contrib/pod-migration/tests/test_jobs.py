"""Port of the fork's pkg/jobparser/pod_test.go: the pod factory, simSpec and migrated records."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from kubesim_pod_migration.jobs import (
    Job,
    Record,
    filter_records_before,
    job_pod,
    job_size,
    migrated_pod,
    request_for_size,
    sim_spec,
    update_job_for_migration,
)

NOW = datetime(2022, 5, 11, 8, 0, tzinfo=timezone.utc)
MIN = timedelta(minutes=1)


def _requests(pod: dict) -> dict:  # type: ignore[type-arg]
    return pod["spec"]["containers"][0]["resources"]["requests"]  # type: ignore[no-any-return]


def test_sim_spec_string_literal() -> None:
    records = [Record(NOW, 10**9), Record(NOW + 2 * MIN, 100)]
    assert sim_spec(records) == ("\n- seconds: 0\n  resourceUsage:\n    cpu: 5\n    memory: 1000000000\n"
                                 "\n- seconds: 120\n  resourceUsage:\n    cpu: 5\n    memory: 100\n")
    pod = job_pod(Job.of("w1", records))
    assert pod["metadata"] == {"name": "w1", "namespace": "default", "annotations": {"simSpec": sim_spec(records)}}
    assert pod["spec"]["containers"][0]["name"] == "worker"


def test_requests_from_size_token_and_factor() -> None:
    records = [Record(NOW, 10**9), Record(NOW + 2 * MIN, 100)]
    for size, memory in (("s", "6Gi"), ("m", "16Gi"), ("l", "26Gi")):
        assert _requests(job_pod(Job.of(f"o10n-worker-{size}-zx8wp-n5", records), 0.2))["memory"] == memory
    assert _requests(job_pod(Job.of("o10n-worker-m-zx8wp-n5", records))) == {"cpu": "5", "memory": "0"}
    assert request_for_size("s", 1) == {"cpu": "5", "memory": "30Gi"}
    assert request_for_size("m", 1) == {"cpu": "5", "memory": "80Gi"}
    assert request_for_size("l", 1) == {"cpu": "5", "memory": "130Gi"}
    assert request_for_size("xl", 1) == {"cpu": "5", "memory": "420Gi"}
    assert request_for_size("m", 1)["memory"] == _requests(job_pod(Job.of("o10n-worker-m-x", records), 1))["memory"]
    assert request_for_size("s", 0.25)["memory"] == "8Gi"  # 7.5 rounds half to even, as Go's %.0f
    assert request_for_size("q", 1) == {}


def test_job_size_from_name() -> None:
    assert job_size("o10n-worker-m-zx8wp-n5") == "m"
    assert job_size("pod") == "s"
    assert job_size("a-b") == "s"


def test_migrated_pod_requests_its_usage_on_the_target() -> None:
    job = Job.of("o10n-worker-s-zx8wp-n5", [Record(NOW, 200), Record(NOW + 2 * MIN, 10**5)])
    job.migrating_to = "zone3"
    pod = migrated_pod(job)
    assert _requests(pod) == {"cpu": "5", "memory": "200"}
    assert pod["spec"]["nodeName"] == "zone3"


def test_filter_records_before() -> None:
    records = [Record(NOW, 10**9), Record(NOW + 2 * MIN, 200), Record(NOW + 4 * MIN, 3000), Record(NOW + 6 * MIN, 40000)]
    assert filter_records_before(records, NOW + 4 * MIN) == records[2:]
    assert filter_records_before(records, NOW + 3 * MIN) == [Record(NOW + 3 * MIN, 200)] + records[2:]
    one = [Record(NOW, 10**9)]
    assert filter_records_before(one, NOW) == one
    assert filter_records_before(one, NOW + 4 * MIN) == [Record(NOW + 4 * MIN, 10**9)]


def test_update_job_for_migration_shifts_time() -> None:
    records = [Record(NOW, 10**9), Record(NOW + 2 * MIN, 200), Record(NOW + 4 * MIN, 3000), Record(NOW + 6 * MIN, 40000)]
    job = Job(name="pod", records=records, start_at=NOW, end_at=NOW + 12 * MIN)
    start, finish = NOW + 3 * MIN, NOW + 13 * MIN
    update_job_for_migration(job, start, finish)
    assert len(job.records) == 3
    assert job.records[0].time == finish
    assert job.records[1].time == finish + MIN
    assert job.start_at == finish
    # the migrated pod continues with the usage the source had: 3 kB until the next sample, then 40 kB
    assert [r.usage for r in job.records] == [200, 3000, 40000]
    assert sim_spec(job.records).split("- seconds: ")[1:] == [
        "0\n  resourceUsage:\n    cpu: 5\n    memory: 200\n\n",
        "60\n  resourceUsage:\n    cpu: 5\n    memory: 3000\n\n",
        "120\n  resourceUsage:\n    cpu: 5\n    memory: 40000\n"]


def test_job_of_a_running_pod_replays_its_sim_spec() -> None:
    from kubesim.simtime.simspec import parse_sim_spec

    from kubesim_pod_migration.jobs import job_of_pod

    spec = parse_sim_spec("- seconds: 60\n  resourceUsage: {cpu: 1, memory: 1Gi}\n"
                          "- seconds: 30\n  resourceUsage: {cpu: 2, memory: 2Gi}\n")
    pod = {"metadata": {"name": "p", "labels": {"a": "b"}, "annotations": {"kubesim.io/usage": "{}", "x": "y"}},
           "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}, "status": {"startTime": "2022-05-11T08:00:00Z"}}
    job = job_of_pod(pod, spec)
    assert job is not None
    assert [(int((r.time - NOW).total_seconds()), r.usage, r.others) for r in job.records] == [
        (0, 2**30, {"cpu": "1"}), (60, 2**30, {"cpu": "1"}), (90, 2 * 2**30, {"cpu": "2"})]
    update_job_for_migration(job, NOW + MIN / 2, NOW + MIN)  # frozen after 30 s, back 30 s later
    job.name, job.migrating_to = "mp", "n2"
    moved = migrated_pod(job)
    assert moved["metadata"]["annotations"] == {"x": "y", "simSpec": sim_spec(job.records)}
    assert moved["metadata"]["labels"] == {"a": "b"}
    assert moved["spec"] == {"nodeName": "n2", "containers": [{"name": "c"}]}
    assert parse_sim_spec(sim_spec(job.records)).duration.total_seconds() == 60  # 90 s less the 30 s it ran
    assert job_of_pod({"metadata": {"name": "q"}, "status": {}}, spec) is None  # not started
