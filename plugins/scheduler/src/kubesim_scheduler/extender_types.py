"""The scheduler extender wire format: request bodies built, response bodies read.

The Go types have no JSON tags, so every field travels under its Go name ("Pod",
"NodeNames", "FailedNodes", "Host", ...). Requests are built as encoding/json writes them
(nil pointers and maps as null). Responses are read as encoding/json reads them: keys
match field names exactly or case-insensitively, unknown keys are ignored, null leaves the
zero value, and a value of the wrong type is an error with Go's message.
"""

# upstream: staging/src/k8s.io/kube-scheduler/extender/v1/types.go,
# pkg/scheduler/extender.go (convertToMetaVictims)

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

__all__ = [
    "EXTENDER_NAME",
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "ExtenderDecodeError",
    "FilterResult",
    "MetaVictims",
    "binding_args",
    "binding_result_struct",
    "convert_to_meta_victims",
    "decode_body",
    "extender_args",
    "filter_result_struct",
    "parse_binding_result",
    "parse_filter_result",
    "parse_host_priority_list",
    "parse_preemption_result",
    "preemption_args",
    "preemption_result_struct",
]

MIN_EXTENDER_PRIORITY = 0
MAX_EXTENDER_PRIORITY = 10
#: framework.ExtenderName: the "plugin" recorded as rejecting when extenders filtered nodes out.
EXTENDER_NAME = "Extender"

_MISSING = object()


class ExtenderDecodeError(ValueError):
    """A response body encoding/json would refuse; str() is Go's error text."""


# ---------------------------------------------------------------- requests


def extender_args(
    pod: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]] | None, node_names: Sequence[str] | None
) -> dict[str, Any]:
    """ExtenderArgs: Nodes (a NodeList) or NodeNames, the other one null."""
    return {
        "Pod": pod,
        "Nodes": None if nodes is None else {"metadata": {}, "items": list(nodes)},
        "NodeNames": None if node_names is None else list(node_names),
    }


def binding_args(pod: Mapping[str, Any], node: str) -> dict[str, Any]:
    """ExtenderBindingArgs for binding `pod` to `node`."""
    meta = pod.get("metadata") or {}
    return {
        "PodName": meta.get("name", ""),
        "PodNamespace": meta.get("namespace") or "",
        "PodUID": meta.get("uid") or "",
        "Node": node,
    }


