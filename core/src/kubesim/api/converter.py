"""The one cattrs Converter for the Scenario API.

It maps snake_case attributes to Kubernetes camelCase JSON names, rejects unknown
keys and wrongly typed scalars (cattrs would otherwise coerce "3" to 3), omits
unset optional fields when writing, and turns structuring errors into `Problem`s
with the field path (`spec.operations[3].createOperation.object: required`).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.cols import is_sequence, list_structure_factory
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from kubesim.cluster.jsontree import copy_tree
from kubesim.errors import Problem
from kubesim.k8s.values import json_kind, non_json_value, show_value

__all__ = ["camel", "converter", "register_enum", "register_interned", "register_shared", "structure", "unstructure",
           "unstructure_shared"]

T = TypeVar("T")

_RENAMES = {"id": "id"}


def camel(name: str) -> str:
    """snake_case -> camelCase, the JSON name of an attribute."""
    if name in _RENAMES:
        return _RENAMES[name]
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


converter = cattrs.Converter(forbid_extra_keys=True)

shared_converter = cattrs.Converter()
"""Unstructures only, sharing what it can with the value written: see `unstructure_shared`."""


def _strict(kind: type, label: str) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _: Any) -> Any:
        if isinstance(value, bool) and kind is not bool:
            raise TypeError(f"expected {label}, got a boolean")
        if not isinstance(value, kind):
            raise TypeError(f"expected {label}, got {_describe(value)}")
        return value

    return hook


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)):
        return f"the number {show_value(value)}"
    return f"{json_kind(value)} {show_value(value)}"


converter.register_structure_hook(str, _strict(str, "a string"))
converter.register_structure_hook(int, _strict(int, "an integer"))
converter.register_structure_hook(bool, _strict(bool, "a boolean"))


def _structure_object(value: Any, _: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected a mapping (a Kubernetes object), got {_describe(value)}")
    return value


converter.register_structure_hook_func(lambda t: t == dict[str, Any], _structure_object)
# Kubernetes objects are plain JSON trees: written out as a copy of the tree, about five
# times faster than cattrs' per-value dispatch (a large result holds tens of thousands).
converter.register_unstructure_hook_func(lambda t: t == dict[str, Any], copy_tree)
# ... or, for final values nobody mutates (timeline events), the objects themselves.
shared_converter.register_unstructure_hook_func(lambda t: t == dict[str, Any], lambda value: value)


def _structure_enum(value: Any, cls: type[enum.Enum]) -> enum.Enum:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in cls)
        raise ValueError(f"expected one of {allowed}, got {_describe(value)}") from None


def register_enum(cls: type[enum.Enum]) -> None:
    """Map an enum to and from its value. Needed per class: str-based enums would
    otherwise dispatch to the plain `str` hooks by their MRO."""
    converter.register_structure_hook(cls, _structure_enum)
    converter.register_unstructure_hook(cls, lambda e: e.value)
    shared_converter.register_unstructure_hook(cls, lambda e: e.value)


def _patch_text(value: Any, _: Any) -> str:
    """A patch is a string (KEP); a YAML mapping or list is accepted and stored as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        problem = non_json_value(value)
        if problem:  # json.dumps would fail with Python's words, or write NaN
            raise TypeError(problem.lstrip(".: ") if problem.startswith(":") else problem.lstrip("."))
        return json.dumps(value, separators=(",", ":"))
    raise TypeError(f"expected a string (or a mapping/list), got {_describe(value)}")


def _field_overrides(cls: type, *, with_struct: bool) -> dict[str, Any]:
    overrides = {}
    for a in attrs.fields(cls):
        kw: dict[str, Any] = {"rename": camel(a.name), "omit_if_default": a.default is None}
        if with_struct and cls.__name__ == "PatchOperation" and a.name == "patch":
            kw["struct_hook"] = _patch_text
        overrides[a.name] = override(**kw)
    return overrides


def _structure_factory(cls: type) -> Callable[[Any, Any], Any]:
    fn: Callable[[Any, Any], Any] = make_dict_structure_fn(
        cls, converter, _cattrs_forbid_extra_keys=True, **_field_overrides(cls, with_struct=True)
    )

    def hook(value: Any, t: Any) -> Any:
        if not isinstance(value, dict):
            raise TypeError(f"expected a mapping, got {_describe(value)}")
        return fn(value, t)

    return hook


def _unstructure_factory(cls: type, conv: cattrs.Converter) -> Callable[[Any], Any]:
    return make_dict_unstructure_fn(cls, conv, **_field_overrides(cls, with_struct=False))


converter.register_structure_hook_factory(attrs.has, _structure_factory)


def _list_factory(t: Any, conv: cattrs.Converter) -> Callable[[Any, Any], Any]:
    inner = list_structure_factory(t, conv)

    def hook(value: Any, cl: Any) -> Any:
        if not isinstance(value, list):
            raise TypeError(f"expected a list, got {_describe(value)}")
        return inner(value, cl)

    return hook


converter.register_structure_hook_factory(is_sequence, _list_factory)
converter.register_unstructure_hook_factory(attrs.has, _unstructure_factory)
shared_converter.register_unstructure_hook_factory(attrs.has, _unstructure_factory)


