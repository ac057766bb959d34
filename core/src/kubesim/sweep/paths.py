"""Field paths into a document: `profiles[0].pluginConfig[name=NodeResourcesFit].args.scoringStrategy.type`.

A path is dot-separated keys; `[i]` picks a list element by index and `[key=value]` the
element whose `key` equals `value` (the way Kubernetes' own field paths name list members).
Setting a value creates what is missing on the way: mappings for absent keys, a
`{key: value}` element for an unmatched selector, an empty mapping for the index just past
a list's end. So a weight can be set in a configuration that does not list the plugin yet.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["PathError", "Step", "parse_path", "set_path"]

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]|\[([^=\]]+)=([^\]]*)\]|(\.)")
MAX_PATH_STEPS = 64


class PathError(ValueError):
    """A path that does not parse, or that cannot be followed in a document."""


@attrs.frozen
class Step:
    """One step of a path: a mapping key, a list index, or a list selector (key=value)."""

    key: str | None = None
    index: int | None = None
    match: tuple[str, str] | None = None

    def __str__(self) -> str:
        if self.key is not None:
            return self.key
        if self.index is not None:
            return f"[{self.index}]"
        assert self.match is not None
        return f"[{self.match[0]}={self.match[1]}]"


def parse_path(text: str) -> tuple[Step, ...]:
    """The steps of `text`; PathError saying where it goes wrong."""
    steps: list[Step] = []
    pos = 0
    expect_key = True
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise PathError(f"cannot parse {text!r} at character {pos + 1} (expected key, [index] or [key=value])")
        key, index, sel_key, sel_value, dot = m.groups()
        if dot is not None:
            if expect_key:
                raise PathError(f"cannot parse {text!r}: empty key at character {pos + 1}")
            expect_key = True
        elif key is not None:
            if not expect_key:
                raise PathError(f"cannot parse {text!r}: expected '.' before {key!r}")
            steps.append(Step(key=key))
            expect_key = False
        else:
            if expect_key and steps:
                raise PathError(f"cannot parse {text!r}: '[' right after '.' at character {pos + 1}")
            steps.append(Step(index=int(index)) if index is not None else Step(match=(sel_key, sel_value)))
            expect_key = False
        pos = m.end()
    if not steps or expect_key:
        raise PathError(f"cannot parse {text!r}: it ends with '.' or is empty")
    if len(steps) > MAX_PATH_STEPS:
        raise PathError(f"{text!r} has more than {MAX_PATH_STEPS} steps")
    return tuple(steps)


def _fresh(step: Step) -> Any:
    """The container a missing value must be for `step` to apply to it."""
    return {} if step.key is not None else []


def set_path(document: Mapping[str, Any] | None, path: str, value: Any) -> dict[str, Any]:
    """A deep copy of `document` with `value` at `path` (missing parts created); PathError if a
    part of the path meets something of the wrong kind."""
    steps = parse_path(path)
    root: dict[str, Any] = copy.deepcopy(dict(document)) if document is not None else {}
    node: Any
    node = root
    for n, step in enumerate(steps):
        last = n == len(steps) - 1
        where = "".join(("." if s.key is not None and i else "") + str(s) for i, s in enumerate(steps[: n + 1]))
        if step.key is not None:
            if not isinstance(node, dict):
                raise PathError(f"{path}: {where} is not a field of a mapping (found {type(node).__name__})")
            if last:
                node[step.key] = copy.deepcopy(value)
                break
            child = node.get(step.key)
            if child is None:
                child = node[step.key] = _fresh(steps[n + 1])
            node = child
            continue
        if not isinstance(node, list):
            raise PathError(f"{path}: {where} selects from a list, found {type(node).__name__}")
        if step.index is not None:
            if step.index > len(node):
                raise PathError(f"{path}: {where}: the list has {len(node)} elements")
            if step.index == len(node):
                node.append(None if last else _fresh(steps[n + 1]))
            pos = step.index
        else:
            assert step.match is not None
            k, v = step.match
            found = [i for i, e in enumerate(node) if isinstance(e, dict) and str(e.get(k)) == v]
            if len(found) > 1:
                raise PathError(f"{path}: {where} matches {len(found)} elements")
            if found:
                pos = found[0]
            else:
                node.append({k: v})
                pos = len(node) - 1
        if last:
            node[pos] = copy.deepcopy(value)
            break
        if node[pos] is None:
            node[pos] = _fresh(steps[n + 1])
        node = node[pos]
    return root
