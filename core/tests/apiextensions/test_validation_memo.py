"""Custom resources that passed schema validation are remembered by content: the same object
with a uid and timestamps (the create after the pre-run check) is not walked again, while any
change the schema can see, or a schema that constrains metadata, is checked anew."""

from __future__ import annotations

import copy
from typing import Any

from kubesim.apiextensions import custom_resources
from kubesim.cluster.registry import crd_resource_type


def _crd(metadata_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 3}}}}
    if metadata_schema is not None:
        props["metadata"] = metadata_schema
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {"type": "object", "properties": props}}}]},
    }


def _widget(size: int, **meta: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", **meta}, "spec": {"size": size}}


def _walks(monkeypatch: Any) -> list[int]:
    calls: list[int] = []
    real = custom_resources.validate_value

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(custom_resources, "validate_value", counting)
    return calls


def test_a_passed_object_is_not_walked_again_when_only_metadata_differs(monkeypatch: Any) -> None:
    custom = crd_resource_type(_crd())[0].custom
    assert custom is not None
    walks = _walks(monkeypatch)
    assert custom.validate(_widget(2)) == []
    created = _widget(2, uid="1234", creationTimestamp="2024-01-01T00:00:00Z", generation=1)
    assert custom.validate(copy.deepcopy(created)) == []
    assert len(walks) == 1
    assert [e.field for e in custom.validate(_widget(5))] == ["spec.size"]  # other content: walked
    assert [e.field for e in custom.validate(_widget(5))] == ["spec.size"]  # errors are never remembered
    assert len(walks) == 3


def test_a_schema_that_constrains_metadata_is_always_walked(monkeypatch: Any) -> None:
    custom = crd_resource_type(_crd({"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}}))[0].custom
    assert custom is not None
    walks = _walks(monkeypatch)
    assert custom.validate(_widget(1)) == []
    assert custom.validate(_widget(1)) == []
    assert len(walks) == 1  # name and generateName are in the key: remembered
    loose = crd_resource_type(_crd({"type": "object", "required": ["labels"]}))[0].custom
    assert loose is not None
    assert loose.validate(_widget(1, labels={"a": "b"})) == []
    assert [e.field for e in loose.validate(_widget(1))] == ["metadata.labels"]
