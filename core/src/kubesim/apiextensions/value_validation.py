"""Validating a custom resource against its CRD's structural schema, as the API server does.

kube-openapi's SchemaValidator (pkg/validation/validate: type, allOf/anyOf/oneOf/not, string
length, pattern and format, number bounds, items, enum, required and properties) with the
field errors of apiextensions-apiserver's kubeOpenAPIResultToFieldErrors, then
x-kubernetes-list-type (pkg/apiserver/schema/listtype/validation.go) and embedded resources
(pkg/apiserver/schema/objectmeta/validation.go). Properties are checked in sorted order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kubesim.k8s.validation import FieldError, duplicate, invalid, is_dns1035_label, required

from .formats import FORMATS
from .openapi_errors import go_number, invalid_type, not_supported, too_long, too_many, type_name, value_error
from .structural import Schema

__all__ = ["validate_value"]

_FLOAT_INT_LIMIT = 2**53


def validate_value(schema: Schema, value: Any, path: str = "") -> list[FieldError]:
    """Every problem of `value` under `schema`; `path` names the value ("" for the object root)."""
    errs: list[FieldError] = []
    _validate(schema, value, path, errs)
    return errs


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _types(s: Schema) -> tuple[str, ...]:
    if s.int_or_string:
        return ("integer", "string")
    return (s.type,) if s.type else ()


def _type_ok(allowed: tuple[str, ...], got: str, value: Any) -> bool:
    if got in allowed:
        return True
    if got == "integer" and "number" in allowed:
        return True
    return (
        got == "number" and "integer" in allowed and isinstance(value, float)
        and value.is_integer() and abs(value) <= _FLOAT_INT_LIMIT
    )


def _validate(s: Schema, value: Any, path: str, errs: list[FieldError]) -> None:
    allowed = _types(s)
    got = type_name(value)
    if value is None and s.nullable:
        return
    if allowed and not _type_ok(allowed, got, value):
        errs.append(invalid_type(path or ".", ",".join(allowed), got))
        return
    _composition(s, value, path, errs)
    if isinstance(value, str):
        _string(s, value, path, errs)
    elif got in ("integer", "number"):
        _number(s, value, path, errs)
    elif isinstance(value, list):
        _array(s, value, path, errs)
    if s.enum is not None and not any(_json_equal(value, e) for e in s.enum):
        errs.append(not_supported(path, value, s.enum))
    if isinstance(value, dict):
        _object(s, value, path, errs)


def _composition(s: Schema, value: Any, path: str, errs: list[FieldError]) -> None:
    for sub in s.all_of:
        found = validate_value(sub, value, path)
        if found:
            errs.append(value_error(path, value, "must validate all the schemas (allOf)"))
            errs.extend(found)
    if s.any_of:
        results = [validate_value(sub, value, path) for sub in s.any_of]
        if all(results):
            errs.append(value_error(path, value, "must validate at least one schema (anyOf)"))
            errs.extend(results[0])
    if s.one_of:
        results = [validate_value(sub, value, path) for sub in s.one_of]
        if sum(1 for r in results if not r) != 1:
            errs.append(value_error(path, value, "must validate one and only one schema (oneOf)"))
    if s.not_ is not None and not validate_value(s.not_, value, path):
        errs.append(value_error(path, value, "must not validate the schema (not)"))


def _string(s: Schema, value: str, path: str, errs: list[FieldError]) -> None:
    if s.max_length is not None and len(value) > s.max_length:
        errs.append(too_long(path, s.max_length))
    if s.min_length is not None and len(value) < s.min_length:
        errs.append(value_error(path, value, f"should be at least {s.min_length} chars long"))
    if s.pattern is not None and not s.pattern.search(value):
        errs.append(value_error(path, value, f"should match '{s.pattern_text}'"))
    check: Callable[[str], bool] | None = FORMATS.get(s.format)
    if check is not None and not check(value):
        errs.append(invalid(path, value, f"{path} in body must be of type {s.format}: {json.dumps(value)}"))


def _number(s: Schema, value: float, path: str, errs: list[FieldError]) -> None:
    if s.multiple_of is not None and not _is_multiple(value, s.multiple_of):
        errs.append(value_error(path, value, f"should be a multiple of {go_number(s.multiple_of)}"))
    if s.maximum is not None and (value >= s.maximum if s.exclusive_maximum else value > s.maximum):
        word = "less than" if s.exclusive_maximum else "less than or equal to"
        errs.append(value_error(path, value, f"should be {word} {go_number(s.maximum)}"))
    if s.minimum is not None and (value <= s.minimum if s.exclusive_minimum else value < s.minimum):
        word = "greater than" if s.exclusive_minimum else "greater than or equal to"
        errs.append(value_error(path, value, f"should be {word} {go_number(s.minimum)}"))


def _is_multiple(value: float, factor: float) -> bool:
    if isinstance(value, int) and isinstance(factor, int):
        return value % factor == 0
    quotient = value / factor
    return quotient == quotient and abs(quotient) <= _FLOAT_INT_LIMIT and float(quotient).is_integer()


def _array(s: Schema, value: list[Any], path: str, errs: list[FieldError]) -> None:
    if s.items is not None:
        for i, item in enumerate(value):
            _validate(s.items, item, f"{path}[{i}]", errs)
    if s.min_items is not None and len(value) < s.min_items:
        errs.append(value_error(path, len(value), f"should have at least {s.min_items} items"))
    if s.max_items is not None and len(value) > s.max_items:
        errs.append(too_many(path, len(value), s.max_items))
    if s.list_type == "set":
        seen: set[str] = set()
        for i, item in enumerate(value):
            key = json.dumps(item, sort_keys=True, default=str)
            if key in seen:
                errs.append(duplicate(f"{path}[{i}]", item))
            seen.add(key)
    elif s.list_type == "map":
        seen_keys: set[str] = set()
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                continue
            keys = {k: item.get(k) for k in s.list_map_keys}
            key = json.dumps(keys, sort_keys=True, default=str)
            if key in seen_keys:
                errs.append(duplicate(f"{path}[{i}]", keys))
            seen_keys.add(key)


def _object(s: Schema, value: dict[str, Any], path: str, errs: list[FieldError]) -> None:
    for name in s.required:
        if name not in value:
            errs.append(required(_child(path, name)))
    for name in sorted(value, key=str):
        sub = s.properties.get(name) or s.additional_properties
        if sub is not None:
            _validate(sub, value[name], _child(path, name), errs)
    if s.min_properties is not None and len(value) < s.min_properties:
        errs.append(value_error(path, len(value), f"should have at least {s.min_properties} properties"))
    if s.max_properties is not None and len(value) > s.max_properties:
        errs.append(too_many(path, len(value), s.max_properties))
    if s.embedded_resource:
        errs.extend(_embedded(value, path))


def _embedded(value: dict[str, Any], path: str) -> list[FieldError]:
    """An x-kubernetes-embedded-resource needs apiVersion and kind (objectmeta validation.go)."""
    errs: list[FieldError] = []
    for key in ("apiVersion", "kind"):
        if key not in value:
            errs.append(required(_child(path, key), "must not be empty"))
            continue
        v = value[key]
        if not isinstance(v, str):
            errs.append(invalid(_child(path, key), v, "must be a string"))
        elif not v:
            errs.append(invalid(_child(path, key), v, "must not be empty"))
        elif key == "kind" and is_dns1035_label(v.lower()):
            errs.append(invalid(_child(path, key), v, "may have mixed case, but should otherwise match: "
                                + ",".join(is_dns1035_label(v.lower()))))
    return errs


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of decoded JSON values (true is not 1; 1 equals 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)
