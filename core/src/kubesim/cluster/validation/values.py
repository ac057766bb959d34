"""Field checks shared by the kinds: integer ranges, enums, immutable fields, nested paths.

Messages follow k8s.io/apimachinery pkg/api/validation (ValidateNonnegativeField,
ValidateImmutableField), pkg/util/validation (InclusiveRangeError) and
pkg/util/validation/field (NotSupported), so they read as the API server's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesim.k8s.validation import FieldError, invalid

__all__ = [
    "IMMUTABLE",
    "NEGATIVE",
    "NOT_POSITIVE",
    "as_int",
    "as_list",
    "as_map",
    "immutable",
    "in_range",
    "nonnegative",
    "not_a_list",
    "not_supported",
    "positive",
    "under",
]

NEGATIVE = "must be greater than or equal to 0"
NOT_POSITIVE = "must be greater than zero"
IMMUTABLE = "field is immutable"


def as_int(value: Any) -> int | None:
    """The value when it is a JSON integer (not a bool), else None: wrong types are the decoder's."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def as_map(value: Any) -> Mapping[str, Any]:
    """The value when it is a JSON object, else an empty one (type errors are reported elsewhere)."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> Sequence[Any]:
    """The value when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def not_a_list(value: Any, path: str, items: str) -> list[FieldError]:
    """A field that must be a JSON array (absent is fine); the decoder normally says so first."""
    if value is None or isinstance(value, list):
        return []
    return [invalid(path, value, f"must be a list of {items}")]


def nonnegative(value: Any, path: str) -> list[FieldError]:
    """ValidateNonnegativeField: an integer below 0 is invalid (absent values pass)."""
    n = as_int(value)
    return [invalid(path, n, NEGATIVE)] if n is not None and n < 0 else []


def positive(value: Any, path: str) -> list[FieldError]:
    """An integer of 0 or below is invalid (isNotPositiveErrorMsg)."""
    n = as_int(value)
    return [invalid(path, n, NOT_POSITIVE)] if n is not None and n <= 0 else []


def in_range(value: Any, path: str, low: int, high: int) -> list[FieldError]:
    """validation.InclusiveRangeError for an integer outside [low, high]."""
    n = as_int(value)
    if n is not None and not low <= n <= high:
        return [invalid(path, n, f"must be between {low} and {high}, inclusive")]
    return []


def not_supported(path: str, value: Any, supported: Iterable[str]) -> FieldError:
    """field.NotSupported: `Unsupported value: "X": supported values: "a", "b"`."""
    return FieldError("Unsupported value", path, value, "supported values: " + ", ".join(f'"{s}"' for s in supported))


def immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    """ValidateImmutableField: the value may not change on update."""
    return [] if new == old else [invalid(path, new, IMMUTABLE)]


def under(prefix: str, errors: Iterable[FieldError]) -> list[FieldError]:
    """The errors with `prefix.` put in front of their paths (a pod spec checked inside a template)."""
    return [FieldError(e.type, f"{prefix}.{e.field}", e.value, e.detail) for e in errors]
