"""A typed, ordered walk over a result's timeline, for the built-in tables and custom aggregates.

`iter_events` yields every timeline event in the order it happened (MajorSteps in
numeric order, events within a step in recorded order) as a `TimelineEvent` that
names its kind and gives the touched object without digging through the optional
result fields. With `step_ends=True` a `stepEnd` marker follows the last event of
every MajorStep, including steps in which nothing happened, so that per-step
aggregates can take their snapshot there; when the result spans more than
DENSE_STEP_LIMIT steps (the engine skips idle steps, so one may end at step 10**9),
only the steps with events and the final step get one, so tables stay bounded.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any, Literal

import attrs

from kubesim.api import PodResult, Scenario, ScenarioResult, ScenarioStep, ScenarioTimelineEvent

__all__ = ["DENSE_STEP_LIMIT", "EVENT_KINDS", "EventKind", "TimelineEvent", "iter_events", "step_range"]

DENSE_STEP_LIMIT = 100_000
"""Results spanning more MajorSteps get stepEnd markers only where something happened."""

EventKind = Literal["create", "patch", "delete", "done", "podScheduled", "podUnscheduled", "podPreempted",
                    "podMigrated", "stepEnd"]
"""What a timeline event records; "stepEnd" is the marker after a MajorStep's last event."""

EVENT_KINDS: tuple[EventKind, ...] = (
    "create", "patch", "delete", "done", "podScheduled", "podUnscheduled", "podPreempted", "podMigrated", "stepEnd",
)

# (attribute of ScenarioTimelineEvent, kind), in the order the fields are declared
_FIELDS: tuple[tuple[str, EventKind], ...] = (
    ("create", "create"), ("patch", "patch"), ("delete", "delete"), ("done", "done"),
    ("pod_scheduled", "podScheduled"), ("pod_unscheduled", "podUnscheduled"), ("pod_preempted", "podPreempted"),
    ("pod_migrated", "podMigrated"),
)


@attrs.frozen(slots=True)
class TimelineEvent:
    """One timeline event (or a stepEnd marker) with its kind and position.

    :ivar index: position in the whole timeline (0-based; a stepEnd has the index of the
        next real event, so indexes stay those of the real events)
    :ivar step: the step the event happened at (for stepEnd: {major, minor of the last event})
    :ivar kind: which result field is set, or "stepEnd"
    :ivar event: the timeline event itself (None for stepEnd)
    """

    index: int
    step: ScenarioStep
    kind: EventKind
    event: ScenarioTimelineEvent | None = None

    @property
    def id(self) -> str | None:
        """The event's id (the operation id for scenario operations)."""
        return self.event.id if self.event is not None else None

    @property
    def actor(self) -> str | None:
        """Who made the change ("scenario", a controller name, ...)."""
        return self.event.actor if self.event is not None else None

    @property
    def object(self) -> dict[str, Any] | None:
        """The object after a create or patch, or the pod of a pod event; None otherwise."""
        e = self.event
        if e is None:
            return None
        if e.create is not None:
            return e.create.result
        if e.patch is not None:
            return e.patch.result
        pod_result = self.pod_result
        return pod_result.pod if pod_result is not None else None

    @property
    def pod_result(self) -> PodResult | None:
        """The PodResult of a podScheduled, podUnscheduled or podPreempted event."""
        e = self.event
        if e is None:
            return None
        return e.pod_scheduled or e.pod_unscheduled or e.pod_preempted

    @property
    def target(self) -> tuple[str, str, str | None, str]:
        """(apiVersion, kind, namespace, name) of the object the event is about ("" when unknown)."""
        e = self.event
        if e is not None and e.delete is not None:
            op = e.delete.operation
            return op.type_meta.api_version, op.type_meta.kind, op.object_meta.namespace, op.object_meta.name
        obj = self.object or {}
        meta = obj.get("metadata") or {}
        return str(obj.get("apiVersion", "")), str(obj.get("kind", "")), meta.get("namespace"), str(meta.get("name", ""))

    def is_kind(self, api_version: str, kind: str) -> bool:
        """True when the event is about an object of this apiVersion and kind (pod events: v1 Pod)."""
        if self.kind in ("podScheduled", "podUnscheduled", "podPreempted"):
            return (api_version, kind) == ("v1", "Pod")
        target = self.target
        return target[0] == api_version and target[1] == kind


def _timeline(result: Scenario | ScenarioResult) -> tuple[dict[str, list[ScenarioTimelineEvent]], int]:
    if isinstance(result, Scenario):
        sr = result.status.scenario_result
        if sr is None:
            return {}, -1
        return sr.timeline, result.status.step_status.step.major
    return result.timeline, -1


def step_range(result: Scenario | ScenarioResult) -> range:
    """The MajorSteps the result covers: from the first timeline step to the last (or the final step)."""
    timeline, final = _timeline(result)
    majors = [int(k) for k in timeline]
    if not majors:
        return range(0, final + 1) if final >= 0 else range(0)
    return range(min(majors), max(max(majors), final) + 1)


def iter_events(
    result: Scenario | ScenarioResult,
    *,
    kinds: Collection[EventKind] | None = None,
    step_ends: bool = False,
) -> Iterator[TimelineEvent]:
    """Yield the timeline's events in order, as TimelineEvents.

    :param result: a Scenario read from `kubesim run -o`, or its ScenarioResult
    :param kinds: only these kinds (stepEnd markers are controlled by `step_ends`)
    :param step_ends: also yield a "stepEnd" marker after every MajorStep
    """
    timeline, final = _timeline(result)
    wanted = set(kinds) if kinds is not None else None
    index = 0
    span = step_range(result)
    steps: Iterable[int] = span
    if len(span) > DENSE_STEP_LIMIT:  # O(1) on a range
        steps = sorted({int(k) for k in timeline} | ({final} if final >= 0 else set()))
    for major in steps:
        events = timeline.get(str(major), ())
        last = ScenarioStep(major, 0)
        for e in events:
            kind = next((k for attr, k in _FIELDS if getattr(e, attr) is not None), None)
            if kind is not None and (wanted is None or kind in wanted):
                yield TimelineEvent(index, e.step, kind, e)
            index += 1
            last = e.step
        if step_ends:
            yield TimelineEvent(index, ScenarioStep(major, last.minor), "stepEnd")
