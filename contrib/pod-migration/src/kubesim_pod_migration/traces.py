"""Job traces: the fork's memory-trace JSON and a CSV job trace, read into `Job`s.

Memory-trace JSON (`S:pkg/jobparser/json.go`, written by the fork's `apython/json_creator.py`
from Dynatrace telemetry)::

    [{"Name": "o10n-worker-l-jbmbp-qsjc6", "Memory": [10553820501, ...], "Time": [1652248860000, ...]}]

Memory in bytes, Time in epoch milliseconds (truncated to seconds); `null` samples count as 0
(as Go decodes them); jobs with at most two samples are dropped; jobs are sorted by start.

CSV job trace (kubesim's, for public cluster traces), one job per row after a header::

    name,submit,duration,cpu,memory,usage
    job-1,0,3600,4,16Gi,0:2Gi;600:8Gi;1800:12Gi

`submit` is seconds after the trace start (or an RFC 3339 time), `duration` seconds, `cpu` and
`memory` the requests (empty: none), `usage` `offset:memory` samples in seconds from the job's
start (empty: the memory request throughout). Every problem is an InvalidInput naming the
file, the field path and what was expected.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from kubesim.clock import parse_time
from kubesim.duplicate_keys import load_json
from kubesim.errors import InvalidInput, Problem
from kubesim.input_limits import read_text
from kubesim.k8s.quantity import parse_quantity
from kubesim.k8s.validation import is_dns1123_subdomain

from kubesim_pod_migration.jobs import Job, Record

__all__ = [
    "CSV_COLUMNS", "MAX_JOBS", "MAX_SAMPLES", "check_trace", "read_csv_trace", "read_json_trace", "read_trace",
    "shift_jobs",
]

MAX_JOBS = 100_000
"""At most this many jobs in one trace."""
MAX_SAMPLES = 100_000
"""At most this many samples in one job."""
CSV_COLUMNS = ("name", "submit", "duration", "cpu", "memory", "usage")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MAX_SECONDS = 10**11  # about year 5000: beyond, datetime overflows


def _problem(file: str, path: str, message: str) -> InvalidInput:
    return InvalidInput([Problem(path, message, file)])


def _read(path: str | Path, file: str) -> str:
    """The file's text within kubesim's input limits; InvalidInput when it cannot be read."""
    try:
        return read_text(path)
    except OSError as exc:
        raise _problem(file, "", f"cannot read the trace: {exc.strerror or exc}") from None


def _check_name(name: str, file: str, path: str) -> None:
    """A job's pod name: a DNS-1123 subdomain with room for the "m" of each migration."""
    problems = is_dns1123_subdomain(name)
    if problems or len(name) > 200:
        why = problems[0] if problems else "must be no more than 200 characters (migrations prefix an m)"
        raise _problem(file, path, f"expected a pod name (lowercase letters, digits, '-' and '.'): {why}")


def _int(value: Any, file: str, path: str, what: str) -> int:
    if value is None:
        return 0  # Go decodes null into an int64 as 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise _problem(file, path, f"expected {what} (an integer), got {value!r}")
    return value


