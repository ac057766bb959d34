"""Jobs of a memory trace and the pods made from them (the fork's `pkg/jobparser`).

A job is a name and memory samples over time. Its pod carries a `simSpec` with one phase per
sample (phase 0 lasts 0 s, phase i lasts t_i - t_(i-1) seconds, each using cpu 5 and the
sample's bytes), a container `worker` whose requests come from the size token of the name
(`o10n-worker-<s|m|l|xl>-...`) times a request factor, and no limits. A migration cuts the
samples before its start, shifts the rest by its downtime and names the new pod "m" + name.
Port of `S:pkg/jobparser/{types,pod}.go` (elchead/k8s-cluster-simulator, branch jobruntime_v1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import attrs
from kubesim.clock import parse_time
from kubesim.simtime.simspec import SimSpec

__all__ = [
    "CPU_REQUEST",
    "Job",
    "Record",
    "filter_records_before",
    "job_of_pod",
    "job_pod",
    "job_size",
    "migrated_pod",
    "request_for_size",
    "seconds_left",
    "sim_spec",
    "update_job_for_migration",
]

CPU_REQUEST = "5"
"""Every job's cpu request and cpu usage in each phase."""

_SIZE_GI = {"s": 30.0, "m": 80.0, "l": 130.0}


@attrs.define
class Record:
    """One memory sample: `usage` bytes at `time` (`others`: the other resources' usage, else cpu 5)."""

    time: datetime
    usage: int
    others: dict[str, str] | None = None


@attrs.define
class Job:
    """A job of a trace; `records` are sorted by time, `start_at` is when its pod is submitted."""

    name: str
    records: list[Record]
    start_at: datetime
    end_at: datetime
    migrating_to: str = ""
    requests: dict[str, str] | None = None
    """Requests given by the trace (CSV traces); None: from the size token and the request factor."""
    template: dict[str, Any] | None = None
    """The pod a job was adopted from (not a trace's job): its migrated pod keeps the rest of it."""

    @classmethod
    def of(cls, name: str, records: list[Record], requests: dict[str, str] | None = None) -> Job:
        """A job starting at its first record and ending at its last."""
        return cls(name, records, records[0].time, records[-1].time, requests=requests)


def job_size(name: str) -> str:
    """The size token: the third "-"-separated part of the name, "s" when there is none."""
    parts = name.split("-")
    return parts[2] if len(parts) >= 3 else "s"


def request_for_size(size: str, factor: float) -> dict[str, str]:
    """Requests of a job size: cpu 5 and memory factor x {s: 30, m: 80, l: 130} Gi (xl: 420Gi)."""
    if size == "xl":
        return {"cpu": CPU_REQUEST, "memory": "420Gi"}
    if size not in _SIZE_GI:
        return {}
    memory = f"{factor * _SIZE_GI[size]:.0f}Gi" if factor else "0"
    return {"cpu": CPU_REQUEST, "memory": memory}


def sim_spec(records: Sequence[Record]) -> str:
    """The simSpec annotation of the records, byte for byte as the fork writes it."""
    out = []
    for i, record in enumerate(records):
        seconds = 0 if i == 0 else int((record.time - records[i - 1].time).total_seconds())
        others = record.others if record.others is not None else {"cpu": CPU_REQUEST}
        usage = "".join(f"    {name}: {value}\n" for name, value in sorted({**others, "memory": record.usage}.items()))
        out.append(f"\n- seconds: {seconds}\n  resourceUsage:\n{usage}")
    return "".join(out)


def job_pod(job: Job, request_factor: float = 0.0) -> dict[str, Any]:
    """The pod of a job (namespace default, container worker, requests from the size or the trace)."""
    requests = dict(job.requests) if job.requests is not None else request_for_size(job_size(job.name), request_factor)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": job.name, "namespace": "default", "annotations": {"simSpec": sim_spec(job.records)}},
        "spec": {"containers": [{"name": "worker", "image": "worker-image", "resources": {"requests": requests}}]},
    }


def migrated_pod(job: Job) -> dict[str, Any]:
    """The pod recreated after a migration: memory request = the usage at migration start, on the target.

    A job adopted from a pod keeps that pod's labels, annotations and spec (its requests too).
    """
    if job.template is not None:
        return _migrated_copy(job)
    pod = job_pod(job)  # request factor 0: the size's requests with memory "0", then the usage
    pod["spec"]["containers"][0]["resources"]["requests"]["memory"] = str(job.records[0].usage)
    if job.migrating_to:
        pod["spec"]["nodeName"] = job.migrating_to
    return pod


def filter_records_before(records: list[Record], t: datetime) -> list[Record]:
    """The records from `t` on; the record straddling `t` is kept, re-stamped to `t` (FilterRecordsBefore)."""
    if len(records) == 1:
        return [attrs.evolve(records[0], time=t)]
    first = 0
    for i, record in enumerate(records):
        if not record.time < t:
            first = i
            break
    out: list[Record] = []
    if first > 0 and records[first - 1].time < t < records[first].time:
        out.append(attrs.evolve(records[first - 1], time=t))
    return out + records[first:]


def update_job_for_migration(job: Job, start: datetime, finish: datetime, executed: timedelta | None = None) -> None:
    """Cut the records before `start`, shift the rest by the downtime, and start the job at `finish`.

    With `executed` (how long the pod has run) the records are cut where the pod is, not at the
    trace's time `start`: a pod that waited for a node runs behind its trace (the fork cuts at
    `start`, which drops the part of such a pod that has not run yet).
    """
    cut = job.records[0].time + executed if executed is not None else start
    shift: timedelta = finish - cut
    job.records = [attrs.evolve(r, time=r.time + shift) for r in filter_records_before(job.records, cut)]
    job.start_at = finish


def seconds_left(job: Job, executed: timedelta) -> float:
    """Seconds of the job's records after `executed` seconds of running."""
    return (job.records[-1].time - job.records[0].time - executed).total_seconds()


_NOT_COPIED = frozenset({"simSpec", "kubesim.io/usage", "simtime.kubesim.io/usage-frozen-at"})


def _migrated_copy(job: Job) -> dict[str, Any]:
    template = job.template or {}
    meta = template.get("metadata") or {}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items()
                   if k not in _NOT_COPIED and not k.startswith("kube-scheduler-simulator.sigs.k8s.io/")}
    annotations["simSpec"] = sim_spec(job.records)
    metadata: dict[str, Any] = {"name": job.name, "namespace": meta.get("namespace") or "default",
                                "annotations": annotations}
    if meta.get("labels"):
        metadata["labels"] = dict(meta["labels"])
    spec = {k: v for k, v in (template.get("spec") or {}).items() if k != "nodeName"}
    if job.migrating_to:
        spec["nodeName"] = job.migrating_to
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def job_of_pod(pod: dict[str, Any], spec: SimSpec) -> Job | None:
    """A job that replays a running pod's simSpec from its start time (None before it started)."""
    start_text = (pod.get("status") or {}).get("startTime")
    if not isinstance(start_text, str) or not start_text or not spec.phases:
        return None
    start = parse_time(start_text)
    records: list[Record] = []
    at = start
    for i, phase in enumerate(spec.phases):
        others = {name: text for name, text in phase.usage.items() if name != "memory"}
        memory = math.ceil(phase.values.get("memory", 0))
        if i == 0:
            records.append(Record(start, memory, others))  # phase 0 of 0 s: the usage from the start
        at += phase.duration
        records.append(Record(at, memory, others))
    meta = pod.get("metadata") or {}
    return Job(str(meta.get("name", "")), records, start, at, template=pod)
