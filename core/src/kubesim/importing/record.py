"""`kubesim record`: a live cluster's changes over a while, as a Scenario to replay.

The initial state is an import (step 0: every object, pending pods included); each change
seen afterwards becomes an operation on step 1 + (seconds since the start) // step duration:
a create, a merge patch of what changed (server-owned fields left out), or a delete. A pod
the recorded cluster's scheduler bound is created pending, so that the replay's scheduler
decides, with the real node kept in the RECORDED_NODE_ANNOTATION. What kubesim's own
controllers do in the replay is not recorded: pods of ReplicaSets and StatefulSets, the
ReplicaSets of Deployments, and the pods' status (the kubelet's).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from .cleaning import clean_object, owner_of
from .kinds import spec_for
from .placements import RECORDED_NODE_ANNOTATION, RECORDED_PLACEMENTS_ANNOTATION, encode, placement_counts
from .scenario import LEFT_TO_CONTROLLER, scenario_from_objects

__all__ = ["RECORDED_NODE_ANNOTATION", "Change", "Recording"]


@attrs.frozen
class Change:
    """One watch event: ADDED, MODIFIED or DELETED, the object as the server sent it, and when
    it arrived (seconds since the recording started)."""

    type: str
    object: dict[str, Any]
    seconds: float


def _key(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (str(obj.get("apiVersion")), str(obj.get("kind")), str(meta.get("namespace") or ""),
            str(meta.get("name") or ""))


def _merge_patch(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The JSON merge patch (RFC 7386) from `old` to `new`; {} when nothing changed."""
    patch: dict[str, Any] = {}
    for key in sorted(set(old) | set(new)):
        if key not in new:
            patch[key] = None
        elif key not in old or old[key] != new[key]:
            before, after = old.get(key), new[key]
            patch[key] = _merge_patch(before, after) if isinstance(before, dict) and isinstance(after, dict) else after
    return patch


def _object_ref(obj: dict[str, Any]) -> dict[str, Any]:
    meta = obj["metadata"]
    ref = {"name": meta["name"]}
    if meta.get("namespace"):
        ref["namespace"] = meta["namespace"]
    return {"typeMeta": {"apiVersion": obj["apiVersion"], "kind": obj["kind"]}, "objectMeta": ref}


