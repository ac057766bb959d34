"""scheduler_perf's DataItems output and its threshold check, from a workload's run.

Per measured set of pods (a createPods op with collectMetrics, or startCollectingMetrics to
stopCollectingMetrics) three items:

- SchedulingThroughput (pods/s, Average and Perc50/90/95/99 over samples) as upstream's
  throughput collector computes it, but sampled on this process's CPU clock (label
  `Clock: process-cpu`): pods bound per `sample_seconds` of CPU time from the first
  measured step's start, the last partial sample at its own length. It varies from run to run.
- SchedulingAttempts (Scheduled, Unschedulable, Error): every attempt on a measured pod.
- Placement: measured pods bound in the window (Bound) and left pending at the end (Pending),
  NodesUsed, MaxPodsPerNode and MinPodsPerNode over the nodes used, and the label
  PlacementDigest (the first 16 hex digits of a SHA-256 of the sorted pod -> node list).

The last two are deterministic: two runs of the same file give the same values.
"""

# upstream: test/integration/scheduler_perf/util.go (DataItem, DataItems, throughputCollector.collect:
# samples sorted, Average = mean, PercN = samples[ceil(n*N/100)-1]), scheduler_perf.go
# (compareMetricWithThreshold)

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from kubesim.perf.compile import Collector, Plan
from kubesim.perf.config import TestCase, Workload
from kubesim.perf.runner import RunRecord

__all__ = ["data_items", "percentiles", "threshold_failures", "throughput_samples"]


def throughput_samples(times: Sequence[float], start: float, sample_seconds: float) -> list[float]:
    """Pods per second in consecutive windows of `sample_seconds` from `start` to the last time
    (the last window at its own length); one sample over the whole span when it is shorter."""
    if not times:
        return []
    ordered = sorted(times)
    end = ordered[-1]
    span = max(end - start, 1e-9)
    if span <= sample_seconds:
        return [len(ordered) / span]
    samples: list[float] = []
    counts: Counter[int] = Counter(min(int((t - start) / sample_seconds), 10**9) for t in ordered)
    last = int(span / sample_seconds)
    for i in range(last + 1):
        length = min(sample_seconds, span - i * sample_seconds)
        if length <= 1e-9:
            continue
        samples.append(counts.get(i, 0) / length)
    return samples


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    """Average and Perc50/90/95/99 as upstream's collectors compute them; {} without samples."""
    if not samples:
        return {}
    s = sorted(samples)
    n = len(s)

    def perc(p: int) -> float:
        return s[max(math.ceil(n * p / 100) - 1, 0)]

    return {"Average": sum(s) / n, "Perc50": perc(50), "Perc90": perc(90), "Perc95": perc(95), "Perc99": perc(99)}


def _items(collector: Collector, record: RunRecord, sample_seconds: float) -> list[dict[str, Any]]:
    first, last = collector.first_step, collector.last_step
    bound = [b for b in record.bindings
             if first <= b.step <= last and collector.measures(b.namespace, b.name, b.labels)]
    start = record.step_start_cpu.get(first, min((b.cpu for b in bound), default=0.0))
    labels = {"Name": collector.name}
    throughput = percentiles(throughput_samples([b.cpu for b in bound], start, sample_seconds))
    items: list[dict[str, Any]] = [{
        "data": throughput or {"Average": 0.0, "Perc50": 0.0, "Perc90": 0.0, "Perc95": 0.0, "Perc99": 0.0},
        "unit": "pods/s",
        "labels": {"Metric": "SchedulingThroughput", **labels, "Clock": "process-cpu"},
    }]
    attempts: Counter[str] = Counter(
        kind for ns, name, step, kind in record.attempts
        if first <= step <= last and collector.measures(ns, name, record.pod_labels.get((ns, name))))
    items.append({"data": {"Scheduled": attempts["scheduled"], "Unschedulable": attempts["unschedulable"],
                           "Error": attempts["error"]},
                  "unit": "attempts", "labels": {"Metric": "SchedulingAttempts", **labels}})
    # where each measured pod was bound (its last binding in the window) and those left pending at the end
    nodes = {(b.namespace, b.name): b.node for b in bound}
    pending = [key for key, node in record.placement.items()
               if node is None and key not in nodes and collector.measures(key[0], key[1], record.pod_labels.get(key))]
    per_node = Counter(nodes.values())
    placed = sorted(nodes.items())
    digest = hashlib.sha256("".join(f"{ns}/{name}={node}\n" for (ns, name), node in placed).encode()).hexdigest()
    items.append({"data": {"Bound": len(nodes), "Pending": len(pending),
                           "NodesUsed": len(per_node), "MaxPodsPerNode": max(per_node.values(), default=0),
                           "MinPodsPerNode": min(per_node.values(), default=0)},
                  "unit": "pods", "labels": {"Metric": "Placement", **labels, "PlacementDigest": digest[:16]}})
    return items


def data_items(plan: Plan, record: RunRecord, *, sample_seconds: float = 1.0) -> list[dict[str, Any]]:
    """The DataItems of one workload's run."""
    out: list[dict[str, Any]] = []
    for collector in plan.collectors:
        out.extend(_items(collector, record, sample_seconds))
    return out


def threshold_failures(case: TestCase, workload: Workload, items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Messages for each item below the workload's threshold (above it with expectLower), as
    upstream's compareMetricWithThreshold words them; [] when the threshold is 0 (off)."""
    if workload.threshold <= 0:
        return []
    selector = workload.threshold_selector or case.threshold_selector or {"name": "SchedulingThroughput"}
    name = selector.get("name") or "SchedulingThroughput"
    wanted = selector.get("labels") or {}
    lower = bool(selector.get("expectLower"))
    out = []
    for item in items:
        labels = item.get("labels") or {}
        if labels.get("Metric") != name or any(labels.get(k) != v for k, v in wanted.items()):
            continue
        value = (item.get("data") or {}).get("Average")
        if value is None:
            continue
        if (value > workload.threshold) if lower else (value < workload.threshold):
            side = "lower" if lower else "higher"
            out.append(f"{labels.get('Name')}: expected {name} Average to be {side}: got {value:.2f}, "
                       f"want {workload.threshold:g}")
    return out
