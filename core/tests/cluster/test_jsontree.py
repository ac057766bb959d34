"""copy_tree and load_document."""

from __future__ import annotations

import pytest
from kubesim.cluster import copy_tree, load_document
from kubesim.errors import BadRequest


def test_copy_tree_is_deep_and_shares_leaves() -> None:
    tree = {"a": [{"b": 1}, "s"], "c": {"d": None, "e": True}}
    copy = copy_tree(tree)
    assert copy == tree
    copy["a"][0]["b"] = 2
    copy["c"]["d"] = "x"
    assert tree == {"a": [{"b": 1}, "s"], "c": {"d": None, "e": True}}


def test_load_document_reads_json_and_yaml_and_keeps_timestamps_as_strings() -> None:
    assert load_document('{"a": [1, 2]}') == {"a": [1, 2]}
    assert load_document(b"a: 1\nwhen: 2025-01-01T00:00:00Z\n") == {"a": 1, "when": "2025-01-01T00:00:00Z"}


def test_load_document_rejects_garbage() -> None:
    with pytest.raises(BadRequest):
        load_document("a: [1, 2")


@pytest.mark.parametrize(("text", "message"), [
    ('{"metadata": {"labels": {"a": "1", "a": "2"}}}', "invalid document: metadata.labels.a: duplicate key"),
    ("spec:\n  containers:\n  - name: a\n    name: b\n",
     "invalid document: spec.containers[0].name: duplicate key (lines 3 and 4)"),
])
def test_load_document_rejects_a_key_written_twice(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        load_document(text)
    assert info.value.message == message
