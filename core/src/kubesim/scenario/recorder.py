"""Builds a scenario's timeline from operation results and observed writes.

Writes of the scenario's own operations are recorded by the engine with the
operation's id. Every other create, update and delete (controllers, the garbage
collector) is recorded from the cluster's watch stream with a generated id.
Status-subresource writes are not recorded (they would drown the timeline) and
bindings are recorded by the scheduler as PodScheduled events with its results.
Recorded events are final: nobody changes them afterwards, so their JSON form is
computed once (`json()`), however often the result is published.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import json_merge_patch

from kubesim.api import (
    API_VERSION,
    KIND,
    CreateOperation,
    CreateOperationResult,
    DeleteOperation,
    DeleteOperationResult,
    ObjectMeta,
    PatchOperation,
    PatchOperationResult,
    PodMigration,
    PodResult,
    ScenarioStep,
    ScenarioTimelineEvent,
    TypeMeta,
    unstructure_shared,
)
from kubesim.api.pod_ref import POD_REF, with_pod_ref

if TYPE_CHECKING:
    from kubesim.cluster import WatchEvent

__all__ = ["SCENARIO_ACTORS", "TimelineRecorder"]

SCENARIO_ACTORS = frozenset({"scenario", "scenario-controller"})
"""Actors whose writes the engine records itself (or not at all)."""

_UNRECORDED_SUBRESOURCES = frozenset({"status", "binding"})


def _type_meta(obj: dict[str, Any]) -> TypeMeta:
    return TypeMeta(obj.get("apiVersion", ""), obj.get("kind", ""))


def _object_meta(obj: dict[str, Any]) -> ObjectMeta:
    meta = obj.get("metadata", {})
    return ObjectMeta(meta.get("name", ""), meta.get("namespace"), meta.get("uid"))


class TimelineRecorder:
    """The growing timeline of one scenario, keyed by MajorStep."""

    def __init__(self, step: Callable[[], ScenarioStep]) -> None:
        self._step = step
        self.timeline: dict[str, list[ScenarioTimelineEvent]] = {}
        self._counter = 0
        self._pod_created: dict[str, dict[str, ScenarioStep]] = {}  # namespace -> name -> step (no tuple a pod)
        self._json: dict[str, list[dict[str, Any]]] = {}
        self._published: dict[str, list[dict[str, Any]]] = {}  # the lists json() last gave out
        self._unscheduled: dict[tuple[str, str], dict[str, Any]] = {}  # pod key -> its last podUnscheduled pod
        self._repeats: set[str] = set()  # ids of podUnscheduled events whose pod the previous one carried
        self._refs: dict[tuple[str, str], tuple[dict[str, Any], dict[str, str]]] = {}  # pod key -> its pod, podRef
        self._converted: dict[int, dict[str, Any]] = {}  # id(event) -> its JSON, converted early (json() takes it)
        self.on_record: Callable[[ScenarioTimelineEvent], None] | None = None
        """Called with every event recorded (the engine's live progress counts)."""
        self.outside_actors: frozenset[str] = frozenset()
        """Outside controllers (kubesim serve --controller): their pods/binding writes become podScheduled
        events here, as the in-process scheduler records its own."""

    @property
    def step(self) -> ScenarioStep:
        """The scenario's current step."""
        return self._step()

    def _next_id(self) -> str:
        self._counter += 1
        return f"event-{self._counter}"

    def record(self, *, id: str | None = None, actor: str | None = None, **result: Any) -> ScenarioTimelineEvent:
        """Append an event at the current step; `result` sets exactly one result field.

        Example: `record(actor="scheduler", pod_scheduled=PodResult(...))`.
        """
        if len(result) != 1:
            raise ValueError(f"a timeline event has exactly one result, got {sorted(result)}")
        step = self._step()
        event = ScenarioTimelineEvent(id=id or self._next_id(), step=step, actor=actor, **result)
        self.timeline.setdefault(str(step.major), []).append(event)
        if self.on_record is not None:
            self.on_record(event)
        return event

    def record_create(self, id: str | None, result: CreateOperationResult,
                      operation_json: dict[str, Any] | None = None) -> ScenarioTimelineEvent:
        """Record the scenario's own create; `operation_json` is the operation's JSON form as the
        published spec holds it, shared by the event's JSON instead of a copy (one per created object)."""
        event = self.record(id=id, actor="scenario", create=result)
        if operation_json is not None:
            data = unstructure_shared(event)
            if data["create"]["operation"] == operation_json:
                data["create"]["operation"] = operation_json
            self._converted[builtins.id(event)] = data
        return event

    def pod_created_at(self, pod: Mapping[str, Any]) -> ScenarioStep:
        """The step at which a pod was created (the current step when unknown)."""
        meta = pod.get("metadata", {})
        created = self._pod_created.get(meta.get("namespace", ""))
        step = None if created is None else created.get(meta.get("name", ""))
        return self._step() if step is None else step

    def record_pod(self, kind: str, result: PodResult, *, actor: str) -> ScenarioTimelineEvent:
        """Record a PodScheduled, PodUnscheduled or PodPreempted event.

        :param kind: "podScheduled", "podUnscheduled" or "podPreempted"
        """
        field = {"podScheduled": "pod_scheduled", "podUnscheduled": "pod_unscheduled", "podPreempted": "pod_preempted"}[kind]
        meta = result.pod.get("metadata") or {}
        key = (meta.get("namespace") or "", meta.get("name") or "")
        if kind == "podUnscheduled":
            # a pod retried unchanged: its events share one object (each would otherwise hold a copy)
            last = self._unscheduled.get(key)
            repeat = last is not None and (last is result.pod or (last == result.pod and _same_text(last, result.pod)))
            if repeat and last is not result.pod:
                assert last is not None
                result = attrs.evolve(result, pod=last)
            elif not repeat:
                self._unscheduled[key] = result.pod
        else:
            repeat = False
            self._unscheduled.pop(key, None)
        fields: dict[str, Any] = {field: result}
        event = self.record(actor=actor, **fields)
        if repeat:
            self._repeats.add(event.id)  # written with a podRef: the previous event carries the pod
        return event

    def record_migration(self, migration: PodMigration, *, actor: str) -> ScenarioTimelineEvent:
        """Record a podMigrated event (simulated time: a pod moved to another node)."""
        return self.record(actor=actor, pod_migrated=migration)

    def observe(self, event: WatchEvent) -> None:
        """Watch handler: remember pod creation steps and record controllers' writes."""
        obj = event.object
        if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1" and event.type == "ADDED":
            meta = obj.get("metadata", {})
            self._pod_created.setdefault(meta.get("namespace", ""), {})[meta.get("name", "")] = self._step()
        if event.subresource == "binding" and event.actor in self.outside_actors:
            result = PodResult(obj, self.pod_created_at(obj), bound_to=(obj.get("spec") or {}).get("nodeName"),
                               bound_at=self._step())
            self.record_pod("podScheduled", result, actor=event.actor)
            return
        if (event.actor in SCENARIO_ACTORS or event.subresource in _UNRECORDED_SUBRESOURCES
                or (obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION)):
            return  # the engine records these itself; the Scenario object is not simulated state
        if event.type == "ADDED":
            self.record(actor=event.actor, create=CreateOperationResult(CreateOperation(obj), obj))
        elif event.type == "MODIFIED":
            patch = json_merge_patch.create_patch(event.old_object or {}, obj)
            op = PatchOperation(
                _type_meta(obj), _object_meta(obj),
                patch=_dump(patch), patch_type="application/merge-patch+json",
            )
            self.record(actor=event.actor, patch=PatchOperationResult(op, obj))
        elif event.type == "DELETED":
            op_d = DeleteOperation(_type_meta(obj), _object_meta(obj))
            self.record(actor=event.actor, delete=DeleteOperationResult(op_d))

    def json(self) -> dict[str, list[dict[str, Any]]]:
        """The timeline as JSON data (unstructured), converting only events new since the last call.

        The dicts and lists returned are shared with later calls, and the Kubernetes objects in
        them with the events (`unstructure_shared`): never mutate them.
        """
        out: dict[str, list[dict[str, Any]]] = {}
        for step, events in self.timeline.items():
            done = self._json.setdefault(step, [])
            if len(done) < len(events):
                done.extend(self._event_json(e) for e in events[len(done):])
            published = self._published.get(step)
            if published is None or len(published) != len(done):
                # a step's list given out never changes: a new one when the step has new events
                published = self._published[step] = list(done)
            out[step] = published
        return out

    def _event_json(self, event: ScenarioTimelineEvent) -> dict[str, Any]:
        """An event's JSON; a repeated podUnscheduled names its pod by reference (`podRef`)."""
        data: dict[str, Any] | None = self._converted.pop(builtins.id(event), None)  # converted early
        if data is None:
            data = unstructure_shared(event)
        if event.id in self._repeats:
            self._repeats.discard(event.id)
            assert event.pod_unscheduled is not None
            pod = event.pod_unscheduled.pod
            meta = pod.get("metadata") or {}
            key = (meta.get("namespace") or "", meta.get("name") or "")
            last = self._refs.get(key)
            # a pod's retries share one podRef (a long run may write hundreds of thousands)
            data["podUnscheduled"] = with_pod_ref(data["podUnscheduled"], last[1] if last and last[0] is pod else None)
            self._refs[key] = (pod, data["podUnscheduled"][POD_REF])
        return data

    def event_count(self) -> int:
        """How many events the timeline holds."""
        return sum(len(v) for v in self.timeline.values())


def _same_text(a: Any, b: Any) -> bool:
    """Whether two equal JSON trees would also be written alike (members in the same order,
    1 and 1.0 and True told apart): sharing one for the other must not change a result file."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same_text(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(map(_same_text, a, b))
    return bool(a == b)


def _dump(data: Any) -> str:
    import json

    return json.dumps(data, separators=(",", ":"), sort_keys=True)
