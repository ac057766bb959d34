"""Which objects an import keeps: the imported kinds, cleaned, without what the simulated
cluster already has or must never hold (Secrets, ConfigMaps, the default namespaces, the
system PriorityClasses, pods that ended)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import attrs

from .cleaning import clean_object
from .kinds import DEFAULT_NAMESPACES, SYSTEM_PRIORITY_CLASSES, kind_rank, spec_for

__all__ = ["Selection", "object_key", "select_objects"]

_TERMINAL_PHASES = ("Succeeded", "Failed")  # they hold no node resources (scheduler's NodeInfo skips them)


@attrs.frozen
class Selection:
    """The kept objects in creation order, and how many of each skipped kind were left out."""

    objects: list[dict[str, Any]]
    skipped: dict[str, int]


def object_key(obj: dict[str, Any]) -> tuple[int, str, str]:
    """(kind rank, namespace, name): the deterministic creation order."""
    meta = obj["metadata"]
    return kind_rank(obj["apiVersion"], obj["kind"]), meta.get("namespace") or "", meta["name"]


def _skip_reason(obj: dict[str, Any]) -> str | None:
    kind, meta = obj["kind"], obj.get("metadata") or {}
    name = meta.get("name")
    if kind == "Namespace" and name in DEFAULT_NAMESPACES:
        return "Namespace (created by kubesim)"
    if kind == "PriorityClass" and name in SYSTEM_PRIORITY_CLASSES:
        return "PriorityClass (system, known to kubesim)"
    if kind == "Pod" and (obj.get("status") or {}).get("phase") in _TERMINAL_PHASES:
        return "Pod (Succeeded or Failed)"
    return None


def select_objects(objects: Iterable[dict[str, Any]]) -> Selection:
    """Clean and order `objects` (each with apiVersion, kind and metadata.name); an object
    given twice (same kind, namespace and name) is taken from its last occurrence."""
    kept: dict[tuple[int, str, str], dict[str, Any]] = {}
    skipped: Counter[str] = Counter()
    for obj in objects:
        spec = spec_for(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        if spec is None:
            skipped[f"{obj.get('kind')} (not imported)"] += 1
            continue
        reason = _skip_reason(obj)
        if reason is not None:
            skipped[reason] += 1
            continue
        cleaned = clean_object(obj, spec.namespaced)
        kept[object_key(cleaned)] = cleaned
    return Selection([kept[k] for k in sorted(kept)], dict(sorted(skipped.items())))
