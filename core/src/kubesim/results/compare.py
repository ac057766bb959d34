"""Comparing two results of the same scenario: placements, per-step metrics, scores, and a verdict.

Pods are matched by namespace, name and occurrence (the n-th pod of that name), steps
by number. The summary metrics that `--fail-if-worse` gates on:

| metric        | value per run                                     | worse when b is |
|---------------|---------------------------------------------------|-----------------|
| pending       | mean over steps of the pods pending at step end   | higher          |
| unscheduled   | pods still pending at the end                     | higher          |
| allocation    | mean over steps of the allocation rate            | lower           |
| fragmentation | mean over steps of the fragmentation              | higher          |
| preemptions   | pods preempted in the whole run                   | higher          |
| attempts      | failed scheduling attempts in the whole run       | higher          |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs

from kubesim.results.analysis import ResultTables

__all__ = ["METRICS", "Comparison", "MetricComparison", "compare", "summary_metrics"]

Direction = Literal["lower", "higher"]

METRICS: dict[str, tuple[Direction, str]] = {
    "pending": ("lower", "mean pending pods per step"),
    "unscheduled": ("lower", "pods pending at the end"),
    "allocation": ("higher", "mean allocation rate per step"),
    "fragmentation": ("lower", "mean fragmentation per step"),
    "preemptions": ("lower", "pods preempted"),
    "attempts": ("lower", "failed scheduling attempts"),
}
"""Metric name -> (which direction is better, what it measures)."""

_EPSILON = 1e-9


@attrs.frozen
class MetricComparison:
    """One summary metric for both runs."""

    name: str
    a: float
    b: float
    better: Direction
    description: str

    @property
    def worse(self) -> bool:
        """True when b is worse than a (beyond float noise)."""
        return self.b > self.a + _EPSILON if self.better == "lower" else self.b < self.a - _EPSILON

    @property
    def improved(self) -> bool:
        """True when b is better than a."""
        return self.b < self.a - _EPSILON if self.better == "lower" else self.b > self.a + _EPSILON


@attrs.frozen
class Comparison:
    """Everything `kubesim compare` shows: `a` is the baseline, `b` the candidate."""

    a: str
    b: str
    metrics: dict[str, MetricComparison]
    steps: list[dict[str, Any]]
    pods: list[dict[str, Any]]

    @property
    def placements(self) -> list[dict[str, Any]]:
        """The pods whose node differs between the runs."""
        return [p for p in self.pods if p["node_a"] != p["node_b"]]

    def worse(self, metric: str) -> bool:
        """True when b is worse than a on `metric` (one of METRICS)."""
        if metric not in self.metrics:
            raise KeyError(f"unknown metric {metric!r} (expected one of {', '.join(METRICS)})")
        return self.metrics[metric].worse

    def to_data(self) -> dict[str, Any]:
        """JSON-ready form (the output of `kubesim compare --json`)."""
        return {
            "a": self.a,
            "b": self.b,
            "metrics": {
                m.name: {"a": m.a, "b": m.b, "better": m.better, "worse": m.worse, "description": m.description}
                for m in self.metrics.values()
            },
            "steps": self.steps,
            "placementsDiffer": len(self.placements),
            "pods": self.pods,
        }


def _mean(values: Sequence[float | None]) -> float:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else 0.0


def summary_metrics(t: ResultTables) -> dict[str, float]:
    """The METRICS of one result, by name (what `kubesim compare` and `kubesim sweep` report)."""
    cluster = t["cluster"]
    pending = cluster.column("pending")
    return {
        "pending": _mean(pending),
        "unscheduled": float(pending[-1]) if pending else 0.0,
        "allocation": _mean(cluster.column("allocation")),
        "fragmentation": _mean(cluster.column("fragmentation")),
        "preemptions": float(sum(cluster.column("preempted"))),
        "attempts": float(sum(cluster.column("failed_attempts"))),
    }


_STEP_FIELDS = ("pending", "scheduled", "unschedulable", "preempted", "allocation", "fragmentation")


def _steps(a: ResultTables, b: ResultTables) -> list[dict[str, Any]]:
    rows_a = {r["step"]: r for r in a["cluster"].records()}
    rows_b = {r["step"]: r for r in b["cluster"].records()}
    out = []
    for step in sorted(set(rows_a) | set(rows_b)):
        ra, rb = rows_a.get(step, {}), rows_b.get(step, {})
        row: dict[str, Any] = {"step": step}
        for f in _STEP_FIELDS:
            row[f"{f}_a"] = ra.get(f)
            row[f"{f}_b"] = rb.get(f)
        out.append(row)
    return out


def _pod_keys(t: ResultTables) -> dict[tuple[str, str, int], dict[str, Any]]:
    seen: dict[tuple[str, str], int] = {}
    out = {}
    for r in t["pods"].records():
        base = (r["namespace"], r["name"])
        n = seen.get(base, 0)
        seen[base] = n + 1
        out[(r["namespace"], r["name"], n)] = r
    return out


def _pods(a: ResultTables, b: ResultTables) -> list[dict[str, Any]]:
    """Pods placed or scored differently, in a's creation order then b's extra pods."""
    pa, pb = _pod_keys(a), _pod_keys(b)
    order = list(pa) + [k for k in pb if k not in pa]
    out = []
    for key in order:
        ra, rb = pa.get(key, {}), pb.get(key, {})
        node_a, node_b = ra.get("node"), rb.get("node")
        score_a, score_b = ra.get("score"), rb.get("score")
        if node_a == node_b and score_a == score_b and ra.get("state") == rb.get("state"):
            continue
        out.append({
            "namespace": key[0], "name": key[1],
            "node_a": node_a, "node_b": node_b,
            "state_a": ra.get("state"), "state_b": rb.get("state"),
            "score_a": score_a, "score_b": score_b,
            "score_delta": score_b - score_a if score_a is not None and score_b is not None else None,
        })
    return out


def compare(a: ResultTables, b: ResultTables, *, labels: tuple[str, str] | None = None) -> Comparison:
    """Compare result `b` (candidate) against `a` (baseline)."""
    ma, mb = summary_metrics(a), summary_metrics(b)
    metrics = {
        name: MetricComparison(name, ma[name], mb[name], better, description)
        for name, (better, description) in METRICS.items()
    }
    la, lb = labels or (a.scenario, b.scenario)
    return Comparison(la, lb, metrics, _steps(a, b), _pods(a, b))
