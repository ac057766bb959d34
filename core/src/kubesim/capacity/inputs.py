"""The inputs of `kubesim capacity`: the cluster (a scenario or a List) and the pod and node templates.

Every problem is InvalidInput naming the file and the field (exit 2, no traceback).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesim.api.loader import load_documents
from kubesim.cluster import ResourceRegistry, check_new_object
from kubesim.errors import ApiError, InvalidInput, Problem
from kubesim.importing import read_objects

__all__ = ["cluster_objects", "load_node_template", "load_pod_template", "objects_from_files"]

_SCENARIO_KIND = "Scenario"


def objects_from_files(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The objects of the files, as `kubesim import --from` reads them (a kubectl List, plain
    object documents, KWOK snapshots, kube-scheduler-simulator's export), not cleaned: the
    drain rules read ownerReferences, and a file's pods keep their nodes and phases."""
    out: list[dict[str, Any]] = []
    for path in paths:
        out.extend(read_objects(path))
    return out


def _documents(path: str, what: str) -> list[dict[str, Any]]:
    """The file's documents, each a mapping (load_documents' limits and messages)."""
    try:
        docs = load_documents(path)
    except InvalidInput as exc:
        problems = [Problem(p.path, f"the file holds no {what}", p.file) if p.message == "the file holds no scenario"
                    else p for p in exc.problems]
        raise InvalidInput(problems) from None
    docs = [d for d in docs if d is not None]
    if not docs:
        raise InvalidInput([Problem("", f"the file holds no {what}", path)])
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict):
            raise InvalidInput([Problem(f"[document {i}]", f"expected an object, got {type(doc).__name__}", path)])
    return docs


def _is_scenario_file(path: str) -> bool:
    return any(doc.get("kind") == _SCENARIO_KIND for doc in _documents(path, "cluster"))


def cluster_objects(path: str, run_scenarios: Callable[[str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The cluster in `path`: a scenario file's final cluster (`run_scenarios(path)`, as
    `kubesim run` leaves it) or the objects of a List."""
    if _is_scenario_file(path):
        return run_scenarios(path)
    return objects_from_files([path])


def _template(path: str, kind: str) -> dict[str, Any]:
    """The single `v1` object of `kind` in `path`, checked as the API server would check a create."""
    docs = _documents(path, f"{kind} (expected one v1 {kind})")
    if len(docs) != 1:
        raise InvalidInput([Problem("", f"expected exactly one {kind}, found {len(docs)} documents", path)])
    obj = docs[0]
    if obj.get("apiVersion") != "v1" or obj.get("kind") != kind:
        raise InvalidInput([Problem("kind", f"expected apiVersion v1 and kind {kind}, got "
                                    f"{obj.get('apiVersion')!r} {obj.get('kind')!r}", path)])
    obj = copy.deepcopy(obj)
    meta = obj.setdefault("metadata", {})
    if not isinstance(meta, dict):
        raise InvalidInput([Problem("metadata", "expected an object", path)])
    if not meta.get("name") and not meta.get("generateName"):
        raise InvalidInput([Problem("metadata.name", "required", path)])
    if kind == "Pod":
        meta.setdefault("namespace", "default")
    try:
        message = check_new_object(ResourceRegistry(), {**obj, "metadata": {**meta, "name": meta.get("name") or meta["generateName"]}})
    except ApiError as exc:
        message = exc.message
    if message:
        raise InvalidInput([Problem("", message, path)])
    return obj


def load_pod_template(path: str) -> dict[str, Any]:
    """The pod whose copies `kubesim capacity --pod` places (spec.nodeName is cleared, as
    cluster-capacity's pod generator does)."""
    pod = _template(path, "Pod")
    spec = pod.get("spec")
    if not isinstance(spec, dict) or not spec.get("containers"):
        raise InvalidInput([Problem("spec.containers", "required: a pod needs at least one container", path)])
    spec.pop("nodeName", None)
    pod.pop("status", None)
    return pod


def load_node_template(path: str) -> dict[str, Any]:
    """The Node that `--add-nodes` adds copies of; it needs status.allocatable (what the scheduler reads)."""
    node = _template(path, "Node")
    status = node.get("status")
    if not isinstance(status, Mapping) or not status.get("allocatable"):
        raise InvalidInput([Problem("status.allocatable", "required: the template's cpu, memory and pods", path)])
    return node
