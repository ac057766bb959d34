"""What the MachineNodePool controller does to one node, on plain Node dicts.

Ports of upstream pkg/controllers/machinenodepool_controller.go (removeNodeAnnotation,
removeNodeLabel, removeNodeTaint, the per-node body of reconcileNode, the per-node part of
updateStatus) and pkg/controllers/util/{label,taint}.go. Go's slice behaviour is kept where
it shows: removeNodeTaint deletes from the slice it ranges over, so a node with the
node-pool taint twice makes upstream's controller panic; here that is a `NodeTaintPanic`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .keys import (
    CANNOT_USE_NODE_TAINTS,
    MACHINE_GROUP_KEY,
    MACHINE_STATUS_KEY,
    MODE_MAINTENANCE,
    MODE_NOT_READY,
    MODE_READY,
    NODE_HEALTHY,
    NODE_MAINTENANCE,
    NODE_UNHEALTHY,
    machine_type_key,
)

__all__ = [
    "NodeTaintPanic",
    "apply_pool_entry",
    "cleanup_node",
    "extract_key_value_from_taints",
    "node_condition",
    "remove_node_annotation",
    "remove_node_label",
    "remove_node_taint",
    "schedule_machine_type_keys",
    "taint_key_index",
]

Obj = dict[str, Any]


class NodeTaintPanic(Exception):
    """Where upstream's removeNodeTaint slices out of range (a runtime panic in Go)."""


def schedule_machine_type_keys(machine_types: Iterable[Mapping[str, Any]] | None) -> list[str]:
    """The node label/taint keys of a node pool entry's machine types (util.GetScheduleMachineTypeKeys)."""
    return [machine_type_key(str(mt.get("name", ""))) for mt in machine_types or ()]


def extract_key_value_from_taints(taints: Iterable[Mapping[str, Any]] | None) -> dict[str, str]:
    """key -> value of the taints; a later taint with the same key wins (util.ExtractKeyValueFromTaint)."""
    return {str(t.get("key", "")): str(t.get("value", "")) for t in taints or ()}


def taint_key_index(taints: Sequence[Mapping[str, Any]] | None, key: str) -> int | None:
    """Index of the first taint with `key` (util.GetTaintKeyIndex)."""
    for i, t in enumerate(taints or ()):
        if t.get("key") == key:
            return i
    return None


def _labels(node: Obj) -> dict[str, str]:
    meta = node.setdefault("metadata", {})
    labels: dict[str, str] = meta.setdefault("labels", {})
    return labels


def _annotations(node: Obj) -> dict[str, str]:
    meta = node.setdefault("metadata", {})
    annotations: dict[str, str] = meta.setdefault("annotations", {})
    return annotations


def _taints(node: Obj) -> list[Obj]:
    spec = node.setdefault("spec", {})
    taints: list[Obj] = spec.setdefault("taints", [])
    return taints


def _keys_by_node(pool: Mapping[str, Any]) -> dict[str, list[str]]:
    """node name -> its machine type keys; a node listed twice keeps its last entry (a Go map)."""
    return {
        str(p.get("name", "")): schedule_machine_type_keys(p.get("machineType"))
        for p in (pool.get("spec") or {}).get("nodePool") or ()
    }


def remove_node_annotation(node: Obj) -> None:
    """Drop the machine-group annotation (removeNodeAnnotation)."""
    (node.get("metadata") or {}).get("annotations", {}).pop(MACHINE_GROUP_KEY, None)


def remove_node_label(pool: Mapping[str, Any], node: Obj) -> None:
    """Drop the node-pool label and this group's machine-type labels of the node's pool entry (removeNodeLabel)."""
    labels = (node.get("metadata") or {}).get("labels")
    if labels is None:
        return
    labels.pop(MACHINE_STATUS_KEY, None)
    group = (pool.get("spec") or {}).get("machineGroupName", "")
    keys = _keys_by_node(pool).get((node.get("metadata") or {}).get("name", ""))
    for key in keys or ():
        if labels.get(key) == group:  # a machine-type label of another group stays
            labels.pop(key)


