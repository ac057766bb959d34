"""JSON merge patch (the RFC 7386 appendix A examples) and patch-type resolution."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import UnsupportedMediaType
from kubesim.cluster.patches import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, merge_patch, patch_kind


@pytest.mark.parametrize(
    ("target", "patch", "result"),
    [
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
        ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
        ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
        (["a", "b"], ["c", "d"], ["c", "d"]),
        ({"a": "b"}, ["c"], ["c"]),
        ({"a": "foo"}, None, None),
        ({"a": "foo"}, "bar", "bar"),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
        ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
        ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ],
)
def test_rfc7386_examples(target: Any, patch: Any, result: Any) -> None:
    assert merge_patch(target, patch) == result


def test_patch_type_names() -> None:
    assert patch_kind("merge", True) == MERGE_PATCH
    assert patch_kind("json", False) == JSON_PATCH
    assert patch_kind("strategic", True) == STRATEGIC_MERGE_PATCH
    assert patch_kind(STRATEGIC_MERGE_PATCH, True) == STRATEGIC_MERGE_PATCH
    with pytest.raises(UnsupportedMediaType):
        patch_kind("strategic", False)
    with pytest.raises(UnsupportedMediaType):
        patch_kind("apply", True)
