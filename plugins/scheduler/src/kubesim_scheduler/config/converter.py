"""The cattrs Converter for KubeSchedulerConfiguration: strict like the Go decoder.

Like kube-scheduler's strict decoding (scheme.Codecs, sigs.k8s.io/yaml), it rejects
unknown fields, wrongly typed scalars and integers that overflow their int32/int64
field, reads durations from Go duration strings, treats null as absent (Go's
encoding/json does), and decodes each pluginConfig's args into the type its plugin
name selects (v1 PluginConfig.decodeNestedObjects). Every error becomes a
(field path, message) pair: `profiles[0].plugins.score.enabled[1].weight: expected an
integer, got the string '3'`.
"""

from __future__ import annotations

import json

import sys
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from kubesim.k8s.duration import format_duration, parse_duration

from kubesim_scheduler.config import core_shapes
from kubesim_scheduler.config.field_errors import join
from kubesim_scheduler.config.field_kinds import DURATION, INT_BITS, INTERNAL, JSON_NAME
from kubesim_scheduler.config.plugin_args import (
    ARGS_TYPES,
    NodeAffinityArgs,
    PodTopologySpreadArgs,
    args_kind,
)
from kubesim_scheduler.config.types import API_VERSION, PluginConfig

__all__ = ["FieldErrors", "camel", "converter", "describe", "error_pairs", "structure", "unstructure"]

T = TypeVar("T")

_RENAMES: dict[str, str] = {}


class FieldErrors(Exception):
    """Errors found by a hook, as (path relative to the value, message) pairs."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in pairs))
        self.pairs = pairs


def camel(name: str) -> str:
    """snake_case attribute -> its JSON name (camelCase, or the field's JSON_NAME)."""
    if name in _RENAMES:
        return _RENAMES[name]
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def describe(value: Any) -> str:
    """A short description of a wrong value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, int):
        return f"the number {value}"
    return f"{type(value).__name__} {value!r}"


converter = cattrs.Converter(forbid_extra_keys=True)


def _scalar(kind: type, label: str) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _: Any) -> Any:
        if isinstance(value, bool) and kind is not bool:
            raise TypeError(f"expected {label}, got {describe(value)}")
        if not isinstance(value, kind):
            raise TypeError(f"expected {label}, got {describe(value)}")
        return value

    return hook


converter.register_structure_hook(str, _scalar(str, "a string"))
converter.register_structure_hook(bool, _scalar(bool, "a boolean"))
converter.register_structure_hook(int, _scalar(int, "an integer"))


def _int_hook(bits: int) -> Callable[[Any, Any], int]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def hook(value: Any, _: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected an integer, got {describe(value)}")
        if not low <= value <= high:
            raise ValueError(f"{value} does not fit in a {bits}-bit integer")
        return value

    return hook


def _duration_hook(value: Any, _: Any) -> float:
    if not isinstance(value, str):
        raise TypeError(f'expected a duration string such as "30s", got {describe(value)}')
    return parse_duration(value)


def _mapping(value: Any) -> dict[str, Any]:
    """A JSON object with its null members dropped (null means absent to Go)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a mapping, got {describe(value)}")
    return {k: v for k, v in value.items() if v is not None}


def _drop_nulls(value: Any) -> Any:
    """Recursively drop null members of JSON objects (what a Go decode-encode would do)."""
    if isinstance(value, Mapping):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def _structure_tuple(value: Any, t: Any) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"expected a list, got {describe(value)}")
    (item_type, *_rest) = typing.get_args(t)
    items, pairs = [], []
    for i, item in enumerate(value):
        try:
            items.append(converter.structure(item, item_type))
        except Exception as exc:  # noqa: BLE001 - every structuring error becomes a problem
            pairs.extend(error_pairs(exc, f"[{i}]"))
    if pairs:
        raise FieldErrors(pairs)
    return tuple(items)


def _is_homogeneous_tuple(t: Any) -> bool:
    args = typing.get_args(t)
    return typing.get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis


converter.register_structure_hook_func(_is_homogeneous_tuple, _structure_tuple)


def _structure_string_map(value: Any, _: Any) -> dict[str, str]:
    pairs = [
        (f"[{k}]", f"expected a string, got {describe(v)}")
        for k, v in _mapping(value).items()
        if not isinstance(v, str)
    ]
    if pairs:
        raise FieldErrors(pairs)
    return dict(_mapping(value))


converter.register_structure_hook_func(lambda t: t == dict[str, str], _structure_string_map)


def _shaped(shape: type) -> Callable[[Any, Any], dict[str, Any]]:
    """A hook that checks a core object dict against its typed mirror and keeps the dict."""

    def hook(value: Any, _: Any) -> dict[str, Any]:
        converter.structure(value, shape)
        result: dict[str, Any] = _drop_nulls(value)
        return result

    return hook


def _shaped_tuple(shape: type) -> Callable[[Any, Any], tuple[dict[str, Any], ...]]:
    """Like _shaped, for a list of core objects."""

    def hook(value: Any, _: Any) -> tuple[dict[str, Any], ...]:
        _structure_tuple(value, tuple[shape, ...])  # type: ignore[valid-type]  # checks each item
        return tuple(_drop_nulls(item) for item in value)

    return hook


_SPECIAL_HOOKS: dict[tuple[type, str], Callable[[Any, Any], Any]] = {
    (PodTopologySpreadArgs, "default_constraints"): _shaped_tuple(core_shapes.TopologySpreadConstraint),
    (NodeAffinityArgs, "added_affinity"): _shaped(core_shapes.NodeAffinity),
}