def remove_node_taint(pool: Mapping[str, Any], node: Obj) -> None:
    """Drop the node-pool taint and the machine-type taints of the node's pool entry (removeNodeTaint)."""
    spec = node.get("spec") or {}
    taints = spec.get("taints")
    if taints is None:
        return
    if MACHINE_STATUS_KEY in extract_key_value_from_taints(taints):
        # for index, t := range node.Spec.Taints { ... node.Spec.Taints = append(T[:index], T[index+1:]...) }
        array, length = list(taints), len(taints)
        for index in range(len(array)):
            if array[index].get("key") != MACHINE_STATUS_KEY:
                continue
            if index + 1 > length:
                raise NodeTaintPanic("runtime error: slice bounds out of range")
            array[index:length - 1] = array[index + 1:length]
            length -= 1
        taints = array[:length]
    for key in _keys_by_node(pool).get((node.get("metadata") or {}).get("name", "")) or ():
        idx = taint_key_index(taints, key)
        if idx is not None:
            taints = taints[:idx] + taints[idx + 1:]
    spec["taints"] = taints


def apply_pool_entry(pool: Mapping[str, Any], entry: Mapping[str, Any], node: Obj, now: str) -> None:
    """Label, annotate and (taint: true) taint one node of the pool, in place (reconcileNode's loop body).

    The node-pool value is `maintenance` for a maintenance entry, else `not-ready` when the
    node has one of the taints in CANNOT_USE_NODE_TAINTS, else `ready`. Taints are removed
    and added again with timeAdded `now`.
    """
    group = str((pool.get("spec") or {}).get("machineGroupName", ""))
    tainted = bool(entry.get("taint"))
    remove_node_label(pool, node)
    if tainted:
        remove_node_taint(pool, node)
    _annotations(node)[MACHINE_GROUP_KEY] = group
    taints = extract_key_value_from_taints((node.get("spec") or {}).get("taints"))
    value = MODE_READY
    for key in CANNOT_USE_NODE_TAINTS:
        if key in taints:
            value = MODE_NOT_READY
            break
    keys = schedule_machine_type_keys(entry.get("machineType"))
    if entry.get("mode") == MODE_MAINTENANCE:
        value = MODE_MAINTENANCE
    labels = _labels(node)
    labels[MACHINE_STATUS_KEY] = value
    for key in keys:
        labels[key] = group
    if tainted:
        current = _taints(node)
        for key, taint_value in [(MACHINE_STATUS_KEY, value)] + [(k, group) for k in keys]:
            taint = {"key": key, "value": taint_value, "effect": "NoSchedule", "timeAdded": now}
            if key not in taints:
                current.append(taint)
            else:
                idx = taint_key_index(current, key)
                if idx is not None:
                    current[idx] = taint


def cleanup_node(pool: Mapping[str, Any], node: Obj) -> None:
    """Remove the annotation, labels and taints the pool put on a node (cleanupNode's loop body)."""
    remove_node_annotation(node)
    remove_node_label(pool, node)
    remove_node_taint(pool, node)


def node_condition(entry: Mapping[str, Any], node: Mapping[str, Any]) -> str:
    """Healthy, Maintenance, Unhealthy or "" for one pool entry (updateStatus's loop body).

    The node-pool label decides, or with `taint: true` the value of the last node-pool taint.
    """
    value = ((node.get("metadata") or {}).get("labels") or {}).get(MACHINE_STATUS_KEY, "")
    if entry.get("taint"):
        for t in (node.get("spec") or {}).get("taints") or ():
            if t.get("key") == MACHINE_STATUS_KEY:
                value = t.get("value", "")
    if entry.get("mode") == MODE_MAINTENANCE:
        return NODE_MAINTENANCE
    if value == MODE_READY:
        return NODE_HEALTHY
    if value == MODE_NOT_READY:
        return NODE_UNHEALTHY
    return ""
