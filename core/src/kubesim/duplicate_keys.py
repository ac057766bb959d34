"""Duplicate mapping keys in user-written YAML and JSON: an error naming the key's field path.

PyYAML and json keep the last of two equal keys without a word, so an operation with two
`step:` keys would run at one of them. Kubernetes' strict decoding reports a repeated field
too (sigs.k8s.io/json UnmarshalStrict, used by kube-apiserver's field validation and by
kube-scheduler's --config). Every loader of user documents (scenarios, patch bodies,
results, scheduler configurations, the kubelet's sim spec) uses this one implementation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import attrs
import yaml

from kubesim.errors import Problem
from kubesim.input_limits import (
    MAX_DEPTH,
    SafeLoader,
    check_yaml_node,
    check_yaml_text,
    json_loads,
    may_hold_aliases,
    valid_unicode,
)

__all__ = ["DuplicateKey", "DuplicateKeys", "load_json", "load_yaml", "yaml_duplicate_keys"]

_MERGE_TAG = "tag:yaml.org,2002:merge"


@attrs.frozen
class DuplicateKey:
    """A mapping key written twice: its field path and, from YAML, where both are
    ((line, column) of the first and the repeated key, 1-based)."""

    path: str
    marks: tuple[tuple[int, int], tuple[int, int]] | None = None

    @property
    def message(self) -> str:
        """"duplicate key", with the lines (or columns) of both keys when known."""
        if self.marks is None:
            return "duplicate key"
        (line, column), (again, again_column) = self.marks
        if line == again:
            return f"duplicate key (line {line}, columns {column} and {again_column})"
        return f"duplicate key (lines {line} and {again})"

    def problem(self, file: str | None = None, under: str = "") -> Problem:
        """The Problem for this key, its path prefixed by `under` (where the document sits)."""
        return Problem(_join(under, self.path), self.message, file)


class DuplicateKeys(ValueError):
    """A document that repeats mapping keys; `duplicates` lists each one in document order."""

    def __init__(self, duplicates: Sequence[DuplicateKey]) -> None:
        self.duplicates = tuple(duplicates)
        super().__init__("; ".join(f"{d.path}: {d.message}" for d in self.duplicates))


def _join(path: str, key: str) -> str:
    """`path.key`, or `path[i]` when key is an index (`[i]`)."""
    if not path or not key:
        return path or key
    return f"{path}{key}" if key.startswith("[") else f"{path}.{key}"


def yaml_duplicate_keys(node: yaml.Node) -> list[DuplicateKey]:
    """Every repeated scalar key in the mappings of a composed YAML node tree (merge keys
    `<<` may repeat what they merge: that is their purpose)."""
    found: list[DuplicateKey] = []
    visited: set[int] = set()  # aliases share nodes (and may recurse): walk each once

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in visited:
            return
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], tuple[int, int]] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE_TAG:
                    mark, ident = key_node.start_mark, (key_node.tag, key_node.value)
                    where = (mark.line + 1, mark.column + 1)
                    if ident in first:
                        found.append(DuplicateKey(_join(path, key), (first[ident], where)))
                    else:
                        first[ident] = where
                walk(value_node, path if key_node.tag == _MERGE_TAG else _join(path, key))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, _join(path, f"[{i}]"))

    walk(node, "")
    return found


def load_yaml(text: str, loader: type[yaml.SafeLoader] = SafeLoader, max_depth: int = MAX_DEPTH) -> Any:
    """One YAML document, like yaml.load(text, loader); DuplicateKeys when a mapping repeats
    a key, kubesim.input_limits.InputLimitError beyond its limits (nesting, aliases).
    yaml.YAMLError on a syntax error."""
    check_yaml_text(text, loader, max_depth)
    parser = loader(text)
    try:
        node = parser.get_single_node()
        if node is None:
            return None
        if may_hold_aliases(text):
            check_yaml_node(node, max_depth)
        duplicates = yaml_duplicate_keys(node)
        if duplicates:
            raise DuplicateKeys(duplicates)
        return valid_unicode(text, parser.construct_document(node))
    finally:
        parser.dispose()


class _Repeated(dict[str, Any]):
    """A decoded JSON object that wrote some of its keys more than once (json keeps the last)."""

    __slots__ = ("repeated",)

    def __init__(self, items: list[tuple[str, Any]]) -> None:
        super().__init__(items)
        seen: set[str] = set()
        self.repeated: list[str] = []
        for key, _ in items:
            if key in seen:
                self.repeated.append(key)
            seen.add(key)


def load_json(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads, but DuplicateKeys when an object repeats a key, InputLimitError beyond
    kubesim.input_limits (nesting, numbers); json.JSONDecodeError on a syntax error (see
    kubesim.json_syntax for its description)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    repeats = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeats
        out = dict(items)
        if len(out) == len(items):
            return out
        repeats = True
        return _Repeated(items)

    data = json_loads(text, pairs, max_depth, fix_unicode=False)  # the fix would drop _Repeated
    if repeats:
        raise DuplicateKeys([DuplicateKey(valid_unicode(text, d.path)) for d in _json_duplicates(data, "")])
    return valid_unicode(text, data)


def _json_duplicates(value: Any, path: str) -> list[DuplicateKey]:
    """The repeated keys of marked objects in a decoded JSON tree, in document order."""
    out: list[DuplicateKey] = []
    if isinstance(value, dict):
        if isinstance(value, _Repeated):
            out.extend(DuplicateKey(_join(path, k)) for k in value.repeated)
        for k, v in value.items():
            out.extend(_json_duplicates(v, _join(path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_json_duplicates(v, _join(path, f"[{i}]")))
    return out