def convert_to_meta_victims(victims: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """convertToMetaVictims: node -> {"Pods": [{"UID"}], "NumPDBViolations"}.

    `victims` maps node names to objects with `pods` (PodInfo or pod dicts) and
    `num_pdb_violations`.
    """
    out: dict[str, dict[str, Any]] = {}
    for node, v in victims.items():
        out[node] = {
            "Pods": [{"UID": str(_pod_uid(p))} for p in v.pods],
            "NumPDBViolations": int(v.num_pdb_violations),
        }
    return out


def preemption_args(pod: Mapping[str, Any], victims: Mapping[str, Any], node_cache_capable: bool) -> dict[str, Any]:
    """ExtenderPreemptionArgs: NodeNameToMetaVictims when node-cache capable, else NodeNameToVictims."""
    if node_cache_capable:
        return {"Pod": pod, "NodeNameToVictims": None, "NodeNameToMetaVictims": convert_to_meta_victims(victims)}
    full = {
        node: {"Pods": [_pod_obj(p) for p in v.pods], "NumPDBViolations": int(v.num_pdb_violations)}
        for node, v in victims.items()
    }
    return {"Pod": pod, "NodeNameToVictims": full, "NodeNameToMetaVictims": None}


def _pod_obj(p: Any) -> Mapping[str, Any]:
    pod: Mapping[str, Any] = p.pod if hasattr(p, "pod") else p
    return pod


def _pod_uid(p: Any) -> str:
    pod = _pod_obj(p)
    return str((pod.get("metadata") or {}).get("uid") or "")


# --------------------------------------------------------------- responses


def decode_body(text: str) -> Any:
    """json.NewDecoder(body).Decode: the first JSON value; what follows it is not read."""
    stripped = text.lstrip(" \t\r\n")
    if not stripped:
        raise ExtenderDecodeError("EOF")
    literal = _LITERALS.get(stripped[0])
    if literal is not None:  # Go's scanner reports where a true/false/null literal goes wrong
        for i, want in enumerate(literal):
            if i >= len(stripped):
                raise ExtenderDecodeError("unexpected EOF")
            if stripped[i] != want:
                raise ExtenderDecodeError(f"invalid character {_go_char(stripped[i])} in literal {literal} (expecting {_go_char(want)})")
    try:
        value, _end = _DECODER.raw_decode(stripped)
    except RecursionError:
        raise ExtenderDecodeError("json: the response nests too deep for kubesim to read") from None
    except json.JSONDecodeError as e:
        if e.pos >= len(stripped):
            raise ExtenderDecodeError("unexpected EOF") from None
        ch = stripped[e.pos]
        where = "looking for beginning of value" if e.pos == 0 else "in JSON value"
        raise ExtenderDecodeError(f"invalid character {_go_char(ch)} {where}") from None
    return value


_LITERALS = {"t": "true", "f": "false", "n": "null"}
#: Integers longer than this are read as floats (Python refuses to convert much longer
#: digit strings; Go reads them as float64 too, or refuses them for an int64 field).
_MAX_INT_DIGITS = 4000
_DECODER = json.JSONDecoder(parse_int=lambda s: int(s) if len(s) <= _MAX_INT_DIGITS else float(s))


def _go_char(ch: str) -> str:
    return "'\\''" if ch == "'" else f"'{ch}'"


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _mismatch(v: Any, where: str, gotype: str) -> ExtenderDecodeError:
    kind = _kind(v)
    if kind == "number":
        kind = f"number {json.dumps(v)}"
    return ExtenderDecodeError(f"json: cannot unmarshal {kind} into {where} of type {gotype}")


def _field(obj: Mapping[str, Any], name: str) -> Any:
    """The value for a Go field: keys equal to it ignoring case; the last one given wins."""
    low = name.lower()
    value = _MISSING
    for k, v in obj.items():
        if k == name or k.lower() == low:
            value = v
    return value


def _object(v: Any, gotype: str) -> Mapping[str, Any] | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        raise _mismatch(v, "Go value", gotype)
    return v


def _string(v: Any, where: str) -> str:
    if v is None or v is _MISSING:
        return ""
    if not isinstance(v, str):
        raise _mismatch(v, where, "string")
    return v


def _int64(v: Any, where: str) -> int:
    if v is None or v is _MISSING:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _mismatch(v, where, "int64")
    if isinstance(v, float) and not v.is_integer():
        raise _mismatch(v, where, "int64")
    n = int(v)
    if not -(2**63) <= n < 2**63:
        raise _mismatch(v, where, "int64")
    return n


def _string_list(v: Any, where: str) -> list[str] | None:
    if v is None or v is _MISSING:
        return None
    if not isinstance(v, list):
        raise _mismatch(v, where, "[]string")
    return [_string(x, where) for x in v]


def _string_map(v: Any, where: str) -> dict[str, str]:
    if v is None or v is _MISSING:
        return {}
    if not isinstance(v, dict):
        raise _mismatch(v, where, "v1.FailedNodesMap")
    return {str(k): _string(x, where) for k, x in v.items()}


@attrs.frozen
class FilterResult:
    """ExtenderFilterResult as read: the nodes kept (None: neither Nodes nor NodeNames was
    given), the failure maps, the Error text, and `raw`, the body as received."""

    node_names: list[str] | None
    failed: dict[str, str]
    failed_and_unresolvable: dict[str, str]
    error: str
    raw: Any = attrs.field(eq=False, repr=False)


def parse_filter_result(data: Any, node_cache_capable: bool) -> FilterResult:
    """ExtenderFilterResult; NodeNames is read when node-cache capable (and given), else Nodes."""
    obj = _object(data, "v1.ExtenderFilterResult") or {}
    where = "Go struct field ExtenderFilterResult.{}"
    node_names = _string_list(_field(obj, "NodeNames"), where.format("NodeNames"))
    nodes = _field(obj, "Nodes")
    items: list[str] | None = None
    if nodes is not None and nodes is not _MISSING:
        if not isinstance(nodes, dict):
            raise _mismatch(nodes, where.format("Nodes"), "v1.NodeList")
        raw_items = _field(nodes, "items")
        if raw_items is not None and raw_items is not _MISSING and not isinstance(raw_items, list):
            raise _mismatch(raw_items, where.format("Nodes.items"), "[]v1.Node")
        items = []
        for node in raw_items if isinstance(raw_items, list) else ():
            if not isinstance(node, dict):
                raise _mismatch(node, where.format("Nodes.items"), "v1.Node")
            meta = _field(node, "metadata")
            items.append(_string(_field(meta, "name"), "Go struct field Node.metadata.name") if isinstance(meta, dict) else "")
    failed = _string_map(_field(obj, "FailedNodes"), where.format("FailedNodes"))
    unresolvable = _string_map(_field(obj, "FailedAndUnresolvableNodes"), where.format("FailedAndUnresolvableNodes"))
    error = _string(_field(obj, "Error"), where.format("Error"))
    if node_cache_capable and node_names is not None:
        kept: list[str] | None = node_names
    else:
        kept = items
    return FilterResult(kept, failed, unresolvable, error, data)


def parse_host_priority_list(data: Any) -> list[tuple[str, int]]:
    """HostPriorityList as (host, score) pairs in the order given."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise _mismatch(data, "Go value", "v1.HostPriorityList")
    out = []
    for item in data:
        if item is None:
            out.append(("", 0))
            continue
        if not isinstance(item, dict):
            raise _mismatch(item, "Go value", "v1.HostPriority")
        out.append((
            _string(_field(item, "Host"), "Go struct field HostPriority.Host"),
            _int64(_field(item, "Score"), "Go struct field HostPriority.Score"),
        ))
    return out


def parse_binding_result(data: Any) -> str:
    """ExtenderBindingResult: its Error text."""
    obj = _object(data, "v1.ExtenderBindingResult") or {}
    return _string(_field(obj, "Error"), "Go struct field ExtenderBindingResult.Error")


@attrs.frozen
class MetaVictims:
    """MetaVictims: pod UIDs to evict on a node and the PDB violations they cause."""

    pod_uids: tuple[str, ...]
    num_pdb_violations: int


def parse_preemption_result(data: Any) -> dict[str, MetaVictims | None]:
    """ExtenderPreemptionResult: node -> MetaVictims (None where the extender sent null)."""
    obj = _object(data, "v1.ExtenderPreemptionResult") or {}
    where = "Go struct field ExtenderPreemptionResult.NodeNameToMetaVictims"
    m = _field(obj, "NodeNameToMetaVictims")
    if m is None or m is _MISSING:
        return {}
    if not isinstance(m, dict):
        raise _mismatch(m, where, "map[string]*v1.MetaVictims")
    out: dict[str, MetaVictims | None] = {}
    for node, mv in m.items():
        if mv is None:
            out[str(node)] = None
            continue
        if not isinstance(mv, dict):
            raise _mismatch(mv, where, "v1.MetaVictims")
        pods = _field(mv, "Pods")
        uids: list[str] = []
        if pods is not None and pods is not _MISSING:
            if not isinstance(pods, list):
                raise _mismatch(pods, where + ".Pods", "[]*v1.MetaPod")
            for p in pods:
                if p is None:
                    uids.append("")
                    continue
                if not isinstance(p, dict):
                    raise _mismatch(p, where + ".Pods", "v1.MetaPod")
                uids.append(_string(_field(p, "UID"), "Go struct field MetaPod.Pods.UID"))
        out[str(node)] = MetaVictims(tuple(uids), _int64(_field(mv, "NumPDBViolations"), where + ".NumPDBViolations"))
    return out


# ------------------------------------------------- responses as Go re-encodes them


def _nil_or(v: Any, fn: Any) -> Any:
    return None if v is None or v is _MISSING else fn(v)


def filter_result_struct(data: Any) -> dict[str, Any]:
    """ExtenderFilterResult as encoding/json writes the decoded struct back: every field
    in declaration order, nil ones as null, maps with sorted keys."""
    obj = data if isinstance(data, dict) else {}
    nodes = _field(obj, "Nodes")
    node_list: dict[str, Any] | None = None
    if isinstance(nodes, dict):
        items = _field(nodes, "items")
        node_list = {"metadata": {}, "items": list(items) if isinstance(items, list) else None}
    names = _field(obj, "NodeNames")
    return {
        "Nodes": node_list,
        "NodeNames": list(names) if isinstance(names, list) else None,
        "FailedNodes": _nil_or(_field(obj, "FailedNodes"), lambda m: dict(sorted(m.items()))),
        "FailedAndUnresolvableNodes": _nil_or(_field(obj, "FailedAndUnresolvableNodes"), lambda m: dict(sorted(m.items()))),
        "Error": _field(obj, "Error") if isinstance(_field(obj, "Error"), str) else "",
    }


def preemption_result_struct(data: Any) -> dict[str, Any]:
    """ExtenderPreemptionResult as encoding/json writes the decoded struct back."""
    meta = parse_preemption_result(data)
    return {"NodeNameToMetaVictims": None if not meta and not _has_field(data, "NodeNameToMetaVictims") else {
        node: None if mv is None else {"Pods": [{"UID": u} for u in mv.pod_uids], "NumPDBViolations": mv.num_pdb_violations}
        for node, mv in sorted(meta.items())
    }}


def binding_result_struct(data: Any) -> dict[str, Any]:
    """ExtenderBindingResult as encoding/json writes the decoded struct back."""
    return {"Error": parse_binding_result(data)}


def _has_field(data: Any, name: str) -> bool:
    return isinstance(data, dict) and _field(data, name) not in (None, _MISSING)
