"""What apiextensions-apiserver does with a custom resource's structural schema: pruning and validation.

kubesim's cluster stores custom resources without looking at their openAPIV3Schema, so the
imperator plugins do this part of the API server themselves, for the schema keywords their
CRDs use: `type`, `properties`, `required`, `items`, `enum`, `minimum`, `pattern`,
`minLength`, `maxLength` and `x-kubernetes-int-or-string`. Messages follow
apiextensions-apiserver pkg/apiserver/validation/validation.go (ValidateCustomResource), which
turns kube-openapi's errors into field errors:

    spec.nodePool: Required value
    spec.nodePool[0].mode: Unsupported value: "down": supported values: "ready", "maintenance"
    spec.machineTypes[0].available: Invalid value: -1: spec.machineTypes[0].available in body should be greater than or equal to 0
    spec.machineTypes[0].available: Invalid value: "string": spec.machineTypes[0].available in body must be of type integer: "string"

`format` (date-time, int32) is not checked, and a value of the wrong type for an
int-or-string field (a quantity) is reported as `must be of type integer,string`, where
kube-openapi words its anyOf failure differently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from kubesim.k8s.validation import FieldError, invalid, required

__all__ = ["prune", "validate_custom_resource"]

_ROOT_KEPT = ("apiVersion", "kind", "metadata")


def prune(schema: Mapping[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of `obj` without the fields its schema does not know (apiextensions pruning).

    apiVersion, kind and metadata are kept as they are; metadata is the core's business.
    """
    props = schema.get("properties") or {}
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in _ROOT_KEPT:
            out[key] = value
        elif key in props:
            out[key] = _prune(props[key], value)
    return out


def _prune(schema: Mapping[str, Any], value: Any) -> Any:
    if isinstance(value, dict) and schema.get("type") == "object":
        props = schema.get("properties")
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return {k: _prune(props[k], v) if props and k in props else v for k, v in value.items()}
        props = props or {}
        return {k: _prune(props[k], v) for k, v in value.items() if k in props}
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [_prune(schema["items"], v) for v in value]
    return value


def validate_custom_resource(schema: Mapping[str, Any], obj: Mapping[str, Any]) -> list[FieldError]:
    """Field errors of `obj` against its CRD version's openAPIV3Schema (metadata not included)."""
    errs: list[FieldError] = []
    props = schema.get("properties") or {}
    for key in schema.get("required") or ():
        if key not in obj:
            errs.append(required(key))
    for key in sorted(props):
        if key in ("metadata", "apiVersion", "kind") or key not in obj:
            continue
        _check(props[key], obj[key], key, errs)
    return errs


def _type_name(value: Any) -> str:
    """The JSON type of a decoded value, as kube-openapi names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _has_type(value: Any, wanted: str) -> bool:
    actual = _type_name(value)
    return actual == wanted or (wanted == "number" and actual == "integer")


@lru_cache(maxsize=64)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _check(schema: Mapping[str, Any], value: Any, path: str, errs: list[FieldError]) -> None:
    if schema.get("x-kubernetes-int-or-string"):
        actual = _type_name(value)
        if actual not in ("integer", "string"):
            errs.append(invalid(path, actual, f'{path} in body must be of type integer,string: "{actual}"'))
            return
    else:
        wanted = schema.get("type")
        if isinstance(wanted, str) and not _has_type(value, wanted):
            actual = _type_name(value)
            errs.append(invalid(path, actual, f'{path} in body must be of type {wanted}: "{actual}"'))
            return
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        supported = ", ".join(json.dumps(v) for v in enum)
        errs.append(FieldError("Unsupported value", path, value, f"supported values: {supported}"))
    minimum = schema.get("minimum")
    if minimum is not None and _type_name(value) in ("integer", "number") and value < minimum:
        errs.append(invalid(path, value, f"{path} in body should be greater than or equal to {minimum}"))
    if isinstance(value, str):
        max_length = schema.get("maxLength")
        if max_length is not None and len(value) > max_length:
            errs.append(FieldError("Too long", path, detail=f"may not be more than {max_length} bytes"))
        min_length = schema.get("minLength")
        if min_length is not None and len(value) < min_length:
            errs.append(invalid(path, value, f"{path} in body should be at least {min_length} chars long"))
        pattern = schema.get("pattern")
        if pattern is not None and not _pattern(pattern).search(value):
            errs.append(invalid(path, value, f"{path} in body should match '{pattern}'"))
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key in schema.get("required") or ():
            if key not in value:
                errs.append(required(f"{path}.{key}"))
        for key in sorted(props):
            if key in value:
                _check(props[key], value[key], f"{path}.{key}", errs)
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            _check(schema["items"], item, f"{path}[{i}]", errs)