def read_json_trace(path: str | Path) -> list[Job]:
    """The jobs of a memory-trace JSON file (jobs with <= 2 samples dropped), sorted by start."""
    file = str(path)
    try:
        data = load_json(_read(path, file))
    except ValueError as exc:
        raise _problem(file, "", f"expected a JSON memory trace: {exc}") from None
    if not isinstance(data, list):
        raise _problem(file, "", f"expected a list of jobs, got {type(data).__name__}")
    if len(data) > MAX_JOBS:
        raise _problem(file, "", f"expected at most {MAX_JOBS} jobs, got {len(data)}")
    jobs: list[Job] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        where = f"[{i}]"
        if not isinstance(item, dict):
            raise _problem(file, where, f"expected a job object with Name, Memory and Time, got {type(item).__name__}")
        name, memory, times = item.get("Name"), item.get("Memory"), item.get("Time")
        if not isinstance(name, str) or not name:
            raise _problem(file, f"{where}.Name", f"expected the job's name (a non-empty string), got {name!r}")
        for key, value in (("Memory", memory), ("Time", times)):
            if not isinstance(value, list):
                raise _problem(file, f"{where}.{key}", f"expected a list of integers, got {value!r}")
            if len(value) > MAX_SAMPLES:
                raise _problem(file, f"{where}.{key}", f"expected at most {MAX_SAMPLES} samples, got {len(value)}")
        assert isinstance(memory, list) and isinstance(times, list)
        if len(times) < len(memory):
            raise _problem(file, f"{where}.Time", f"expected a time for each of the {len(memory)} Memory samples, "
                                                  f"got {len(times)}")
        if len(memory) <= 2:
            continue  # the fork drops jobs that would start and end at once
        if name in seen:
            raise _problem(file, f"{where}.Name", f"expected a unique job name, {name!r} repeats")
        _check_name(name, file, f"{where}.Name")
        seen.add(name)
        fast = _plain_records(memory, times)
        if fast is not None:
            jobs.append(Job.of(name, fast))
            continue
        records: list[Record] = []
        for j, mem in enumerate(memory):
            usage = _int(mem, file, f"{where}.Memory[{j}]", "bytes")
            ms = _int(times[j], file, f"{where}.Time[{j}]", "epoch milliseconds")
            if usage < 0:
                raise _problem(file, f"{where}.Memory[{j}]", f"expected bytes >= 0, got {usage}")
            seconds = int(ms / 1000) if abs(ms) < 2**53 else ms // 1000
            if abs(seconds) > _MAX_SECONDS:
                raise _problem(file, f"{where}.Time[{j}]", f"expected epoch milliseconds of a date, got {ms}")
            at = _EPOCH + timedelta(seconds=seconds)
            if records and at < records[-1].time:
                raise _problem(file, f"{where}.Time[{j}]", "expected times in increasing order")
            records.append(Record(at, usage))
        jobs.append(Job.of(name, records))
    jobs.sort(key=lambda job: job.start_at)
    return jobs


def _plain_records(memory: list[Any], times: list[Any]) -> list[Record] | None:
    """The records of a job whose samples are all plain (non-negative byte counts, epoch
    milliseconds of dates in increasing order), read without a check per sample; None otherwise
    (then the samples are read one by one and the first bad one is reported)."""
    stamps = times[:len(memory)]
    if not all(type(v) is int for v in memory) or not all(type(ms) is int for ms in stamps):
        return None
    if min(memory) < 0 or min(stamps) <= -2**53 or max(stamps) >= 2**53:
        return None
    seconds = [int(ms / 1000) for ms in stamps]
    if min(seconds) < -_MAX_SECONDS or max(seconds) > _MAX_SECONDS:
        return None
    if any(b < a for a, b in zip(seconds, seconds[1:])):
        return None
    return [Record(_EPOCH + timedelta(seconds=sec), usage) for sec, usage in zip(seconds, memory)]


def _seconds(text: str, file: str, path: str, *, positive: bool = False) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _problem(file, path, f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0) or value > _MAX_SECONDS:
        raise _problem(file, path, f"expected {'a positive' if positive else 'a non-negative'} number of seconds, "
                                   f"got {text!r}")
    return value


def _quantity(text: str, file: str, path: str) -> int:
    try:
        value = parse_quantity(text)
    except (ValueError, ArithmeticError):
        raise _problem(file, path, f"expected a memory quantity (e.g. 2Gi), got {text!r}") from None
    if value < 0:
        raise _problem(file, path, f"expected a non-negative quantity, got {text!r}")
    return math.ceil(value)


