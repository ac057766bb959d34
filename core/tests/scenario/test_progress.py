"""The engine's live counts and the throttle that paces a progress display."""

from __future__ import annotations

from typing import Any

from kubesim.api import PodResult, ScenarioStep, ScenarioTimelineEvent
from kubesim.cluster import WatchEvent
from kubesim.scenario.progress import PodCounts, Throttle


def _pod(name: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _write(kind: str, obj: dict[str, Any]) -> WatchEvent:
    return WatchEvent(kind, obj, None, "test", None)


def _attempt(field: str, obj: dict[str, Any]) -> ScenarioTimelineEvent:
    result = PodResult(obj, ScenarioStep(1, 0))
    return ScenarioTimelineEvent("e", ScenarioStep(1, 0), "scheduler", **{field: result})


def test_counts_follow_pods_through_creation_failed_attempts_binding_and_deletion() -> None:
    counts = PodCounts()
    for name in ("a", "b", "c"):
        counts.on_write(_write("ADDED", _pod(name)))
    counts.on_write(_write("ADDED", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}))
    counts.on_record(_attempt("pod_unscheduled", _pod("a")))
    counts.on_record(_attempt("pod_unscheduled", _pod("b")))
    snap = counts.snapshot()
    assert (snap.pods, snap.bound, snap.pending, snap.unschedulable, snap.attempts, snap.events) == (3, 0, 3, 2, 2, 2)
    counts.on_write(_write("MODIFIED", _pod("a", "n")))  # bound after failing: no longer unschedulable
    counts.on_record(_attempt("pod_scheduled", _pod("a", "n")))
    counts.on_write(_write("MODIFIED", _pod("a", "n")))  # a later update of a bound pod counts once
    counts.on_write(_write("DELETED", _pod("b")))
    counts.on_write(_write("DELETED", _pod("never-seen")))
    snap = counts.snapshot()
    assert (snap.pods, snap.bound, snap.pending, snap.unschedulable, snap.attempts, snap.events) == (2, 1, 1, 0, 3, 3)
    counts.on_write(_write("DELETED", _pod("a", "n")))
    assert (counts.snapshot().pods, counts.snapshot().bound) == (1, 0)


def test_throttle_is_due_once_per_interval_of_its_clock() -> None:
    now = [100.0]
    throttle = Throttle(5.0, clock=lambda: now[0])
    seen = []
    for t in (100.0, 101.0, 104.9, 105.0, 106.0, 111.0):
        now[0] = t
        seen.append(throttle.due())
    assert seen == [True, False, False, True, False, True]
    late = Throttle(5.0, clock=lambda: now[0], immediate=False)  # first due one interval after creation
    assert not late.due()
    now[0] += 5.0
    assert late.due()
