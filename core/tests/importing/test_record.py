"""kubesim.importing.record: watch events -> operations, checked on synthetic events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesim.api.loader import parse_scenarios
from kubesim.importing.record import RECORDED_NODE_ANNOTATION, Change, Recording


def _node(name: str, **status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": "u-" + name, "resourceVersion": "1"},
            "status": {"allocatable": {"cpu": "4", "pods": "110"}, "capacity": {"cpu": "4", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}], **status}}


def _pod(name: str, node: str | None = None, owner: tuple[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": "u-" + name, "resourceVersion": "7"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1], "uid": "x",
                                    "controller": True}]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}}


def _replica_set(name: str, replicas: int, owner: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": owner, "uid": "d",
                                    "controller": True}]
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def _later(recording: Recording) -> list[tuple[int, str, str]]:
    out = []
    for op in recording.scenario()["spec"]["operations"]:
        if op["step"] == 0:
            continue
        kind = next(k for k in op if k.endswith("Operation"))
        body = op[kind]
        name = ((body.get("object") or {}).get("metadata") or body.get("objectMeta") or {}).get("name", "")
        out.append((op["step"], kind, name))
    return out


def test_changes_land_on_the_step_of_their_time() -> None:
    rec = Recording([_node("n1")], step_seconds=10)
    rec.add(Change("ADDED", _pod("a"), 0.5))
    rec.add(Change("ADDED", _pod("b"), 10.0))
    rec.add(Change("DELETED", _pod("a"), 25.0))
    rec.seconds = 30.0
    assert _later(rec) == [(1, "createOperation", "a"), (2, "createOperation", "b"), (3, "deleteOperation", "a"),
                           (4, "doneOperation", "")]


def test_a_pod_bound_by_the_recorded_scheduler_is_created_pending_with_its_node_noted() -> None:
    rec = Recording([_node("n1")], step_seconds=1)
    rec.add(Change("ADDED", _pod("a"), 0))
    rec.add(Change("MODIFIED", _pod("a", node="n1"), 0.2))  # the binding: no operation of its own
    rec.add(Change("ADDED", _pod("b", node="n1"), 0.3))  # created already bound
    ops = rec.scenario()["spec"]["operations"]
    created = {op["createOperation"]["object"]["metadata"]["name"]: op["createOperation"]["object"]
               for op in ops if "createOperation" in op and op["step"] > 0}
    for pod in created.values():
        assert "nodeName" not in pod["spec"] and "status" not in pod
        assert pod["metadata"]["annotations"][RECORDED_NODE_ANNOTATION] == "n1"
        assert "uid" not in pod["metadata"] and "resourceVersion" not in pod["metadata"]
    assert not [op for op in ops if "patchOperation" in op]


def test_what_kubesim_controllers_do_is_left_to_them() -> None:
    rec = Recording([_replica_set("web", 2)], step_seconds=1)
    rec.add(Change("ADDED", _pod("web-1", owner=("ReplicaSet", "web")), 0))
    rec.add(Change("ADDED", _replica_set("app-123", 1, owner="app"), 0))
    rec.add(Change("MODIFIED", {**_replica_set("web", 3), "status": {"replicas": 3}}, 1.5))
    rec.add(Change("ADDED", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, 1))
    assert rec.skipped == 3
    later = _later(rec)
    assert later[:-1] == [(2, "patchOperation", "web")]
    patch = next(op["patchOperation"] for op in rec.scenario()["spec"]["operations"] if "patchOperation" in op)
    assert json.loads(patch["patch"]) == {"spec": {"replicas": 3}}  # status is the controller's
    assert patch["patchType"] == "application/merge-patch+json"


def test_node_status_changes_patch_the_status_subresource() -> None:
    rec = Recording([_node("n1")], step_seconds=1)
    changed = _node("n1")
    changed["status"]["conditions"] = [{"type": "Ready", "status": "False", "reason": "KubeletDown"}]
    changed["metadata"]["labels"] = {"pool": "a"}
    rec.add(Change("MODIFIED", changed, 0))
    patches = [op["patchOperation"] for op in rec.scenario()["spec"]["operations"] if "patchOperation" in op]
    assert [(p.get("subresource"), json.loads(p["patch"])) for p in patches] == [
        (None, {"metadata": {"labels": {"pool": "a"}}}),
        ("status", {"status": {"conditions": [{"reason": "KubeletDown", "status": "False", "type": "Ready"}]}})]


def test_a_relist_after_410_records_the_differences() -> None:
    rec = Recording([_node("n1"), _node("n2")], step_seconds=1)
    rec.relist([_node("n1"), _node("n3")], "v1", "Node", None, 4.0)
    assert _later(rec)[:-1] == [(5, "createOperation", "n3"), (5, "deleteOperation", "n2")]


def test_the_scenario_is_valid_and_the_same_for_the_same_events() -> None:
    def record() -> dict[str, Any]:
        rec = Recording([_node("n1"), _pod("p", node="n1")], step_seconds=2)
        rec.add(Change("ADDED", _pod("q"), 1))
        rec.add(Change("MODIFIED", _pod("q", node="n1"), 1.5))
        rec.add(Change("DELETED", _pod("p", node="n1"), 3))
        rec.seconds = 5
        return rec.scenario()

    first, second = record(), record()
    assert json.dumps(first) == json.dumps(second)
    assert [s.name for s in parse_scenarios([first], "recorded.json")] == ["recorded"]  # raises if invalid


def test_the_step_duration_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Recording([], step_seconds=0)
