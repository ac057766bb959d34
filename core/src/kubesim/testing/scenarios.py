"""Build Scenario documents (KEP-140 operations on steps) and write them as YAML.

doc = scenario("quick", {0: [create(node("n1")), create(pod("p1", cpu="1"))], 1: [done()]},
               simulation_controllers=["scheduler"])
write_yaml(tmp_path / "s.yaml", doc)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from kubesim.api import API_VERSION, KIND

__all__ = ["create", "delete", "done", "patch", "scenario", "to_yaml", "write_yaml"]

Obj = dict[str, Any]


def _meta_of(obj: Mapping[str, Any]) -> tuple[Obj, Obj]:
    meta = obj["metadata"]
    object_meta: Obj = {"name": meta["name"]}
    if meta.get("namespace"):
        object_meta["namespace"] = meta["namespace"]
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"]}, object_meta


def create(obj: Mapping[str, Any], *, id: str | None = None) -> Obj:
    """A createOperation of `obj` (the step is given by `scenario`)."""
    op: Obj = {"createOperation": {"object": dict(obj)}}
    if id is not None:
        op["id"] = id
    return op


def patch(
    target: Mapping[str, Any],
    body: Mapping[str, Any] | Sequence[Any],
    *,
    patch_type: str = "application/merge-patch+json",
    subresource: str | None = None,
    id: str | None = None,
) -> Obj:
    """A patchOperation of the object `target` names (apiVersion, kind, metadata.name/namespace).

    `patch_type` is a content type or its short name ("merge", "strategic", "json").
    """
    type_meta, object_meta = _meta_of(target)
    inner: Obj = {
        "typeMeta": type_meta,
        "objectMeta": object_meta,
        "patch": json.dumps(body, sort_keys=True),
        "patchType": patch_type,
    }
    if subresource is not None:
        inner["subresource"] = subresource
    op: Obj = {"patchOperation": inner}
    if id is not None:
        op["id"] = id
    return op


def delete(
    target: Mapping[str, Any],
    *,
    grace_period_seconds: int | None = None,
    propagation_policy: str | None = None,
    id: str | None = None,
) -> Obj:
    """A deleteOperation of the object `target` names."""
    type_meta, object_meta = _meta_of(target)
    inner: Obj = {"typeMeta": type_meta, "objectMeta": object_meta}
    options = {
        k: v
        for k, v in (("gracePeriodSeconds", grace_period_seconds), ("propagationPolicy", propagation_policy))
        if v is not None
    }
    if options:
        inner["deleteOptions"] = options
    op: Obj = {"deleteOperation": inner}
    if id is not None:
        op["id"] = id
    return op


def done(*, id: str | None = None) -> Obj:
    """The doneOperation: the scenario ends Succeeded after its step."""
    op: Obj = {"doneOperation": {}}
    if id is not None:
        op["id"] = id
    return op


def _controller_set(names: Iterable[str] | None) -> Obj | None:
    return None if names is None else {"enabled": [{"name": n} for n in names]}


def scenario(
    name: str,
    steps: Mapping[int, Sequence[Mapping[str, Any]]],
    *,
    simulation_controllers: Sequence[str] | None = None,
    pre_simulation_controllers: Sequence[str] | None = None,
    disabled_pre_simulation_controllers: Sequence[str] = (),
) -> Obj:
    """A Scenario document: `steps` maps each MajorStep to its operations (from create/patch/...).

    `pre_simulation_controllers` None keeps every installed one; disabled ones are left out.
    """
    operations: list[Obj] = []
    for step in sorted(steps):
        if step < 0:
            raise ValueError(f"scenario {name!r}: step {step} is negative")
        operations.extend({**dict(op), "step": step} for op in steps[step])
    controllers: Obj = {"simulationControllers": _controller_set(simulation_controllers) or {"enabled": []}}
    pre = _controller_set(pre_simulation_controllers)
    if pre is not None or disabled_pre_simulation_controllers:
        pre = pre or {}
        if disabled_pre_simulation_controllers:
            pre["disabled"] = [{"name": n} for n in disabled_pre_simulation_controllers]
        controllers["preSimulationControllers"] = pre
    spec: Obj = {"operations": operations, "controllers": controllers}  # required (KEP-140)
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name}, "spec": spec}


def to_yaml(*documents: Mapping[str, Any]) -> str:
    """The documents as one multi-document YAML text, keys in the order built."""
    return str(yaml.safe_dump_all([dict(d) for d in documents], sort_keys=False, allow_unicode=True))


def write_yaml(path: str | Path, *documents: Mapping[str, Any]) -> Path:
    """Write the documents to `path` as YAML; returns the path."""
    out = Path(path)
    out.write_text(to_yaml(*documents), encoding="utf-8")
    return out
