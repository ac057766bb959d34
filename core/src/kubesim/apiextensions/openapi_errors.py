"""kube-openapi's validation messages and apiextensions' mapping of them to field errors.

Wording from k8s.io/kube-openapi pkg/validation/errors/schema.go; the mapping (Required,
NotSupported, TooLong, TooMany, else Invalid) from apiextensions-apiserver
pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors. Every message says
"<path> in body ..." as the API server does for a custom resource.
"""

from __future__ import annotations

import json
from datetime import date, time
from decimal import Decimal
from typing import Any

from kubesim.k8s.validation import FieldError, invalid

__all__ = [
    "go_number",
    "invalid_type",
    "not_supported",
    "too_long",
    "too_many",
    "type_name",
    "value_error",
]

_INT64 = 2**63


def go_number(x: float | int) -> str:
    """A number as Go's %v prints a float64: shortest digits, exponent below 1e-4 or from 1e6."""
    if isinstance(x, int) and not isinstance(x, bool):
        x = float(x) if abs(x) < 2**1023 else float("inf") * (1 if x > 0 else -1)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "0"
    sign, digits, exp = Decimal(repr(x)).normalize().as_tuple()
    assert isinstance(exp, int)
    text = "".join(map(str, digits))
    e = len(digits) + exp - 1
    neg = "-" if sign else ""
    if e < -4 or e >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{neg}{mantissa}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    if e < 0:
        return f"{neg}0.{'0' * (-e - 1)}{text}"
    whole = text[: e + 1].ljust(e + 1, "0")
    frac = text[e + 1:]
    return f"{neg}{whole}{'.' + frac if frac else ''}"


def type_name(value: Any) -> str:
    """The JSON type kube-openapi reports for a decoded value (an int beyond int64 is a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer" if -_INT64 <= value < _INT64 else "number"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, (date, time)):
        return "string"  # a YAML timestamp: sigs.k8s.io/yaml turns it into a JSON string
    return "object"


def invalid_type(path: str, expected: str, got: str) -> FieldError:
    """InvalidType: `p: Invalid value: "string": p in body must be of type integer: "string"`."""
    return invalid(path, got, f"{path} in body must be of type {expected}: {json.dumps(got)}")


def value_error(path: str, value: Any, message: str) -> FieldError:
    """Any other kube-openapi failure: field.Invalid with the message `<path> in body <message>`."""
    return invalid(path, value, f"{path} in body {message}")


def not_supported(path: str, value: Any, allowed: list[Any]) -> FieldError:
    """An enum failure: `p: Unsupported value: "c": supported values: "a", "b"`."""
    shown = [v if isinstance(v, str) else json.dumps(v, separators=(",", ":")) for v in allowed]
    supported = ", ".join(json.dumps(s) for s in shown)
    return FieldError("Unsupported value", path, value, f"supported values: {supported}")


def too_long(path: str, maximum: int) -> FieldError:
    """maxLength: `p: Too long: may not be more than 5 bytes` (field.TooLong)."""
    unit = "byte" if maximum == 1 else "bytes"
    return FieldError("Too long", path, detail=f"may not be more than {maximum} {unit}")


def too_many(path: str, actual: int, maximum: int) -> FieldError:
    """maxItems and maxProperties: `p: Too many: 4: must have at most 3 items` (field.TooMany)."""
    return FieldError("Too many", path, actual, f"must have at most {maximum} items")

