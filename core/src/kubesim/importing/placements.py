"""Where a recorded cluster's scheduler put pods, kept in a recorded Scenario for comparison.

`kubesim record` creates the pods it saw bound as pending (the replay's scheduler decides) and
keeps the real node two ways: on each such pod (RECORDED_NODE_ANNOTATION), and, because pods
that kubesim's controllers create in the replay (a Deployment's, a StatefulSet's) get other
names or are not recorded at all, as the count of pods per workload and node at the end of the
recording (RECORDED_PLACEMENTS_ANNOTATION on the Scenario). `kubesim compare --recorded` counts
the replay's pods the same way (workload_of) and shows where the two schedulers differ.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from .cleaning import owner_of

__all__ = ["MAX_PLACEMENT_ENTRIES", "RECORDED_NODE_ANNOTATION", "RECORDED_PLACEMENTS_ANNOTATION", "decode",
           "encode", "placement_counts", "runs_on", "workload_of"]

RECORDED_NODE_ANNOTATION = "record.kubesim.io/node"
"""The node the recorded cluster's scheduler bound a pod to (the replay schedules it anew)."""

RECORDED_PLACEMENTS_ANNOTATION = "record.kubesim.io/placements"
"""On the recorded Scenario: JSON {workload: {node: pods}} of the pods running at the recording's end."""

MAX_PLACEMENT_ENTRIES = 1_000_000
"""The most (workload, node) entries decode() reads (a recording of a very large cluster has fewer)."""

_TEMPLATE_HASH = "pod-template-hash"
_TERMINAL = ("Succeeded", "Failed")


def workload_of(pod: Mapping[str, Any]) -> str:
    """"Kind namespace/name" of the workload a pod belongs to: its controller, with a
    Deployment's ReplicaSet counted as the Deployment (the ReplicaSet's name is the Deployment's
    and the pod-template-hash); "Pod namespace/name" for a pod of its own."""
    meta = pod.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    owner = owner_of(dict(pod))
    if owner is None:
        return f"Pod {namespace}/{meta.get('name', '')}"
    kind, name = owner
    suffix = (meta.get("labels") or {}).get(_TEMPLATE_HASH)
    if kind == "ReplicaSet" and isinstance(suffix, str) and suffix and name.endswith(f"-{suffix}"):
        kind, name = "Deployment", name[: -len(suffix) - 1]
    return f"{kind} {namespace}/{name}"


def runs_on(pod: Mapping[str, Any]) -> str | None:
    """The node a pod runs on: bound, not finished and not being deleted; else None."""
    node = (pod.get("spec") or {}).get("nodeName")
    if not node or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return None
    if (pod.get("status") or {}).get("phase") in _TERMINAL:
        return None
    return str(node)


def placement_counts(pods: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """{workload: {node: pods}} of the pods that run on a node, sorted by workload and node."""
    counts: Counter[tuple[str, str]] = Counter()
    for pod in pods:
        node = runs_on(pod)
        if node is not None:
            counts[(workload_of(pod), node)] += 1
    out: dict[str, dict[str, int]] = {}
    for (workload, node), n in sorted(counts.items()):
        out.setdefault(workload, {})[node] = n
    return out


def encode(counts: Mapping[str, Mapping[str, int]]) -> str:
    """The annotation's value: compact JSON with sorted keys (the same counts give the same bytes)."""
    return json.dumps(counts, sort_keys=True, separators=(",", ":"))


def decode(value: Any) -> dict[str, dict[str, int]]:
    """The annotation's counts; ValueError saying what is wrong when `value` is not
    {workload: {node: count >= 0}} as encode() writes it."""
    if not isinstance(value, str):
        raise ValueError(f"expected a JSON string, got {type(value).__name__}")
    try:
        data = json.loads(value)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected an object of workloads, got {type(data).__name__}")
    out: dict[str, dict[str, int]] = {}
    entries = 0
    for workload, nodes in data.items():
        if not isinstance(nodes, dict):
            raise ValueError(f"{workload!r}: expected an object of nodes, got {type(nodes).__name__}")
        entries += len(nodes)
        if entries > MAX_PLACEMENT_ENTRIES:
            raise ValueError(f"more than {MAX_PLACEMENT_ENTRIES} (workload, node) entries")
        for node, count in nodes.items():
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"{workload!r}: node {node!r}: expected a pod count (an integer >= 0), got {count!r}")
        out[workload] = dict(nodes)
    return out
