"""Reading cluster objects from files: a kubectl List (`kubectl get -o yaml/json`, or
`kubesim run --export-cluster`), single objects or multi-document YAML (a KWOK snapshot,
`kwokctl snapshot save --format k8s`), kube-scheduler-simulator's export JSON, or a
k8s-cluster-simulator config (its `cluster` nodes; see kubesim.simtime.kcs_config).

The export of kube-scheduler-simulator (simulator/export/export.go, ResourcesForExport) is an
object of lists keyed by kind: pods, nodes, pvs, pvcs, storageClasses, priorityClasses,
namespaces, schedulerConfig; its items carry no apiVersion or kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubesim.api.loader import load_documents
from kubesim.errors import InvalidInput, Problem
from kubesim.input_limits import MAX_DEPTH, Limits

from kubesim.simtime.kcs_config import is_kcs_config, parse_kcs_config

from .selection import select_objects

__all__ = ["IMPORT_LIMITS", "KSS_EXPORT_KEYS", "objects_from_files", "read_objects"]

IMPORT_LIMITS = Limits(256 * 1024 * 1024, MAX_DEPTH)
"""The largest file `kubesim import --from` reads (256 MiB: a 5,000-node cluster's dump is
about 100 MB), nested as deep as any input kubesim reads."""

KSS_EXPORT_KEYS: dict[str, tuple[str, str]] = {
    "namespaces": ("v1", "Namespace"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "storageClasses": ("storage.k8s.io/v1", "StorageClass"),
    "pvs": ("v1", "PersistentVolume"),
    "nodes": ("v1", "Node"),
    "pvcs": ("v1", "PersistentVolumeClaim"),
    "pods": ("v1", "Pod"),
}
"""kube-scheduler-simulator's export keys and the kind of their items (schedulerConfig is not
an object: use it with `kubesim run --scheduler-config`)."""

_KSS_OTHER_KEYS = frozenset({"schedulerConfig"})
_EXPECTED = ("expected a Kubernetes object (apiVersion and kind), a List (kind List with items), "
             "a kube-scheduler-simulator export (keys " + ", ".join(sorted(KSS_EXPORT_KEYS)) + "), "
             "or a k8s-cluster-simulator config (tick, startClock, metricsTick, metricsLogger, cluster)")


def _typed(item: Any, where: str, file: str, api_version: str | None, kind: str | None) -> dict[str, Any]:
    """`item` with apiVersion and kind (given ones fill what the item lacks); InvalidInput
    naming the field when it is not an object with a kind and a name."""
    if not isinstance(item, dict):
        raise InvalidInput([Problem(where, f"expected an object, got {type(item).__name__}", file)])
    obj = dict(item)
    if api_version and not obj.get("apiVersion"):
        obj["apiVersion"] = api_version
    if kind and not obj.get("kind"):
        obj["kind"] = kind
    for field in ("kind", "apiVersion"):
        if not isinstance(obj.get(field), str) or not obj[field]:
            raise InvalidInput([Problem(f"{where}.{field}" if where else field, "required", file)])
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise InvalidInput([Problem(f"{where}.metadata.name" if where else "metadata.name", "required", file)])
    return obj


def _list_items(doc: dict[str, Any], where: str, file: str) -> list[dict[str, Any]]:
    items = doc.get("items")
    if not isinstance(items, list):
        raise InvalidInput([Problem(f"{where}items" if not where else f"{where}.items", "required: a list", file)])
    kind = str(doc["kind"])
    # A typed list (PodList) may leave its items' kind out, as the API server does
    item_kind = kind[: -len("List")] if kind != "List" else None
    api_version = str(doc.get("apiVersion") or "") if item_kind else None
    prefix = f"{where}.items" if where else "items"
    return [_typed(item, f"{prefix}[{i}]", file, api_version, item_kind) for i, item in enumerate(items)]


def _kss_items(doc: dict[str, Any], where: str, file: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for key, (api_version, kind) in KSS_EXPORT_KEYS.items():
        items = doc.get(key) or []
        if not isinstance(items, list):
            raise InvalidInput([Problem(f"{where}.{key}" if where else key, "expected a list", file)])
        prefix = f"{where}.{key}" if where else key
        out.extend(_typed(item, f"{prefix}[{i}]", file, api_version, kind) for i, item in enumerate(items))
    return out


def _is_kss_export(doc: dict[str, Any]) -> bool:
    keys = set(doc)
    return bool(keys & set(KSS_EXPORT_KEYS)) and keys <= set(KSS_EXPORT_KEYS) | _KSS_OTHER_KEYS


def read_objects(path: str, limits: Limits = IMPORT_LIMITS) -> list[dict[str, Any]]:
    """Every object in one file, as written (not cleaned); InvalidInput naming the file, the
    field and what was expected for anything else."""
    try:
        docs = load_documents(path, limits)
    except InvalidInput as exc:
        raise InvalidInput([Problem(p.path, "the file holds no objects", p.file)
                            if p.message == "the file holds no scenario" else p for p in exc.problems]) from None
    out: list[dict[str, Any]] = []
    for i, doc in enumerate(docs):
        where = f"[document {i}]" if len(docs) > 1 else ""
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise InvalidInput([Problem(where, f"{_EXPECTED}; got {type(doc).__name__}", path)])
        kind = doc.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
            out.extend(_list_items(doc, where, path))
        elif "kind" in doc or "apiVersion" in doc:
            out.append(_typed(doc, where, path, None, None))
        elif _is_kss_export(doc):
            out.extend(_kss_items(doc, where, path))
        elif is_kcs_config(doc):
            out.extend(parse_kcs_config(doc, path).nodes)
        else:
            raise InvalidInput([Problem(where, f"unknown format: {_EXPECTED}", path)])
    return out


def objects_from_files(paths: Iterable[str], limits: Limits = IMPORT_LIMITS) -> list[dict[str, Any]]:
    """The imported objects of every file in `paths`, cleaned, in creation order (see
    kinds.IMPORTED_KINDS); all files' problems are reported together."""
    objects: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            objects.extend(read_objects(path, limits))
        except InvalidInput as exc:
            problems.extend(exc.problems)
    if problems:
        raise InvalidInput(problems)
    return select_objects(objects).objects