class Recording:
    """Changes turned into operations, with the initial objects they start from."""

    def __init__(self, initial: Iterable[dict[str, Any]], step_seconds: float,
                 keep: Callable[[dict[str, Any]], bool] = lambda _obj: True) -> None:
        if step_seconds <= 0:
            raise ValueError("the step duration must be positive")
        self.keep = keep
        """Which objects are recorded (the CLI leaves out kinds kubesim does not serve)."""
        self.initial = [o for o in initial if keep(o)]
        self.step_seconds = step_seconds
        self._known: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        for obj in self.initial:
            spec = spec_for(str(obj.get("apiVersion")), str(obj.get("kind")))
            if spec is not None:
                self._known[_key(obj)] = clean_object(obj, spec.namespaced)
        self._pods = {_key(o): o for o in self.initial if o.get("kind") == "Pod"}
        """Every pod as last seen, those left to kubesim's controllers too: the real placements."""
        self._ops: list[dict[str, Any]] = []
        self._created_pods: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.seconds = 0.0
        """How long the recording lasted (its last step is the one this falls on)."""
        self.skipped = 0
        """Changes left out (kinds not imported, or what kubesim's controllers do in the replay)."""

    def _step(self, seconds: float) -> int:
        return 1 + int(max(seconds, 0.0) // self.step_seconds)

    def _left_to_controller(self, obj: dict[str, Any]) -> bool:
        owner = owner_of(obj)
        return owner is not None and (str(obj.get("kind")), owner[0]) in LEFT_TO_CONTROLLER

    def add(self, change: Change) -> None:
        """Record one watch event (in arrival order)."""
        obj = change.object
        if obj.get("kind") == "Pod" and self.keep(obj):
            if change.type == "DELETED":
                self._pods.pop(_key(obj), None)
            elif change.type in ("ADDED", "MODIFIED"):
                self._pods[_key(obj)] = obj
        spec = spec_for(str(obj.get("apiVersion")), str(obj.get("kind")))
        if (spec is None or change.type not in ("ADDED", "MODIFIED", "DELETED") or not self.keep(obj)
                or self._left_to_controller(obj)):
            self.skipped += 1
            return
        key, step = _key(obj), self._step(change.seconds)
        old = self._known.get(key)
        if change.type == "DELETED":
            if self._known.pop(key, None) is not None:
                self._ops.append({"step": step, "deleteOperation": _object_ref(old or obj)})
            return
        new = clean_object(obj, spec.namespaced)
        self._known[key] = new
        if obj["kind"] == "Pod":
            self._record_pod(key, old, new, step)
        elif old is None:
            self._ops.append({"step": step, "createOperation": {"object": new}})
        else:
            self._patch(old, new, step)

    def _record_pod(self, key: tuple[str, str, str, str], old: dict[str, Any] | None,
                    new: dict[str, Any], step: int) -> None:
        node = (new.get("spec") or {}).get("nodeName")
        if old is None:  # created: pending, whoever binds it later
            pod = json.loads(json.dumps(new))
            pod.get("spec", {}).pop("nodeName", None)
            pod.pop("status", None)
            if node:
                pod["metadata"].setdefault("annotations", {})[RECORDED_NODE_ANNOTATION] = node
            self._created_pods[key] = pod
            self._ops.append({"step": step, "createOperation": {"object": pod}})
            return
        created = self._created_pods.get(key)
        if node and created is not None:  # the recorded scheduler bound it: kept as a note
            created["metadata"].setdefault("annotations", {})[RECORDED_NODE_ANNOTATION] = node
        # a pod's spec is immutable but for a few fields; its status is the kubelet's
        before = {k: v for k, v in old.items() if k not in ("status",)}
        after = {k: v for k, v in new.items() if k not in ("status",)}
        for body in (before, after):
            body["spec"] = {k: v for k, v in (body.get("spec") or {}).items() if k != "nodeName"}
        self._patch(before, after, step)

    def _patch(self, old: dict[str, Any], new: dict[str, Any], step: int) -> None:
        patch = _merge_patch({k: v for k, v in old.items() if k != "status"},
                             {k: v for k, v in new.items() if k != "status"})
        if patch:
            self._ops.append({"step": step, "patchOperation": {
                **_object_ref(new), "patch": json.dumps(patch, sort_keys=True, separators=(",", ":")),
                "patchType": "application/merge-patch+json"}})
        status = _merge_patch(old.get("status") or {}, new.get("status") or {})
        if status and new["kind"] != "Pod":  # a node's conditions, allocatable
            self._ops.append({"step": step, "patchOperation": {
                **_object_ref(new), "patch": json.dumps({"status": status}, sort_keys=True, separators=(",", ":")),
                "patchType": "application/merge-patch+json", "subresource": "status"}})

    def relist(self, items: Iterable[dict[str, Any]], api_version: str, kind: str, namespace: str | None,
               seconds: float) -> None:
        """A kind's objects listed again after its watch expired (410): the differences to what
        was known become changes, as client-go's reflector replaces its store."""
        seen = set()
        for obj in items:
            seen.add(_key(obj))
            old = self._known.get(_key(obj))
            spec = spec_for(api_version, kind)
            if spec is not None and (old is None or old != clean_object(obj, spec.namespaced)):
                self.add(Change("ADDED" if old is None else "MODIFIED", obj, seconds))
        for key, old in sorted(self._known.items()):
            if key[:2] == (api_version, kind) and (namespace is None or key[2] == namespace) and key not in seen:
                self.add(Change("DELETED", old, seconds))

    def scenario(self, name: str = "recorded", workload_pods: str = "keep") -> dict[str, Any]:
        """The Scenario: the initial import at step 0 (pending pods too), the recorded
        operations, and a doneOperation on the step after the recording's end."""
        doc = scenario_from_objects(self.initial, name=name, workload_pods=workload_pods, done=False,
                                    bound_step=0, pending_step=0)
        ops: list[dict[str, Any]] = doc["spec"]["operations"]
        ops.extend(self._ops)
        covered = max(1, math.ceil(self.seconds / self.step_seconds))  # the steps the recording's time spans
        final = max([o["step"] for o in ops] + [covered])
        ops.append({"id": "done", "step": final + 1, "doneOperation": {}})
        placements = encode(placement_counts(self._pods.values()))
        doc["metadata"].setdefault("annotations", {})[RECORDED_PLACEMENTS_ANNOTATION] = placements
        return doc
