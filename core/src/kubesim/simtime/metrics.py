"""Metrics records: the cluster at one moment, in k8s-cluster-simulator's shape.

One record is what k8s-cluster-simulator's `metrics.BuildMetrics` builds and its JSON formatter
writes as one line (pfnet-research/k8s-cluster-simulator pkg/metrics/metrics.go,
pkg/node/node.go, pkg/pod/pod.go)::

    {"Clock": RFC3339,
     "Nodes": {name: {Allocatable, RunningPodsNum, TerminatingPodsNum, FailedPodsNum,
                      TotalResourceRequest, TotalResourceUsage}},
     "Pods": {"ns/name": {ResourceRequest, ResourceLimit, ResourceUsage, BoundAt, Node,
                          ExecutedSeconds, Priority, Status}},
     "Queue": {"PendingPodsNum": n}}

Resource lists are quantity strings as Go marshals them. Requests and usage of a node cover its
running and terminating pods; pods that finished normally (Succeeded) are left out; a pod's
Status is "Ok" (running), "Deleted" (terminating) or "OverCapacity" (the kubelet rejected it
for lack of resources; "Failed" for a pod that failed for another reason). Usage follows the
pods' simSpec (`kubesim.simtime.simspec`), frozen for frozen and terminating pods.
`collect` is what the engine writes every metricsTick; controllers may call it too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone, tzinfo
from functools import lru_cache
from typing import Any, Protocol

from kubesim.clock import Clock, parse_time
from kubesim.k8s.quantity import QuantityError, format_nano, parse
from kubesim.simtime.simspec import SimSpec, SimSpecError, effective_time, sim_spec_of

__all__ = [
    "GO_ZERO_TIME",
    "PodReader",
    "collect",
    "go_time",
    "pod_status",
    "resource_sum",
]

GO_ZERO_TIME = "0001-01-01T00:00:00Z"
"""How Go writes a zero time (a pod's BoundAt before it was bound)."""

def _over_capacity(reason: Any) -> bool:
    """Whether status.reason says the kubelet rejected the pod for lack of resources (`OutOf<resource>`)."""
    return isinstance(reason, str) and (reason.startswith("OutOf") or reason == "CapacityExceeded")

_TERMINAL = frozenset({"Succeeded", "Failed"})

Sum = dict[str, tuple[int, str]]
"""A resource list being summed: name -> (nano-units, format of its first quantity)."""


class PodReader(Protocol):
    """What `collect` reads: `kubesim.ClusterReader` (or a Cluster) provides it."""

    def list(self, api_version: str, kind: str) -> list[dict[str, Any]]: ...


def go_time(t: datetime, tz: tzinfo | None = None) -> str:
    """`t` in Go's time.RFC3339 layout ("Z" for UTC, else the offset), in zone `tz` when given."""
    if tz is not None:
        t = t.astimezone(tz)
    text = t.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _add(total: Sum, rl: Any) -> None:
    """Add a resource list to `total` as Go's ResourceListSum does (a sum keeps its first format)."""
    if not isinstance(rl, Mapping):
        return
    for name, q in rl.items():
        try:
            nano, fmt = parse(q)
        except QuantityError:
            continue  # the API server would have rejected it
        if name in total:
            total[name] = (total[name][0] + nano, total[name][1])
        else:
            total[name] = (nano, fmt)


def _text(total: Sum) -> dict[str, str]:
    return {name: format_nano(*total[name]) for name in sorted(total)}


def resource_sum(lists: Iterable[Any]) -> dict[str, str]:
    """The sum of resource lists as quantity strings, keys sorted (Go's JSON map order)."""
    total: Sum = {}
    for rl in lists:
        _add(total, rl)
    return _text(total)


def _containers(pod: Mapping[str, Any], field: str) -> Sum:
    """The sum of the containers' requests or limits (k8s-cluster-simulator's PodTotalResourceRequests)."""
    total: Sum = {}
    for c in (pod.get("spec") or {}).get("containers") or ():
        if isinstance(c, Mapping):
            _add(total, (c.get("resources") or {}).get(field))
    return total


_Spec = tuple[Sum, Sum, dict[str, str], dict[str, str]]
_SPEC_SUMS: dict[tuple[str, str], _Spec] = {}
"""(uid, resourceVersion) -> the pod's request and limit sums and their text: a pod's spec is
read once, not per record."""
_NO_USAGE: tuple[Sum, dict[str, str]] = ({}, {})


def _requests_and_limits(pod: Mapping[str, Any]) -> _Spec:
    meta = pod.get("metadata") or {}
    key = (str(meta.get("uid", "")), str(meta.get("resourceVersion", "")))
    sums = _SPEC_SUMS.get(key) if key[0] and key[1] else None
    if sums is None:
        requests, limits = _containers(pod, "requests"), _containers(pod, "limits")
        sums = (requests, limits, _text(requests), _text(limits))
        if key[0] and key[1]:
            if len(_SPEC_SUMS) >= 100_000:
                _SPEC_SUMS.clear()
            _SPEC_SUMS[key] = sums
    return sums


@lru_cache(maxsize=65536)
def _time(text: str) -> datetime:
    """parse_time of the few distinct times a run's pods carry (start times), read every tick."""
    return parse_time(text)


@lru_cache(maxsize=65536)
def _go_time_of(text: str, zone: tzinfo) -> str:
    return go_time(_time(text), zone)


def _phase_usage(spec: SimSpec, index: int | None) -> tuple[Sum, dict[str, str]]:
    """A phase's usage as a sum and as text, kept with the spec (every pod and tick reads it)."""
    if index is None:
        return _NO_USAGE
    found = spec.memo.get(("metrics-usage", index))
    if found is None:
        usage: Sum = {}
        _add(usage, spec.phases[index].usage)
        found = spec.memo[("metrics-usage", index)] = (usage, _text(usage))
    return found


def _usage(pod: Mapping[str, Any], now: datetime) -> tuple[Sum, dict[str, str], int]:
    """The pod's simSpec usage at `now` (frozen when frozen) as a sum and as text, and its executed seconds."""
    status = pod.get("status") or {}
    start_text = status.get("startTime")
    try:
        start = _time(start_text) if isinstance(start_text, str) and start_text else None
    except ValueError:
        start = None
    if start is None:
        return {}, {}, 0
    elapsed = effective_time(pod, now) - start
    try:
        spec = sim_spec_of(pod)
    except SimSpecError:
        spec = None
    if spec is None:
        return {}, {}, max(0, int(elapsed.total_seconds()))
    elapsed = min(elapsed, spec.duration)
    usage, text = _phase_usage(spec, spec.phase_index(elapsed))
    return usage, text, max(0, int(elapsed.total_seconds()))


def pod_status(pod: Mapping[str, Any]) -> str | None:
    """The pod's metrics Status: Ok, Deleted, OverCapacity or Failed; None when it finished (Succeeded)."""
    status = pod.get("status") or {}
    phase = status.get("phase")
    if phase == "Succeeded":
        return None
    if phase == "Failed":
        return "OverCapacity" if _over_capacity(status.get("reason")) else "Failed"
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return "Deleted"
    return "Ok"


def _bound_at(pod: Mapping[str, Any]) -> str | None:
    status = pod.get("status") or {}
    start = status.get("startTime")
    if isinstance(start, str) and start:
        return start
    for c in status.get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "True":
            t = c.get("lastTransitionTime")
            return t if isinstance(t, str) and t else None
    return None


def _priority(pod: Mapping[str, Any]) -> int:
    p = (pod.get("spec") or {}).get("priority")
    return p if isinstance(p, int) and not isinstance(p, bool) else 0


def collect(reader: PodReader, now: datetime | Clock, *, tz: tzinfo | None = None) -> dict[str, Any]:
    """The metrics record of the cluster `reader` reads at simulated time `now`.

    :param reader: the cluster (`runtime.reader`)
    :param now: the simulated time (`runtime.clock.now()`, or the clock itself)
    :param tz: the zone times are written in (the start clock's; UTC when None)
    """
    if isinstance(now, Clock):
        now = now.now()
    zone = tz or timezone.utc
    nodes: dict[str, dict[str, Any]] = {}
    sums: dict[str, tuple[Sum, Sum]] = {}
    for node in reader.list("v1", "Node"):
        name = str((node.get("metadata") or {}).get("name", ""))
        allocatable: Sum = {}
        _add(allocatable, (node.get("status") or {}).get("allocatable") or (node.get("status") or {}).get("capacity"))
        nodes[name] = {"Allocatable": _text(allocatable), "RunningPodsNum": 0, "TerminatingPodsNum": 0,
                       "FailedPodsNum": 0, "TotalResourceRequest": {}, "TotalResourceUsage": {}}
        sums[name] = ({}, {})
    pods: dict[str, dict[str, Any]] = {}
    pending = 0
    for pod in reader.list("v1", "Pod"):
        meta = pod.get("metadata") or {}
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            if (pod.get("status") or {}).get("phase") not in _TERMINAL and not meta.get("deletionTimestamp"):
                pending += 1
            continue
        entry = nodes.get(node_name)
        status = pod_status(pod)
        if entry is None or status is None:
            continue
        requests, _, requests_text, limits_text = _requests_and_limits(pod)
        usage, usage_text, executed = ({}, {}, 0) if status in ("OverCapacity", "Failed") else _usage(pod, now)
        if status in ("OverCapacity", "Failed"):
            entry["FailedPodsNum"] += 1
        else:
            entry["RunningPodsNum" if status == "Ok" else "TerminatingPodsNum"] += 1
            req_sum, use_sum = sums[node_name]
            for name, (nano, fmt) in requests.items():
                req_sum[name] = (req_sum[name][0] + nano, req_sum[name][1]) if name in req_sum else (nano, fmt)
            for name, (nano, fmt) in usage.items():
                use_sum[name] = (use_sum[name][0] + nano, use_sum[name][1]) if name in use_sum else (nano, fmt)
        bound = _bound_at(pod)
        try:
            bound_at = _go_time_of(bound, zone) if bound else GO_ZERO_TIME
        except ValueError:
            bound_at = GO_ZERO_TIME
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        pods[key] = {  # the resource lists are shared by records: copies, so that none is changed through another
            "ResourceRequest": dict(requests_text),
            "ResourceLimit": dict(limits_text),
            "ResourceUsage": dict(usage_text),
            "BoundAt": bound_at,
            "Node": node_name,
            "ExecutedSeconds": executed,
            "Priority": _priority(pod),
            "Status": status,
        }
    for name, (req_sum, use_sum) in sums.items():
        nodes[name]["TotalResourceRequest"] = _text(req_sum)
        nodes[name]["TotalResourceUsage"] = _text(use_sum)
    return {
        "Clock": go_time(now, zone),
        "Nodes": dict(sorted(nodes.items())),
        "Pods": dict(sorted(pods.items())),
        "Queue": {"PendingPodsNum": pending},
    }