def read_csv_trace(path: str | Path, start: datetime) -> list[Job]:
    """The jobs of a CSV job trace; offsets count from `start`. Sorted by submit time."""
    file = str(path)
    try:
        text = _read(path, file)
    except ValueError as exc:
        raise _problem(file, "", f"expected a CSV job trace: {exc}") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(c.strip() for c in rows[0]) != CSV_COLUMNS:
        raise _problem(file, "line 1", f"expected the header {','.join(CSV_COLUMNS)}")
    if len(rows) - 1 > MAX_JOBS:
        raise _problem(file, "", f"expected at most {MAX_JOBS} jobs, got {len(rows) - 1}")
    jobs: list[Job] = []
    seen: set[str] = set()
    for line, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(CSV_COLUMNS):
            raise _problem(file, f"line {line}", f"expected {len(CSV_COLUMNS)} columns, got {len(row)}")
        name, submit, duration, cpu, memory, usage = (c.strip() for c in row)
        if not name or name in seen:
            raise _problem(file, f"line {line}.name", f"expected a unique non-empty job name, got {name!r}")
        seen.add(name)
        _check_name(name, file, f"line {line}.name")
        if "T" in submit:
            try:
                begin = parse_time(submit)
            except ValueError:
                raise _problem(file, f"line {line}.submit", f"expected seconds or an RFC 3339 time, got {submit!r}") from None
        else:
            begin = start + timedelta(seconds=_seconds(submit, file, f"line {line}.submit"))
        length = _seconds(duration, file, f"line {line}.duration", positive=True)
        requests: dict[str, str] = {}
        if cpu:
            try:
                parse_quantity(cpu)
            except (ValueError, ArithmeticError):
                raise _problem(file, f"line {line}.cpu", f"expected a cpu quantity (e.g. 500m), got {cpu!r}") from None
            requests["cpu"] = cpu
        if memory:
            _quantity(memory, file, f"line {line}.memory")
            requests["memory"] = memory
        samples = _samples(usage, file, line, length, _quantity(memory, file, f"line {line}.memory") if memory else 0)
        records = [Record(begin + timedelta(seconds=offset), byte_count) for offset, byte_count in samples]
        jobs.append(Job.of(name, records, requests))
    jobs.sort(key=lambda job: job.start_at)
    return jobs


def _samples(text: str, file: str, line: int, duration: float, request: int) -> list[tuple[float, int]]:
    """(offset, bytes) samples from 0 to `duration`: phase 0 at 0 s, the last sample held to the end."""
    parts = [p for p in text.split(";") if p.strip()] if text else []
    if len(parts) > MAX_SAMPLES:
        raise _problem(file, f"line {line}.usage", f"expected at most {MAX_SAMPLES} samples, got {len(parts)}")
    samples: list[tuple[float, int]] = []
    for k, part in enumerate(parts):
        where = f"line {line}.usage[{k}]"
        offset_text, sep, quantity = part.partition(":")
        if not sep:
            raise _problem(file, where, f"expected offset:memory (e.g. 600:8Gi), got {part!r}")
        offset = _seconds(offset_text.strip(), file, where)
        if offset > duration or (samples and offset < samples[-1][0]):
            raise _problem(file, where, f"expected offsets in increasing order within the duration {duration:g}, "
                                        f"got {offset_text.strip()}")
        samples.append((offset, _quantity(quantity.strip(), file, where)))
    if not samples:
        samples = [(0.0, request)]
    if samples[0][0] > 0:
        samples.insert(0, (0.0, samples[0][1]))
    if samples[-1][0] < duration:
        samples.append((duration, samples[-1][1]))
    return samples


def shift_jobs(jobs: Sequence[Job], start: datetime) -> None:
    """Move every job so that the earliest start is `start` (keeps the trace's spacing)."""
    if not jobs:
        return
    shift = start - min(job.start_at for job in jobs)
    for job in jobs:
        job.records = [Record(r.time + shift, r.usage) for r in job.records]
        job.start_at += shift
        job.end_at += shift


_CHECKED: dict[tuple[str, int, int], list[Job]] = {}
"""The JSON trace `check_trace` read, for the run's `read_trace` of the same unchanged file."""


def _file_key(path: str | Path) -> tuple[str, int, int] | None:
    try:
        info = Path(path).stat()
    except OSError:
        return None
    return (str(path), info.st_mtime_ns, info.st_size)


def check_trace(path: str | Path, start: datetime) -> None:
    """Read a trace to report its problems now; the run's `read_trace` then takes the jobs read.

    (A memory-trace JSON of 2,000 jobs x 240 samples takes seconds to read: it is read once.)
    """
    key = _file_key(path)
    jobs = read_trace(path, start)
    _CHECKED.clear()
    if key is not None and not str(path).lower().endswith(".csv"):  # a CSV trace's times depend on `start`
        _CHECKED[key] = jobs


def read_trace(path: str | Path, start: datetime) -> list[Job]:
    """A trace by its suffix: .csv is a CSV job trace, anything else the memory-trace JSON."""
    if str(path).lower().endswith(".csv"):
        return read_csv_trace(path, start)
    key = _file_key(path)
    checked = _CHECKED.pop(key, None) if key is not None else None
    return checked if checked is not None else read_json_trace(path)
