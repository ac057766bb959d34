"""Patch bodies checked on their shape alone (RFC 6902 ops and pointers, merge patch objects,
strategic merge patch directives, kind changes)."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.api.patch_shape import check_patch_shape, type_meta_changes


@pytest.mark.parametrize(("body", "kind", "message"), [
    ([{"op": "frob", "path": "/a"}], "json", '[0].op: Unsupported value: "frob": supported values: add, remove'),
    ([{"path": "/a"}], "json", "[0].op: required: one of add, remove, replace, move, copy, test"),
    ([{"op": "add", "path": "a", "value": 1}], "json", '[0].path: Invalid value: "a": a JSON pointer'),
    ([{"op": "add", "path": "/a~", "value": 1}], "json", '[0].path: Invalid value: "/a~"'),
    ([{"op": "remove"}], "json", "[0].path: required: a JSON pointer"),
    ([{"op": "test", "path": "/a"}], "json", "[0].value: required: test needs a value"),
    ([{"op": "copy", "path": "/a", "from": "b"}], "json", '[0].from: Invalid value: "b"'),
    (["add"], "json", "[0]: an operation must be an object with op and path, not a string"),
    ({"a": 1}, "json", "a JSON patch must be a list of operations, not an object"),
    ("x", "merge", "a merge merge patch must be an object, not a string"),
    ({"metadata": 1}, "merge", "metadata must be an object, not a number"),
    ({"metadata": {"annotations": {"a": 1}}}, "strategic", "metadata.annotations must map strings to strings"),
    ({"spec": {"containers": [{"name": "c", "$patch": "merge!"}]}}, "strategic",
     'spec.containers[0].$patch: Unsupported value: "merge!": supported values: replace, merge, delete'),
    ({"spec": {"$patch": None}}, "strategic", "spec.$patch: Unsupported value: null"),
    ({"spec": {"$retainKeys": ["a", 1]}}, "strategic", "spec.$retainKeys: must be a list of field names"),
    ({"spec": {"$setElementOrder/containers": {}}}, "strategic",
     "spec.$setElementOrder/containers: must be a list, not an object"),
    ({"spec": {"$deleteFromPrimitiveList/finalizers": "a"}}, "strategic",
     "spec.$deleteFromPrimitiveList/finalizers: must be a list, not a string"),
    ({"kind": "Secret"}, "merge", 'kind: Invalid value: "Secret": a patch cannot change the kind of the object (ConfigMap)'),
])
def test_bad_shapes(body: Any, kind: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        check_patch_shape(body, kind, "v1", "ConfigMap")
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(("body", "kind"), [
    ([{"op": "add", "path": "", "value": {}}, {"op": "move", "from": "/a~0~1", "path": "/b"}], "json"),
    ({"$patch": "replace", "data": {"a": "1"}, "metadata": {"labels": {"x": None}}}, "strategic"),
    ({"spec": {"$patch": "delete"}}, "strategic"),
    ({"spec": {"$patch": "frob"}}, "merge"),  # not a directive in a JSON merge patch
    ({"kind": "ConfigMap", "apiVersion": "v1"}, "merge"),
])
def test_good_shapes(body: Any, kind: str) -> None:
    check_patch_shape(body, kind, "v1", "ConfigMap")


def test_type_meta_changes() -> None:
    assert list(type_meta_changes([{"op": "replace", "path": "/apiVersion", "value": "v2"},
                                   {"op": "remove", "path": "/kind"}], "json")) == [("apiVersion", "v2")]
    assert list(type_meta_changes({"kind": "X", "apiVersion": None}, "merge")) == [("kind", "X")]
