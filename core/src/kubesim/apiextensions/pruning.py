"""Pruning and defaulting of a custom resource, as the API server does when it decodes one.

Follows k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go (fields the
schema does not declare are dropped and reported, apiVersion/kind/metadata stay at the root and
in embedded resources, x-kubernetes-preserve-unknown-fields keeps unknown fields) and
pkg/apiserver/schema/defaulting/algorithm.go (a missing or non-nullable null property takes a
copy of its default, then defaulting continues below). Recursion follows the schema, which is
at most MAX_SCHEMA_DEPTH deep; values below a schema-less level are handled iteratively.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any
from weakref import WeakKeyDictionary

from .structural import Schema

__all__ = ["apply_schema_defaults", "prune"]

_META_FIELDS = ("apiVersion", "kind", "metadata")


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def prune(obj: dict[str, Any], schema: Schema) -> list[str]:
    """Drop undeclared fields from a custom resource in place; the paths dropped, sorted."""
    pruned: list[str] = []
    _prune(obj, schema, "", pruned, root=True)
    return sorted(pruned)


def _prune(x: Any, s: Schema | None, path: str, pruned: list[str], *, root: bool = False) -> None:
    if s is None:
        _prune_all(x, path, pruned)
        return
    if s.preserve_unknown_fields:
        _skip_prune(x, s, path, pruned)
        return
    if isinstance(x, dict):
        for k in list(x):
            if (root or s.embedded_resource) and k in _META_FIELDS:
                continue
            prop = s.properties.get(k)
            if prop is not None:
                _prune(x[k], prop, _child(path, k), pruned)
            elif s.additional_properties is not None:
                _prune(x[k], s.additional_properties, _child(path, k), pruned)
            else:
                pruned.append(_child(path, k))
                del x[k]
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _prune(v, s.items, f"{path}[{i}]", pruned)


def _skip_prune(x: Any, s: Schema, path: str, pruned: list[str]) -> None:
    """Below x-kubernetes-preserve-unknown-fields: keep unknown fields, prune declared ones."""
    if isinstance(x, dict):
        for k, v in x.items():
            if s.embedded_resource and k in _META_FIELDS:
                continue
            prop = s.properties.get(k) or s.additional_properties
            if prop is not None:
                _prune(v, prop, _child(path, k), pruned)
    elif isinstance(x, list) and s.items is not None:
        for i, v in enumerate(x):
            _prune(v, s.items, f"{path}[{i}]", pruned)


def _prune_all(x: Any, path: str, pruned: list[str]) -> None:
    """No schema here: every field of every object below goes (iteratively: any depth)."""
    stack = [(x, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            pruned.extend(_child(where, k) for k in value)
            value.clear()
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(value))


def apply_schema_defaults(x: Any, s: Schema) -> None:
    """Set the schema's defaults in place where values are missing (defaulting.Default).

    A schema without a default anywhere below it is not walked (the Scenario object's
    thousands of operations, at the pre-run check and at its create)."""
    if not _defaults_below(s):
        return
    if isinstance(x, dict):
        for k, prop in s.properties.items():
            if prop.has_default and prop.default is not None and (
                k not in x or (x[k] is None and not prop.nullable)
            ):
                x[k] = deepcopy(prop.default)
        for k, v in x.items():
            below = s.properties.get(k) or s.additional_properties
            if below is not None:
                apply_schema_defaults(v, below)
    elif isinstance(x, list) and s.items is not None:
        items = s.items
        for i, v in enumerate(x):
            if v is None and not items.nullable and items.has_default and items.default is not None:
                x[i] = deepcopy(items.default)
            apply_schema_defaults(x[i], items)


_HAS_DEFAULTS: WeakKeyDictionary[Schema, bool] = WeakKeyDictionary()


def _defaults_below(s: Schema) -> bool:
    """Whether apply_schema_defaults can set anything in a value of schema `s` (remembered
    per schema node)."""
    known = _HAS_DEFAULTS.get(s)
    if known is None:
        known = _HAS_DEFAULTS[s] = any(
            (child.has_default and child.default is not None) or _defaults_below(child)
            for child in (*s.properties.values(), s.additional_properties, s.items) if child is not None
        )
    return known
