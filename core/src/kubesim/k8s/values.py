"""Decoded JSON values shown in messages as JSON, never as Python reprs.

A message names `null`, `true`, `{"a":1}` or "a list", never `None`, `True`, `{'a': 1}` or
`list`; an integer too long for Python to print (4300 digits and more) is described by
its length instead of raising.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

__all__ = ["json_kind", "non_json_value", "show_value"]

_MAX_SHOWN_BITS = 10_000
"""Integers of more bits (about 3,000 digits) are described, not printed."""


def _digits(value: int) -> int:
    return int(abs(value).bit_length() * math.log10(2)) + 1


def show_value(value: Any) -> str:
    """`value` as JSON text (apimachinery prints field values so); long integers by their size."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value).bit_length() > _MAX_SHOWN_BITS:
            return f"a number of about {_digits(value)} digits"
        return str(value)
    if isinstance(value, float):
        return json.dumps(value) if math.isfinite(value) else str(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # a huge integer inside a list or object
        return json_kind(value)


def json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages (never a Python type name)."""
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__  # not from JSON or YAML: a programming error


_JSON_SCALARS = (str, int, float, bool, type(None))


def _yaml_tag(value: Any) -> str:
    """The YAML tag that builds a value of this type (a safe loader builds no other)."""
    if isinstance(value, bytes):
        return "a !!binary value"
    if isinstance(value, (set, frozenset)):
        return "a !!set value"
    if isinstance(value, tuple):
        return "an !!omap or !!pairs entry"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"the !!timestamp {value.isoformat()}"
    return "a tagged value"


def _all_json(value: Any) -> bool:
    """Whether non_json_value finds nothing in `value` (the same walk, without paths)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif not isinstance(item, _JSON_SCALARS):
            return False
    return True


def non_json_value(value: Any, path: str = "") -> str | None:
    """`<path>: <what is wrong>` for the first value in a decoded tree that JSON, and so the
    Kubernetes API, cannot hold: NaN or infinity (YAML's .nan, .inf), or what an explicit YAML
    tag such as !!binary, !!set or !!timestamp builds. None when there is none."""
    if _all_json(value):  # the common case, without building a path for every value
        return None
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend((v, f"{where}.{k}") for k, v in reversed(list(item.items())))
        elif kind is list:
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(item))))
        elif kind is float:
            if not math.isfinite(item):
                return f"{where}: Invalid value: {item}: not a JSON number (JSON has no NaN or infinity)"
        elif not isinstance(item, _JSON_SCALARS):
            return (f"{where}: Invalid value: {_yaml_tag(item)}: not a JSON value (YAML tags such as !!binary, "
                    "!!set and !!timestamp have no JSON form; quote the value)")
    return None
