"""Port of the fork's pkg/jobparser/json_test.go, and kubesim's CSV job trace and its errors."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from kubesim.errors import InvalidInput

from kubesim_pod_migration.jobs import Record
from kubesim_pod_migration.traces import check_trace, read_csv_trace, read_json_trace, read_trace, shift_jobs

START = datetime(2022, 5, 11, 6, 0, tzinfo=timezone.utc)


def _epoch(seconds: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)


def test_parse_json(tmp_path: Path) -> None:
    path = tmp_path / "pods.json"
    path.write_text('[{"Name": "o10n-worker-l-jbmbp-qsjc6", "Memory": [10553820501, 32589617152, 46905995946, '
                    '56151258453, 56794065578, 58443539114],"Time":[1652248860000,1652248865000,1652248865000,'
                    '1652248865000,1652248865000,1652248869000]}]')
    jobs = read_json_trace(path)
    assert jobs[0].name == "o10n-worker-l-jbmbp-qsjc6"
    assert jobs[0].records[1] == Record(_epoch(1652248865), 32589617152)
    assert jobs[0].start_at == _epoch(1652248860)
    assert jobs[0].end_at == _epoch(1652248869)


def test_json_drops_short_jobs_sorts_by_start_and_reads_null_as_zero(tmp_path: Path) -> None:
    path = tmp_path / "pods.json"
    path.write_text(json.dumps([
        {"Name": "late", "Memory": [1, None, 3], "Time": [5000, 6000, 7000]},
        {"Name": "short", "Memory": [1, 2], "Time": [0, 1000]},
        {"Name": "early", "Memory": [1, 2, 3], "Time": [1999, 2000, 3000]},
    ]))
    jobs = read_json_trace(path)
    assert [j.name for j in jobs] == ["early", "late"]
    assert jobs[0].start_at == _epoch(1)  # ms truncated to seconds
    assert [r.usage for r in jobs[1].records] == [1, 0, 3]
    shift_jobs(jobs, START)
    assert jobs[0].start_at == START and jobs[1].start_at == START + timedelta(seconds=4)


@pytest.mark.parametrize(("text", "path", "expected"), [
    ("{", "", "expected a JSON memory trace"),
    ('{"Name": "a"}', "", "expected a list of jobs"),
    ('[{"Name": "", "Memory": [], "Time": []}]', "[0].Name", "non-empty string"),
    ('[{"Name": "a", "Memory": 3, "Time": []}]', "[0].Memory", "list of integers"),
    ('[{"Name": "a", "Memory": [1, 2, 3], "Time": [1, 2]}]', "[0].Time", "a time for each of the 3"),
    ('[{"Name": "a", "Memory": [1, 2.5, 3], "Time": [1, 2, 3]}]', "[0].Memory[1]", "bytes (an integer)"),
    ('[{"Name": "a", "Memory": [1, -2, 3], "Time": [1, 2, 3]}]', "[0].Memory[1]", "bytes >= 0"),
    ('[{"Name": "a", "Memory": [1, 2, 3], "Time": [3000, 2000, 4000]}]', "[0].Time[1]", "increasing order"),
    ('[{"Name": "a", "Memory": [1, 2, 3], "Time": [1, 2, 3]}, {"Name": "a", "Memory": [1, 2, 3], "Time": [1, 2, 3]}]',
     "[1].Name", "unique job name"),
    ('[{"Name": "Worker_1", "Memory": [1, 2, 3], "Time": [1, 2, 3]}]', "[0].Name", "expected a pod name"),
])
def test_json_errors_name_the_field(tmp_path: Path, text: str, path: str, expected: str) -> None:
    file = tmp_path / "pods.json"
    file.write_text(text)
    with pytest.raises(InvalidInput) as err:
        read_json_trace(file)
    problem = err.value.problems[0]
    assert (problem.file, problem.path) == (str(file), path)
    assert expected in problem.message


def test_csv_trace(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text("name,submit,duration,cpu,memory,usage\n"
                    "b,600,3600,4,16Gi,0:2Gi;600:8Gi;1800:12Gi\n"
                    "a,0,100,,1Gi,\n"
                    "c,2022-05-11T06:30:00Z,60,500m,,30:1G\n")
    jobs = read_trace(path, START)
    assert [j.name for j in jobs] == ["a", "b", "c"]
    a, b, c = jobs
    assert a.requests == {"memory": "1Gi"}
    assert a.records == [Record(START, 2**30), Record(START + timedelta(seconds=100), 2**30)]
    assert b.start_at == START + timedelta(seconds=600)
    assert [(int((r.time - b.start_at).total_seconds()), r.usage) for r in b.records] == [
        (0, 2 * 2**30), (600, 8 * 2**30), (1800, 12 * 2**30), (3600, 12 * 2**30)]
    assert c.requests == {"cpu": "500m"}
    assert [r.usage for r in c.records] == [10**9, 10**9, 10**9]
    assert c.end_at - c.start_at == timedelta(seconds=60)


@pytest.mark.parametrize(("row", "path", "expected"), [
    ("a,0,100,1,1Gi", "line 2", "expected 6 columns"),
    ("a,-5,100,1,1Gi,", "line 2.submit", "non-negative number of seconds"),
    ("a,0,0,1,1Gi,", "line 2.duration", "positive number of seconds"),
    ("a,0,10,x,1Gi,", "line 2.cpu", "cpu quantity"),
    ("a,0,10,1,lots,", "line 2.memory", "memory quantity"),
    ("a,0,10,1,1Gi,5", "line 2.usage[0]", "offset:memory"),
    ("a,0,10,1,1Gi,5:1Gi;2:1Gi", "line 2.usage[1]", "increasing order"),
    ("a,0,10,1,1Gi,20:1Gi", "line 2.usage[0]", "within the duration"),
    (",0,10,1,1Gi,", "line 2.name", "unique non-empty job name"),
    ("Job 1,0,10,1,1Gi,", "line 2.name", "expected a pod name"),
])
def test_csv_errors_name_the_field(tmp_path: Path, row: str, path: str, expected: str) -> None:
    file = tmp_path / "jobs.csv"
    file.write_text("name,submit,duration,cpu,memory,usage\n" + row + "\n")
    with pytest.raises(InvalidInput) as err:
        read_csv_trace(file, START)
    problem = err.value.problems[0]
    assert (problem.file, problem.path) == (str(file), path)
    assert expected in problem.message


def test_csv_needs_its_header(tmp_path: Path) -> None:
    file = tmp_path / "jobs.csv"
    file.write_text("job,start\n")
    with pytest.raises(InvalidInput, match="expected the header name,submit,duration,cpu,memory,usage"):
        read_csv_trace(file, START)


def test_plain_and_checked_samples_read_alike(tmp_path: Path) -> None:
    # the first job's samples are plain (read at once); the second's null sends it through the
    # per-sample reader, which gives the same records for the same numbers
    memory, times = [7, 0, 9, 2**40], [-1999, 1500, 1500, 1652248869999]
    path = tmp_path / "pods.json"
    path.write_text(json.dumps([{"Name": "plain", "Memory": memory, "Time": times},
                                {"Name": "checked", "Memory": [7, None, 9, 2**40], "Time": times}]))
    plain, checked = read_json_trace(path)
    assert plain.records == checked.records
    assert [r.time for r in plain.records] == [_epoch(-1), _epoch(1), _epoch(1), _epoch(1652248869)]


def test_a_checked_trace_is_read_once_unless_it_changed(tmp_path: Path) -> None:
    path = tmp_path / "pods.json"
    path.write_text(json.dumps([{"Name": "a", "Memory": [1, 2, 3], "Time": [0, 1000, 2000]}]))
    check_trace(path, START)
    first = read_trace(path, START)
    again = read_trace(path, START)  # taken once: a second run reads the file again
    assert first == again and first is not again
    check_trace(path, START)
    path.write_text(json.dumps([{"Name": "bb", "Memory": [1, 2, 3], "Time": [0, 1000, 2000]}]))
    assert [job.name for job in read_trace(path, START)] == ["bb"]
