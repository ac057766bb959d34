"""Mutations of valid documents, one family of hostile input each (issue 11).

`mutated(document, family)` is a strategy of Documents: the valid document changed at a
random place in the family's way. Families are named so that a test can be parametrized
by them and one awaiting a fix can be left out by name (known_failures.py).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import attrs
from hypothesis import strategies as st

from documents import Document, placeholder

__all__ = ["FAMILIES", "GENERIC_FAMILIES", "SCENARIO_FAMILIES", "mutated"]

Path = tuple[Any, ...]

# -- hostile values -------------------------------------------------------------------------

HUGE_NUMBERS: tuple[Any, ...] = (
    2**70, -(2**70), 2**63, 2**63 - 1, -(2**63), 2**31, 2**31 - 1, -1, 0, 10**400,
    1e30, 1e308, float("nan"), float("inf"), float("-inf"), 2.5, -0.0, 1e-300,
)
HOSTILE_QUANTITIES = (
    "1e999999999", "1e-999999999", "1e30", "-5Gi", "9999999999999999999999Ei", "0.0000000001m",
    "1.5.5", "", " 1", "1E", "NaN", "inf", "-0", "1Ki1", "0x10", "1_000", "+1", ".5", "5.", "1e18",
    "123456789012345678901234567890", "2Pi", "1n", "999999999999999999999999999999999m",
)
LONG_STRINGS = ("a" * 64, "a" * 254, "b" * 300, "é" * 64, "🚀" * 10, "x" * 100_000, "", " ", "\x00", "\n",
                "${HOME}", "../../etc/passwd", "a/b", "A_Z", "-lead", "trail-", "日本語")

wrong_types: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2),
)
numbers: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(HUGE_NUMBERS), st.integers(), st.floats(), st.integers(-(2**80), 2**80)
)
quantities: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(HOSTILE_QUANTITIES), st.from_regex(r"\A[+-]?[0-9]{0,30}(\.[0-9]{0,30})?([eE][+-]?[0-9]{1,12}|[KMGTPE]i?|[numkMGTPE])?\Z"),
)
strings: st.SearchStrategy[str] = st.one_of(st.sampled_from(LONG_STRINGS), st.text(max_size=40))
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)

# -- paths in a document ------------------------------------------------------------------


def _walk(data: Any, prefix: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield prefix, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _walk(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _walk(value, (*prefix, i))


def _paths(data: Any, keep: Callable[[Path, Any], bool]) -> list[Path]:
    return [p for p, v in _walk(data) if p and keep(p, v)]


def _get(data: Any, path: Path) -> Any:
    for key in path:
        data = data[key]
    return data


def _set(data: Any, path: Path, value: Any) -> Any:
    out = copy.deepcopy(data)
    _get(out, path[:-1])[path[-1]] = value
    return out


def _show(path: Path) -> str:
    return ".".join(str(p) for p in path) or "<root>"


QUANTITY_PARENTS = ("requests", "limits", "capacity", "allocatable")


def _is_quantity(path: Path, value: Any) -> bool:
    return len(path) >= 2 and path[-2] in QUANTITY_PARENTS and isinstance(value, (str, int))


# -- generic families: any document ----------------------------------------------------------


@st.composite
def _wrong_type(draw: st.DrawFn, doc: Document) -> Document:
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: True)))
    value = draw(wrong_types.filter(lambda v: type(v) is not type(_get(doc.data, path))))
    return doc.with_change(_set(doc.data, path, value), f"wrong type at {_show(path)}: {value!r}")


@st.composite
def _numbers(draw: st.DrawFn, doc: Document) -> Document:
    leaves = _paths(doc.data, lambda p, v: isinstance(v, (int, float)) or _is_quantity(p, v))
    leaves = leaves or _paths(doc.data, lambda p, v: not isinstance(v, (dict, list)))
    path = draw(st.sampled_from(leaves))
    value = draw(numbers)
    return doc.with_change(_set(doc.data, path, value), f"number at {_show(path)}: {value!r}")


@st.composite
def _quantities(draw: st.DrawFn, doc: Document) -> Document:
    leaves = _paths(doc.data, _is_quantity) or _paths(doc.data, lambda p, v: isinstance(v, str))
    path = draw(st.sampled_from(leaves))
    value = draw(quantities)
    return doc.with_change(_set(doc.data, path, value), f"quantity at {_show(path)}: {value!r}")


@st.composite
def _strings(draw: st.DrawFn, doc: Document) -> Document:
    value = draw(strings)
    if draw(st.booleans()):
        path = draw(st.sampled_from(_paths(doc.data, lambda p, v: isinstance(v, str))))
        return doc.with_change(_set(doc.data, path, value), f"string at {_show(path)}: {value[:60]!r}")
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: isinstance(p[-1], str))))
    data = copy.deepcopy(doc.data)
    parent = _get(data, path[:-1])
    parent[value] = parent.pop(path[-1])
    return doc.with_change(data, f"key {_show(path)} renamed {value[:60]!r}")


@st.composite
def _key_types(draw: st.DrawFn, doc: Document) -> Document:
    """A mapping key that is not a string (YAML allows null, numbers and booleans as keys)."""
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: isinstance(p[-1], str))))
    key = draw(st.sampled_from((None, 1, 0, True, 1.5, -(2**70))))
    data = copy.deepcopy(doc.data)
    parent = _get(data, path[:-1])
    parent[key] = parent.pop(path[-1]) if draw(st.booleans()) else draw(json_values)
    return attrs.evolve(doc.with_change(data, f"key {key!r} at {_show(path[:-1])}"), fmt="yaml")  # JSON keys are strings


NESTING_DEPTHS = (40, 200, 600, 3000)


@st.composite
def _nesting(draw: st.DrawFn, doc: Document) -> Document:
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: True)))
    depth = draw(st.sampled_from(NESTING_DEPTHS))
    fragment = "[" * depth + "]" * depth if draw(st.booleans()) else '{"a": ' * depth + "1" + "}" * depth
    index = len(doc.raw)
    return doc.with_change(_set(doc.data, path, placeholder(index)), f"nesting {depth} deep at {_show(path)}",
                           raw=(fragment,))


@st.composite
def _missing(draw: st.DrawFn, doc: Document) -> Document:
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: isinstance(p[-1], str))))
    data = copy.deepcopy(doc.data)
    del _get(data, path[:-1])[path[-1]]
    return doc.with_change(data, f"missing {_show(path)}")


@st.composite
def _unknown_field(draw: st.DrawFn, doc: Document) -> Document:
    maps = [p for p, v in _walk(doc.data) if isinstance(v, dict)]
    path = draw(st.sampled_from(maps))
    key = draw(st.sampled_from(("unknownField", "Name", "apiversion", "status", "spec", "x-extra")))
    data = copy.deepcopy(doc.data)
    target = _get(data, path)
    if key in target:
        key = "unknownField"
    target[key] = draw(json_values)
    return doc.with_change(data, f"unknown field {key!r} at {_show(path)}")


@st.composite
def _duplicates(draw: st.DrawFn, doc: Document) -> Document:
    lists = [p for p, v in _walk(doc.data) if isinstance(v, list) and v and p]
    if lists and draw(st.booleans()):
        path = draw(st.sampled_from(lists))
        items = _get(doc.data, path)
        item = items[draw(st.integers(0, len(items) - 1))]
        return doc.with_change(_set(doc.data, path, [*items, copy.deepcopy(item)]), f"duplicate item in {_show(path)}")
    keyed = [p for p, v in _walk(doc.data) if isinstance(v, dict) and v]
    path = draw(st.sampled_from(keyed))
    data = copy.deepcopy(doc.data)
    target = _get(data, path)
    key = draw(st.sampled_from(sorted(target)))
    if not isinstance(key, str):
        return doc
    index = len(doc.dup_keys)
    target[f"DUPKEY{index}X{key}"] = draw(st.one_of(st.just(copy.deepcopy(target[key])), json_values))
    return doc.with_change(data, f"duplicate key {key!r} at {_show(path)}", dup_keys=(key,))


@st.composite
def _alias_bomb(draw: st.DrawFn, doc: Document) -> Document:
    doc = attrs.evolve(doc, fmt="yaml")  # anchors and aliases are YAML's
    path = draw(st.sampled_from(_paths(doc.data, lambda p, v: True)))
    levels = draw(st.integers(2, 9))
    parts = ["&a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    parts += [f"&a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    fragment = "[" + ", ".join(parts) + "]"
    index = len(doc.raw)
    return doc.with_change(_set(doc.data, path, placeholder(index)), f"alias bomb of {levels} levels at {_show(path)}",
                           raw=(fragment,))


# -- scenario families: operations, steps and patches ---------------------------------------

HOSTILE_STEPS: tuple[Any, ...] = (-1, 2**31, 2**70, 10**9, 2**31 - 1, 1.5, "3", None, True, "1e3", -(2**63), 1e30)
PATCH_TYPES: tuple[Any, ...] = (
    "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
    "merge", "strategic", "json", "application/apply-patch+yaml", "text/plain", "", 42, None,
)
PATCH_BODIES: tuple[Any, ...] = (
    "{", "null", "[]", "{}", "5", '"str"', "[{\"op\": \"frobnicate\", \"path\": \"/metadata\"}]",
    [{"op": "remove", "path": "/metadata/labels/missing"}], [{"op": "test", "path": "/kind", "value": "Other"}],
    [{"op": "move", "from": "/nothing", "path": "/metadata/x"}], [{"op": "add", "path": "metadata"}],
    [{"op": "replace", "path": "/metadata/name", "value": "renamed"}], [{"op": "add", "path": "/spec/containers/-", "value": 1}],
    {"metadata": {"uid": "changed"}}, {"kind": "Other"}, {"apiVersion": "v2"}, {"metadata": {"labels": 5}},
    {"metadata": {"labels": {"k": 5}}}, {"spec": {"containers": "x"}}, {"status": {"allocatable": "lots"}},
    {"spec": {"taints": "x"}}, {"spec": {"tolerations": "x"}}, {"$patch": "delete"}, {"$patch": "replace"},
    {"spec": {"$setElementOrder/containers": 3}}, {"metadata": {"$retainKeys": "x"}},
    {"spec": {"replicas": 2**70}}, {"spec": {"replicas": -1}}, {"metadata": {"resourceVersion": "x"}},
    {"status": {"capacity": {"cpu": "1e999999999"}}}, {"metadata": {"deletionTimestamp": "bad"}},
)


def _operations(doc: Document) -> list[Any]:
    ops = (doc.data.get("spec") or {}).get("operations") if isinstance(doc.data, dict) else None
    return ops if isinstance(ops, list) else []


@st.composite
def _steps(draw: st.DrawFn, doc: Document) -> Document:
    ops = _operations(doc)
    if not ops:
        return doc
    index = draw(st.integers(0, len(ops) - 1))
    value = draw(st.sampled_from(HOSTILE_STEPS))
    return doc.with_change(_set(doc.data, ("spec", "operations", index, "step"), value),
                           f"step of operation {index}: {value!r}")


@st.composite
def _patches(draw: st.DrawFn, doc: Document) -> Document:
    ops = _operations(doc)
    creates = [op for op in ops if isinstance(op, dict) and "createOperation" in op]
    if not creates:
        return doc
    made = draw(st.sampled_from(creates))
    obj = made["createOperation"]["object"]
    object_meta = {"name": obj["metadata"]["name"]}
    if "namespace" in obj["metadata"]:
        object_meta["namespace"] = obj["metadata"]["namespace"]
    body = draw(st.one_of(st.sampled_from(PATCH_BODIES), json_values))
    inner: dict[str, Any] = {
        "typeMeta": {"apiVersion": obj["apiVersion"], "kind": obj["kind"]},
        "objectMeta": object_meta,
        "patch": body if isinstance(body, str) else json.dumps(body),
        "patchType": draw(st.sampled_from(PATCH_TYPES)),
    }
    subresource = draw(st.sampled_from((None, None, "status", "scale", "bogus")))
    if subresource is not None:
        inner["subresource"] = subresource
    op = {"step": made.get("step", 0) + 1, "patchOperation": inner}
    data = copy.deepcopy(doc.data)
    data["spec"]["operations"].append(op)
    return doc.with_change(data, f"patch of {obj['kind']} {object_meta['name']}: {inner['patchType']!r} "
                                 f"{str(inner['patch'])[:80]!r} subresource={subresource!r}")


GENERIC_FAMILIES: dict[str, Callable[[Document], st.SearchStrategy[Document]]] = {
    "wrong_type": _wrong_type,
    "numbers": _numbers,
    "quantities": _quantities,
    "strings": _strings,
    "key_types": _key_types,
    "nesting": _nesting,
    "missing": _missing,
    "unknown_field": _unknown_field,
    "duplicates": _duplicates,
    "alias_bomb": _alias_bomb,
}
SCENARIO_FAMILIES: dict[str, Callable[[Document], st.SearchStrategy[Document]]] = {
    "steps": _steps,
    "patches": _patches,
}
FAMILIES = {**GENERIC_FAMILIES, **SCENARIO_FAMILIES}


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Document], family: str, *, rounds: int = 2) -> Document:
    """A document from `base` changed by 1..`rounds` mutations of `family`."""
    doc = draw(base)
    for _ in range(draw(st.integers(1, rounds))):
        doc = draw(FAMILIES[family](doc))
    return doc
