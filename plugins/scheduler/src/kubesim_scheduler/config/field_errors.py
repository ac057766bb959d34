"""Problems worded like apimachinery's field.Error, so messages match kube-scheduler's.

Upstream: k8s.io/apimachinery/pkg/util/validation/field/errors.go (ErrorBody).
A Problem's path is the field path; its message is the error body
(`Invalid value: 101: not in valid range [0-100]`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kubesim.errors import Problem

__all__ = [
    "duplicate",
    "forbidden",
    "go_value",
    "index",
    "invalid",
    "join",
    "not_supported",
    "required",
]


def join(path: str, child: object) -> str:
    """Append a child field (or an `[i]` index) to a field path; a key that is not a string
    (YAML allows 1 or null) is shown as JSON writes it."""
    if not isinstance(child, str):
        child = json.dumps(child)
    if not path:
        return child
    if not child:
        return path
    return path + child if child.startswith("[") else f"{path}.{child}"


def index(path: str, i: int | str) -> str:
    """`path[i]`; a string index is a map key (field.Path.Key)."""
    return f"{path}[{i}]"


def go_value(value: Any) -> str:
    """Render a bad value as field.Error does: numbers bare, strings quoted, the rest as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_plain)


def _plain(value: Any) -> Any:
    """JSON fallback for attrs objects and tuples inside bad values."""
    from kubesim_scheduler.config.converter import unstructure

    return unstructure(value)


def _body(kind: str, value: Any, detail: str, *, with_value: bool = True) -> str:
    body = f"{kind}: {go_value(value)}" if with_value else kind
    return f"{body}: {detail}" if detail else body


def invalid(path: str, value: Any, detail: str) -> Problem:
    """field.Invalid."""
    return Problem(path, _body("Invalid value", value, detail))


def required(path: str, detail: str = "") -> Problem:
    """field.Required."""
    return Problem(path, _body("Required value", None, detail, with_value=False))


def duplicate(path: str, value: Any) -> Problem:
    """field.Duplicate."""
    return Problem(path, _body("Duplicate value", value, ""))


def forbidden(path: str, detail: str) -> Problem:
    """field.Forbidden."""
    return Problem(path, _body("Forbidden", None, detail, with_value=False))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> Problem:
    """field.NotSupported, listing the supported values."""
    quoted = ", ".join(json.dumps(v) for v in valid)
    return Problem(path, _body("Unsupported value", value, f"supported values: {quoted}" if quoted else ""))
