"""The JSONPath subset CRD printer columns use (k8s.io/client-go util/jsonpath): fields, indexes,
wildcards and filters, e.g. `.status.conditions[?(@.type=="Ready")].status`.

`find` returns every match in document order (the table convertor prints the first one).
Unsupported syntax raises JSONPathError, which the caller turns into an empty cell.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["JSONPathError", "find"]

_MAX_PATH = 512
_FIELD = re.compile(r"[A-Za-z0-9_\-/$]+")
_FILTER = re.compile(r"""^\?\(@((?:\.[A-Za-z0-9_\-/]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$""")


class JSONPathError(ValueError):
    """The path is malformed or uses syntax this subset does not evaluate."""


def _literal(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        raise JSONPathError(f"unsupported filter value {text!r}") from None


def _lookup(node: Any, fields: list[str]) -> tuple[bool, Any]:
    for name in fields:
        if not isinstance(node, Mapping) or name not in node:
            return False, None
        node = node[name]
    return True, node


def _matches(item: Any, fields: list[str], op: str | None, literal: Any) -> bool:
    found, value = _lookup(item, fields)
    if op is None:
        return found
    if not found:
        return False
    if op == "==":
        return bool(value == literal)
    if op == "!=":
        return bool(value != literal)
    numbers = (int, float)
    if isinstance(value, numbers) and isinstance(literal, numbers) and not isinstance(value, bool):
        return {"<": value < literal, ">": value > literal, "<=": value <= literal, ">=": value >= literal}[op]
    return False


def _children(node: Any) -> list[Any]:
    if isinstance(node, Mapping):
        return [node[k] for k in sorted(node)]
    return list(node) if isinstance(node, list) else []


def _bracket(nodes: list[Any], inner: str) -> list[Any]:
    inner = inner.strip()
    if inner == "*":
        return [c for n in nodes for c in _children(n)]
    if inner[:1] in "'\"" and inner[-1:] == inner[:1] and len(inner) >= 2:
        return [n[inner[1:-1]] for n in nodes if isinstance(n, Mapping) and inner[1:-1] in n]
    if re.fullmatch(r"-?\d+", inner):
        index = int(inner)
        return [n[index] for n in nodes if isinstance(n, list) and -len(n) <= index < len(n)]
    found = _FILTER.match(inner)
    if found is None:
        raise JSONPathError(f"unsupported JSONPath expression [{inner}]")
    fields = found.group(1).strip(".").split(".")
    op, literal = found.group(2), _literal(found.group(3)) if found.group(2) else None
    return [item for n in nodes for item in (n if isinstance(n, list) else _children(n))
            if _matches(item, fields, op, literal)]


def find(obj: Any, path: str) -> list[Any]:
    """The values `path` (".a.b[0]", "{.a[*].b}") selects in `obj`; [] when nothing matches."""
    path = path.strip()
    if len(path) > _MAX_PATH:
        raise JSONPathError("the JSONPath is too long")
    if path.startswith("{") and path.endswith("}"):
        path = path[1:-1].strip()
    nodes, i = [obj], 0
    while i < len(path):
        ch = path[i]
        if ch == ".":
            if path.startswith(".*", i):
                nodes, i = [c for n in nodes for c in _children(n)], i + 2
                continue
            field = _FIELD.match(path, i + 1)
            if field is None:
                if i == len(path) - 1 and i == 0:  # "." alone: the object itself
                    break
                raise JSONPathError(f"unsupported JSONPath at {path[i:]!r}")
            name = field.group(0)
            nodes = [n[name] for n in nodes if isinstance(n, Mapping) and name in n]
            i = field.end()
        elif ch == "[":
            depth, j = 0, i
            while j < len(path):
                depth += {"[": 1, "]": -1}.get(path[j], 0)
                if depth == 0:
                    break
                j += 1
            if j >= len(path):
                raise JSONPathError("unterminated [ in JSONPath")
            nodes, i = _bracket(nodes, path[i + 1:j]), j + 1
        else:
            raise JSONPathError(f"unsupported JSONPath at {path[i:]!r}")
    return nodes