def _overrides(cls: type, *, structuring: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in attrs.fields(cls):
        if a.metadata.get(INTERNAL):
            out[a.name] = override(omit=True)
            continue
        if JSON_NAME in a.metadata:
            _RENAMES[a.name] = a.metadata[JSON_NAME]
        kw: dict[str, Any] = {"rename": camel(a.name)}
        if structuring:
            if (cls, a.name) in _SPECIAL_HOOKS:
                kw["struct_hook"] = _SPECIAL_HOOKS[(cls, a.name)]
            elif INT_BITS in a.metadata:
                kw["struct_hook"] = _int_hook(a.metadata[INT_BITS])
            elif a.metadata.get(DURATION):
                kw["struct_hook"] = _duration_hook
        else:
            kw["omit_if_default"] = _is_empty_default(a.default)
            if a.metadata.get(DURATION):
                kw["unstruct_hook"] = lambda v: None if v is None else format_duration(v)
        out[a.name] = override(**kw)
    return out


def _is_empty_default(default: Any) -> bool:
    """Fields Go marks omitempty in practice: unset pointers, empty lists/strings, false, empty sets."""
    if default is None or isinstance(default, (tuple, str, bool)):
        return not default
    return attrs.has(type(default)) and default == type(default)()


def _structure_factory(cls: type) -> Callable[[Any, Any], Any]:
    fn: Callable[[Any, Any], Any] = make_dict_structure_fn(
        cls, converter, _cattrs_forbid_extra_keys=True, **_overrides(cls, structuring=True)
    )

    def hook(value: Any, t: Any) -> Any:
        return fn(_mapping(value), t)

    return hook


def _unstructure_factory(cls: type) -> Callable[[Any], Any]:
    return make_dict_unstructure_fn(cls, converter, **_overrides(cls, structuring=False))


converter.register_structure_hook_factory(attrs.has, _structure_factory)
converter.register_unstructure_hook_factory(attrs.has, _unstructure_factory)


_GROUP = "kubescheduler.config.k8s.io"


def _structure_plugin_config(value: Any, _: Any) -> PluginConfig:
    """Decode args into the type named "<plugin name>Args" when there is one (v1 decodeNestedObjects)."""
    data = _mapping(value)
    pairs = [(k, "unknown field") for k in sorted(set(data) - {"name", "args"})]
    name = data.get("name")
    if name is None:
        pairs.append(("name", "required"))
    elif not isinstance(name, str):
        pairs.append(("name", f"expected a string, got {describe(name)}"))
    args = data.get("args")
    if isinstance(name, str) and name in ARGS_TYPES:
        cls = ARGS_TYPES[name]
        if args is None:
            args = cls()
        elif not isinstance(args, Mapping):
            pairs.append(("args", f"expected a mapping, got {describe(args)}"))
        else:
            raw = dict(args)
            api_version, kind = raw.pop("apiVersion", None), raw.pop("kind", None)
            if api_version is not None and api_version != API_VERSION:
                pairs.append(("args.apiVersion", f"expected {API_VERSION!r}, got {describe(api_version)}"))
            if kind is not None and kind != args_kind(cls):
                pairs.append(
                    (
                        "args",
                        (
                            f"args for plugin {name} were not of type {args_kind(cls)}.{_GROUP}, "
                            f"got {kind}.{_GROUP}"
                        ),
                    )
                )
            else:
                try:
                    args = converter.structure(raw, cls)
                except Exception as exc:  # noqa: BLE001 - reported as problems
                    pairs.extend(error_pairs(exc, "args"))
    if pairs:
        raise FieldErrors(pairs)
    assert isinstance(name, str)
    return PluginConfig(name, args)


def _unstructure_plugin_config(pc: PluginConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"name": pc.name}
    if attrs.has(type(pc.args)):
        out["args"] = {
            "apiVersion": API_VERSION,
            "kind": type(pc.args).__name__,
            **converter.unstructure(pc.args),
        }
    elif pc.args is not None:
        out["args"] = pc.args
    return out


converter.register_structure_hook(PluginConfig, _structure_plugin_config)
converter.register_unstructure_hook(PluginConfig, _unstructure_plugin_config)


def error_pairs(exc: BaseException, path: str = "") -> list[tuple[str, str]]:
    """Flatten a structuring error tree into (field path, message) pairs, in input order."""
    if isinstance(exc, FieldErrors):
        return [(join(path, p), m) for p, m in exc.pairs]
    if isinstance(exc, ForbiddenExtraKeysError):
        # YAML allows keys that are not strings (1, null): shown as JSON would write them
        keys = sorted(k if isinstance(k, str) else json.dumps(k) for k in exc.extra_fields)
        return [(join(path, k), "unknown field") for k in keys]
    if isinstance(exc, ClassValidationError):
        out: list[tuple[str, str]] = []
        noted, others = exc.group_exceptions()
        for sub, note in noted:
            sub_path = join(path, camel(note.name))
            out.extend([(sub_path, "required")] if isinstance(sub, KeyError) else error_pairs(sub, sub_path))
        for sub in others:
            out.extend(error_pairs(sub, path))
        return out
    if isinstance(exc, IterableValidationError):
        out = []
        noted_items, other_items = exc.group_exceptions()
        for sub, item_note in noted_items:
            out.extend(error_pairs(sub, f"{path}[{item_note.index}]"))
        for sub in other_items:
            out.extend(error_pairs(sub, path))
        return out
    if isinstance(exc, BaseExceptionGroup):
        return [pair for sub in exc.exceptions for pair in error_pairs(sub, path)]
    if isinstance(exc, KeyError):
        return [(path, "required")]
    return [(path, str(exc))]


def structure(data: Any, cls: type[T]) -> T:
    """Structure data into cls, raising FieldErrors with every problem found."""
    try:
        return converter.structure(data, cls)
    except FieldErrors:
        raise
    except Exception as exc:  # noqa: BLE001 - cattrs raises exception groups
        raise FieldErrors(error_pairs(exc)) from None


def unstructure(obj: Any) -> Any:
    """attrs objects -> JSON-ready data with the Kubernetes field names."""
    return converter.unstructure(obj)


if sys.version_info < (3, 11):  # pragma: no cover - cattrs brings the backport on 3.10
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]