def register_interned(cls: type, *, max_size: int = 65536) -> None:
    """Structure a frozen attrs class of int fields through a cache: equal values share one instance.

    For the per-node, per-plugin score results, of which a large result holds hundreds of
    thousands with a few dozen distinct values; anything but a well-formed value takes the
    generated hook, which reports the problem with its field path.
    """
    generated = _structure_factory(cls)
    names = [camel(a.name) for a in attrs.fields(cls)]
    cache: dict[tuple[Any, ...], Any] = {}
    int_types = (int,) * len(names)

    def hook(value: Any, t: Any) -> Any:
        if type(value) is dict and len(value) == len(names):
            key = tuple(map(value.get, names))
            if tuple(map(type, key)) == int_types:  # no bools, floats or missing fields
                hit = cache.get(key)
                if hit is None:
                    if len(cache) >= max_size:
                        cache.clear()
                    hit = cache[key] = cls(*key)
                return hit
        return generated(value, t)

    converter.register_structure_hook(cls, hook)
    register_shared(cls, max_size=max_size)


def register_shared(cls: Any, *, max_size: int = 65536,
                    key: Callable[[Any], Any] | None = None) -> None:
    """`unstructure_shared` writes equal values of `cls` (a frozen attrs class, or a type such as
    dict[str, X] with `key` making its values hashable) as one shared JSON value. A value whose
    `key` is None is written on its own.

    For the small values a timeline repeats by the hundred thousand (steps, score results): the
    cache holds at most `max_size` of them and starts over when full.
    """
    plain = (make_dict_unstructure_fn(cls, shared_converter, **_field_overrides(cls, with_struct=False))
             if attrs.has(cls) else shared_converter.get_unstructure_hook(cls))
    cache: dict[Any, Any] = {}
    keyed = key or (lambda value: value)

    def hook(value: Any) -> Any:
        k = keyed(value)
        if k is None:
            return plain(value)
        hit = cache.get(k)
        if hit is None:
            if len(cache) >= max_size:
                cache.clear()
            hit = cache[k] = plain(value)
        return hit

    if attrs.has(cls):
        shared_converter.register_unstructure_hook(cls, hook)
    else:
        shared_converter.register_unstructure_hook_func(lambda t: t == cls, hook)


def structure(data: Any, cls: type[T], *, path: str = "", file: str | None = None) -> T:
    """Structure `data` into `cls`; raise InvalidInput listing every problem with its path."""
    from kubesim.errors import InvalidInput

    try:
        return converter.structure(data, cls)
    except Exception as exc:  # cattrs raises exception groups; flatten them into problems
        raise InvalidInput(
            [Problem(p, m, file) for p, m in _problems(exc, path)]
        ) from None


def unstructure(obj: Any) -> Any:
    """attrs -> plain JSON-ready data with camelCase keys."""
    return converter.unstructure(obj)


def unstructure_shared(obj: Any) -> Any:
    """As `unstructure`, but the JSON data shares parts with `obj` and with earlier results.

    Kubernetes objects (dict[str, Any] fields) are the objects themselves, not copies, and
    equal interned values (score results) become one dict. For final values that nobody
    mutates, and whose JSON nobody mutates either: timeline events, kept for a whole run.
    """
    return shared_converter.unstructure(obj)


_CAMEL_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _problems(exc: BaseException, path: str) -> list[tuple[str, str]]:
    """Flatten a cattrs error tree into (field path, message) pairs in a stable order."""
    if isinstance(exc, ForbiddenExtraKeysError):
        # YAML allows keys that are not strings (1, null): shown as JSON would write them
        keys = sorted(json.dumps(k) if not isinstance(k, str) else k for k in exc.extra_fields)
        return [(_join(path, k), "unknown field") for k in keys]
    if isinstance(exc, ClassValidationError):
        out: list[tuple[str, str]] = []
        noted, others = exc.group_exceptions()
        for sub, note in noted:
            name = getattr(note, "name", "")
            sub_path = _join(path, camel(name)) if _CAMEL_ID.match(name) else path
            if isinstance(sub, KeyError):
                out.append((sub_path, "required"))
            else:
                out.extend(_problems(sub, sub_path))
        for sub in others:
            out.extend(_problems(sub, path))
        return out
    if isinstance(exc, IterableValidationError):
        out = []
        noted_items, other_items = exc.group_exceptions()
        for sub, item_note in noted_items:
            out.extend(_problems(sub, f"{path}[{getattr(item_note, 'index', '?')}]"))
        for sub in other_items:
            out.extend(_problems(sub, path))
        return out
    if isinstance(exc, BaseExceptionGroup):  # noqa: F821 (builtin on 3.11+, backport below)
        out = []
        for sub in exc.exceptions:
            out.extend(_problems(sub, path))
        return out
    if isinstance(exc, KeyError):
        return [(path, "required")]
    if isinstance(exc, (AttributeError, TypeError)) and _PYTHON_TYPE.search(str(exc)):
        return [(path, _wrong_shape(exc))]  # Python's own words about a wrong shape met inside cattrs
    return [(path, str(exc))]


_PYTHON_TYPE = re.compile(r"'(\w+)' object")
_JSON_NAMES = {"list": "a list", "dict": "a mapping", "str": "a string", "int": "a number", "float": "a number",
               "bool": "a boolean", "NoneType": "null"}


def _wrong_shape(exc: BaseException) -> str:
    """What a Python AttributeError or TypeError about a decoded value means, in JSON's words."""
    text = str(exc)
    found = _PYTHON_TYPE.search(text)
    got = _JSON_NAMES.get(found.group(1), "a value of another type") if found else "a value of another type"
    if "'items'" in text or "'keys'" in text:
        return f"expected a mapping, got {got}"
    if "not iterable" in text:
        return f"expected a list, got {got}"
    return f"the wrong type of value: got {got}"


try:  # Python 3.10: cattrs depends on the exceptiongroup backport
    BaseExceptionGroup  # noqa: B018
except NameError:  # pragma: no cover - depends on the interpreter
    from exceptiongroup import BaseExceptionGroup  # type: ignore[no-redef,import-not-found,unused-ignore]
