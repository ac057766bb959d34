"""Building the Scenario that recreates an imported cluster's scheduling state.

Step 0 creates the cluster in dependency order (kinds.IMPORTED_KINDS) with the bound pods on
their nodes; step 1 creates the pending pods, for the scheduler under test to place; a
doneOperation ends the scenario at step 2.
"""

from __future__ import annotations

import json

from collections.abc import Iterable
from typing import Any

from kubesim.api import API_VERSION, KIND

from .cleaning import PAUSED_ANNOTATION, owner_of
from .kinds import DEFAULT_NAMESPACES
from .selection import object_key, select_objects

__all__ = ["LEFT_TO_CONTROLLER", "WORKLOAD_POD_MODES", "scenario_from_objects"]

WORKLOAD_POD_MODES = ("keep", "controller")
"""keep: a workload's bound pods are created as they are, on their nodes (Deployments paused);
controller: they are left out and the workload's controller creates and schedules them anew."""

LEFT_TO_CONTROLLER = frozenset({("Pod", "ReplicaSet"), ("Pod", "StatefulSet"), ("ReplicaSet", "Deployment")})
"""(kind, owner kind) pairs that kubesim's controllers create in a simulation (record leaves them out too)."""


def _ops(obj: dict[str, Any], step: int) -> list[dict[str, Any]]:
    """The object's create, then (on the same step) a merge patch of its status subresource with
    the status the import kept: the API server resets the status on create (all kinds but Node,
    strategies.prepare_for_create), so a pod's startTime or a PDB's disruptionsAllowed is set
    as a status write, as the kubelet or the disruption controller would have written it."""
    meta = obj["metadata"]
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    ident = f"{obj['kind'].lower()}/{where}{meta['name']}"
    status = obj.get("status") if obj["kind"] != "Node" else None
    if not status or status == {"phase": "Pending"}:
        return [{"id": ident, "step": step, "createOperation": {"object": obj}}]
    created = {k: v for k, v in obj.items() if k != "status"}
    ref = {"name": meta["name"], **({"namespace": meta["namespace"]} if meta.get("namespace") else {})}
    return [{"id": ident, "step": step, "createOperation": {"object": created}},
            {"id": f"{ident}/status", "step": step, "patchOperation": {
                "typeMeta": {"apiVersion": obj["apiVersion"], "kind": obj["kind"]}, "objectMeta": ref,
                "patch": json.dumps({"status": status}, sort_keys=True, separators=(",", ":")),
                "patchType": "application/merge-patch+json", "subresource": "status"}}]


def _left_to_controller(obj: dict[str, Any], imported: set[tuple[str, str, str]]) -> bool:
    owner = owner_of(obj)
    if owner is None or (obj["kind"], owner[0]) not in LEFT_TO_CONTROLLER:
        return False
    return (owner[0], obj["metadata"].get("namespace") or "", owner[1]) in imported


def _with_namespaces(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`objects` with a Namespace for every namespace they use that neither they nor kubesim
    create (a kube-scheduler-simulator export before v0.3 has no namespaces, a --selector may
    leave them out), so that nothing is refused by NamespaceLifecycle admission."""
    have = {o["metadata"]["name"] for o in objects if o["kind"] == "Namespace"} | set(DEFAULT_NAMESPACES)
    used = {o["metadata"]["namespace"] for o in objects if o["metadata"].get("namespace")}
    missing = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in sorted(used - have)]
    return sorted(objects + missing, key=object_key) if missing else objects


def scenario_from_objects(objects: Iterable[dict[str, Any]], name: str = "imported", workload_pods: str = "keep",
                          done: bool = True, bound_step: int = 0, pending_step: int = 1) -> dict[str, Any]:
    """A Scenario document (dict) that creates `objects` (raw or cleaned).

    workload_pods "keep": bound pods of a ReplicaSet or StatefulSet are kept on their nodes,
    their pending pods left to the controller (it creates as many as are missing), and
    Deployments paused so that no rollout replaces what was imported; "controller": every pod
    (and Deployment-owned ReplicaSet) of an imported workload is left to its controller.
    """
    if workload_pods not in WORKLOAD_POD_MODES:
        raise ValueError(f"workload_pods must be one of {', '.join(WORKLOAD_POD_MODES)}, not {workload_pods!r}")
    selected = _with_namespaces(select_objects(objects).objects)
    imported = {(o["kind"], o["metadata"].get("namespace") or "", o["metadata"]["name"]) for o in selected}
    ops: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for obj in selected:
        kind = obj["kind"]
        bound = kind != "Pod" or bool((obj.get("spec") or {}).get("nodeName"))
        if _left_to_controller(obj, imported) and (workload_pods == "controller" or not bound):
            continue
        if kind == "Deployment" and workload_pods == "keep" and not (obj.get("spec") or {}).get("paused"):
            obj.setdefault("spec", {})["paused"] = True
            obj["metadata"].setdefault("annotations", {})[PAUSED_ANNOTATION] = "true"
        if bound:
            ops.extend(_ops(obj, bound_step))
        else:
            pending.extend(_ops(obj, pending_step))
    ops.extend(pending)
    if done:
        ops.append({"id": "done", "step": max(bound_step, pending_step) + 1, "doneOperation": {}})
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": {"name": name},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                     "operations": ops}}
