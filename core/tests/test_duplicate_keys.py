"""Duplicate mapping keys: one check for every user document (YAML node trees and JSON)."""

from __future__ import annotations

import json

import pytest
import yaml

from kubesim.duplicate_keys import DuplicateKey, DuplicateKeys, load_json, load_yaml, yaml_duplicate_keys
from kubesim.errors import Problem


def yaml_paths(text: str) -> list[str]:
    return [d.path for d in yaml_duplicate_keys(yaml.compose(text, Loader=yaml.SafeLoader))]


@pytest.mark.parametrize(("text", "paths"), [
    ("a: 1\nb: 2\nc: {a: 1}\n", []),
    ("a: 1\na: 2\n", ["a"]),
    ("a: 1\na: 2\na: 3\n", ["a", "a"]),
    ("spec:\n  operations:\n  - step: 0\n  - step: 1\n    step: 2\n", ["spec.operations[1].step"]),
    ("- - {x: 1, x: 2}\n", ["[0][0].x"]),
    ("'1': a\n1: b\n", []),  # a string and an integer key are different keys
    ("'a': 1\na: 2\n", ["a"]),  # quoting does not make a different key
    ("base: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n", []),  # a merge key may repeat what it merges
    ("x: &a [1, *a]\n", []),  # a recursive alias ends
    ("d: &d {k: 1, k: 2}\ne: *d\n", ["d.k"]),  # a shared mapping is reported once, where it is written
])
def test_yaml_duplicate_keys(text: str, paths: list[str]) -> None:
    assert yaml_paths(text) == paths


def test_a_duplicate_says_where_both_keys_are() -> None:
    node = yaml.compose("metadata:\n  name: a\n  labels: {x: '1', x: '2'}\n  name: b\n", Loader=yaml.SafeLoader)
    assert yaml_duplicate_keys(node) == [
        DuplicateKey("metadata.labels.x", ((3, 12), (3, 20))),
        DuplicateKey("metadata.name", ((2, 3), (4, 3))),
    ]
    assert [d.message for d in yaml_duplicate_keys(node)] == [
        "duplicate key (line 3, columns 12 and 20)", "duplicate key (lines 2 and 4)"]


def test_a_problem_is_placed_under_the_document() -> None:
    dup = DuplicateKey("metadata.labels.x")
    assert dup.problem("s.yaml", "spec.operations[0].patchOperation.patch") == Problem(
        "spec.operations[0].patchOperation.patch.metadata.labels.x", "duplicate key", "s.yaml")
    assert DuplicateKey("[0].op").problem(None, "patch").path == "patch[0].op"


def test_load_yaml_is_one_document_without_duplicates() -> None:
    assert load_yaml("a: [1, {b: 2}]\n") == {"a": [1, {"b": 2}]}
    assert load_yaml("") is None
    with pytest.raises(DuplicateKeys) as info:
        load_yaml("a: 1\nb:\n- {c: 1}\n- {c: 1, c: 2}\n")
    assert str(info.value) == "b[1].c: duplicate key (line 4, columns 4 and 10)"
    with pytest.raises(yaml.YAMLError):
        load_yaml("a: 1\n---\nb: 2\n")  # one document only, as yaml.load


def test_load_yaml_uses_the_given_loader() -> None:
    class NoTimestamps(yaml.SafeLoader):
        yaml_implicit_resolvers = {
            ch: [(tag, rx) for tag, rx in rs if tag != "tag:yaml.org,2002:timestamp"]
            for ch, rs in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

    assert load_yaml("t: 2025-01-01\n", NoTimestamps) == {"t": "2025-01-01"}


@pytest.mark.parametrize(("text", "paths"), [
    ('{"a": 1, "b": {"a": 2}}', []),
    ('{"a": 1, "a": 1}', ["a"]),
    ('[{"op": "add", "path": "/x", "op": "remove"}]', ["[0].op"]),
    ('{"spec": {"operations": [{"step": 0}, {"step": 1, "step": 2}]}, "kind": "A", "kind": "B"}',
     ["kind", "spec.operations[1].step"]),
    ('{"a": {"x": 1, "x": 2}, "a": {"y": 1, "y": 2}}', ["a", "a.y"]),  # json keeps the last "a"
    # a lone surrogate escape elsewhere in the text (finding 18: the duplicates were lost)
    ('{"note": "\\ud864", "b": {"c": 1, "c": 2}}', ["b.c"]),
    ('{"\\ud864": {"c": 1, "c": 2}}', ["\ufffd.c"]),
])
def test_load_json_duplicate_keys(text: str, paths: list[str]) -> None:
    if not paths:
        assert load_json(text) == json.loads(text)
        return
    with pytest.raises(DuplicateKeys) as info:
        load_json(text)
    assert [d.path for d in info.value.duplicates] == paths
    assert all(d.message == "duplicate key" for d in info.value.duplicates)


def test_duplicate_keys_is_a_value_error_naming_every_key() -> None:
    with pytest.raises(ValueError, match=r"^a: duplicate key; b\.c: duplicate key$"):
        load_json('{"a": 1, "a": 2, "b": {"c": 1, "c": 2}}')
