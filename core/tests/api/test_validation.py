"""Semantic checks of scenarios before they run."""

from __future__ import annotations

from typing import Any

import pytest

from kubesim.api import API_VERSION, Scenario, structure
from kubesim.api.validation import assign_operation_ids, parse_patch, validate_scenario

OPEN_SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def scope(api_version: str, kind: str) -> bool | None:
    return {("v1", "Node"): False, ("v1", "Pod"): True}.get((api_version, kind))


def check(ops: list[dict[str, Any]], **kw: Any) -> list[str]:
    doc = {"apiVersion": API_VERSION, "kind": "Scenario", "metadata": {"name": "s"},
           "spec": {"operations": ops, "controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}}}
    kw.setdefault("controllers", {"scheduler"})
    return [str(p) for p in validate_scenario(structure(doc, Scenario), scope=scope, **kw)]


def patch(name: str, step: int = 1, kind: str = "Pod", **extra: Any) -> dict[str, Any]:
    body = {"typeMeta": {"apiVersion": "v1", "kind": kind}, "objectMeta": {"name": name}, "patch": "{}", **extra}
    return {"step": step, "patchOperation": body}


def test_a_good_scenario_has_no_problems() -> None:
    ops = [{"step": 0, "createOperation": {"object": NODE}}, {"step": 0, "createOperation": {"object": POD}},
           patch("p1"), {"step": 2, "deleteOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Pod"}, "objectMeta": {"name": "p1"}}},
           {"step": 3, "doneOperation": {}}]
    assert check(ops) == []


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        ([{"step": 0, "createOperation": {"object": NODE}, "doneOperation": {}}],
         "spec.operations[0]: exactly one of createOperation, patchOperation, deleteOperation, doneOperation must be set (found createOperation, doneOperation)"),
        ([{"step": 0}], "spec.operations[0]: exactly one of createOperation, patchOperation, deleteOperation, doneOperation must be set (found none)"),
        ([{"step": -1, "doneOperation": {}}], "spec.operations[0].step: must be 0 or greater, got -1"),
        ([patch("ghost")], "spec.operations[0].patchOperation.objectMeta.name: Pod default/ghost is not created by any earlier operation (if a controller creates it, run with --allow-unknown-targets)"),
        ([{"step": 0, "createOperation": {"object": {"apiVersion": "v1", "kind": "Gizmo", "metadata": {"name": "g"}}}}],
         'spec.operations[0].createOperation.object.kind: no matches for kind "Gizmo" in version "v1"'),
        ([{"step": 0, "createOperation": {"object": {"kind": "Pod", "metadata": {"name": "g"}}}}],
         "spec.operations[0].createOperation.object.apiVersion: required: a non-empty string"),
        ([{"step": 0, "createOperation": {"object": {"apiVersion": "v1", "kind": "Pod", "metadata": {}}}}],
         "spec.operations[0].createOperation.object.metadata.name: required: name or generateName"),
        ([{"step": 0, "createOperation": {"object": POD}}, patch("p1", patchType="application/apply-patch+yaml")],
         "spec.operations[1].patchOperation.patchType: unsupported patch type 'application/apply-patch+yaml' (expected one of application/merge-patch+json, application/json-patch+json, application/strategic-merge-patch+json)"),
        ([{"step": 0, "createOperation": {"object": POD}}, patch("p1", patch="[1, 2")],
         "spec.operations[1].patchOperation.patch: not valid JSON or YAML"),
        ([{"step": 0, "createOperation": {"object": POD}}, patch("p1", patch='{"metadata": {"labels": {"a": "1", "a": "2"}}}')],
         "spec.operations[1].patchOperation.patch: metadata.labels.a: duplicate key"),
        ([{"step": 0, "createOperation": {"object": POD}}, patch("p1", patch="metadata:\n  labels:\n    a: '1'\n    a: '2'\n")],
         "spec.operations[1].patchOperation.patch: metadata.labels.a: duplicate key (lines 3 and 4)"),
        ([{"step": 0, "createOperation": {"object": POD}},
          patch("p1", patchType="json", patch='[{"op": "add", "path": "/a", "value": 1, "path": "/b"}]')],
         "spec.operations[1].patchOperation.patch: [0].path: duplicate key"),
        ([{"step": 0, "id": "x", "doneOperation": {}}, {"step": 0, "id": "x", "createOperation": {"object": NODE}}],
         "spec.operations[1].id: duplicate id 'x' (also spec.operations[0])"),
        ([{"step": 1, "doneOperation": {}}, {"step": 2, "createOperation": {"object": NODE}}],
         "spec.operations[1].step: step 2 comes after the doneOperation at step 1 and would never run"),
        ([{"step": 1, "createOperation": {"object": POD}}, patch("p1", step=0)],
         "spec.operations[1].patchOperation.objectMeta.name: Pod default/p1 is not created by any earlier operation (if a controller creates it, run with --allow-unknown-targets)"),
    ],
)
def test_problems(ops: list[dict[str, Any]], expected: str) -> None:
    found = check(ops)
    assert any(p.startswith(expected) for p in found), found


def test_unknown_targets_may_be_allowed() -> None:
    assert check([patch("made-by-a-controller")], allow_unknown_targets=True) == []


def test_deleted_objects_cannot_be_patched_later() -> None:
    ops = [{"step": 0, "createOperation": {"object": POD}},
           {"step": 1, "deleteOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Pod"}, "objectMeta": {"name": "p1"}}},
           patch("p1", step=2)]
    assert check(ops) == ["spec.operations[2].patchOperation.objectMeta.name: Pod default/p1 is not created by any earlier operation (if a controller creates it, run with --allow-unknown-targets)"]


def test_kinds_from_crds_created_by_earlier_operations_are_known() -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "gizmos.example.com"},
           "spec": {"group": "example.com", "scope": "Cluster", "names": {"kind": "Gizmo", "plural": "gizmos"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA}]}}

    def scope_with_crd(api_version: str, kind: str) -> bool | None:
        return True if kind == "CustomResourceDefinition" else scope(api_version, kind)

    doc = {"apiVersion": API_VERSION, "kind": "Scenario", "metadata": {"name": "s"},
           "spec": {"operations": [{"step": 0, "createOperation": {"object": crd}},
                                   {"step": 1, "createOperation": {"object": {"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g"}}}}]}}
    assert validate_scenario(structure(doc, Scenario), scope=scope_with_crd) == []


def test_controllers_must_be_known_and_star_only_disables() -> None:
    doc = {"apiVersion": API_VERSION, "kind": "Scenario", "metadata": {"name": "s"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "sched"}, {"name": "*"}]},
                                    "preSimulationControllers": {"disabled": [{"name": "*"}]}}}}
    found = [str(p) for p in validate_scenario(structure(doc, Scenario), controllers={"scheduler"})]
    assert found == [
        "spec.controllers.simulationControllers.enabled[0].name: unknown controller 'sched' (known: scheduler)",
        'spec.controllers.simulationControllers.enabled[1].name: "*" is only allowed in disabled',
    ]


def test_wrong_api_version_kind_and_missing_name() -> None:
    doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {}}
    assert [str(p) for p in validate_scenario(structure(doc, Scenario))] == [
        f"apiVersion: expected {API_VERSION!r}, got 'v1'",
        "kind: expected 'Scenario', got 'Pod'",
        "metadata.name: required: a Scenario needs a name",
    ]


def test_operation_ids_are_assigned_deterministically() -> None:
    doc = {"apiVersion": API_VERSION, "kind": "Scenario", "metadata": {"name": "s"},
           "spec": {"operations": [{"step": 0, "doneOperation": {}}, {"id": "mine", "step": 0, "doneOperation": {}}]}}
    s = assign_operation_ids(structure(doc, Scenario))
    assert [op.id for op in s.spec.operations] == ["operation-0", "mine"]


@pytest.mark.parametrize(
    ("text", "ptype", "ok"),
    [('{"a": 1}', "merge", True), ("a: 1", "application/strategic-merge-patch+json", True),
     ('[{"op": "add", "path": "/a", "value": 1}]', "json", True), ('{"a": 1}', "json", False),
     ("[1]", "merge", False)],
)
def test_parse_patch_checks_the_shape_for_the_type(text: str, ptype: str, ok: bool) -> None:
    if ok:
        parse_patch(text, ptype)
    else:
        with pytest.raises(ValueError):
            parse_patch(text, ptype)
