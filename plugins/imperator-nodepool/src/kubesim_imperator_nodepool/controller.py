"""The MachineNodePool controller as the kubesim PreSimulationController "imperator-nodepool".

A port of upstream pkg/controllers/machinenodepool_controller.go (Reconcile, reconcile,
cleanupNode, reconcileNode, updateStatus, SetupWithManager, nodeReconcileRequest):

- watches MachineNodePools (every event) and Nodes, but only updates that change a node's
  labels, annotations or taints, mapped to the pools whose `spec.machineGroupName` is the
  node's `imperator.tenzen-y.io/machine-group` annotation (node creations and deletions are
  ignored, as upstream's predicates do);
- adds the finalizer first; on deletion cleans the nodes up and removes it;
- labels, annotates and (taint: true) taints every node of `spec.nodePool`, then writes
  `status.nodePool` and the Ready condition when the node conditions changed;
- a failed reconcile (a missing node, say) sets Ready=False with the error and is retried
  with controller-runtime's rate limiter in simulated time.

Its waiter holds when nothing is queued for now and, for every pool, a reconcile of the
current state would write nothing (checked in dry run), unless its last reconcile failed and
nothing it watches changed since: then it waits for its retry.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.errors import ApiError, NotFound

from .conditions import set_status_condition
from .keys import API_VERSION, CONDITION_READY, MACHINE_GROUP_KEY, NODE_POOL_FINALIZER
from .nodes import NodeTaintPanic, apply_pool_entry, cleanup_node, node_condition
from .ratelimit import RateLimiter
from .writer import WouldWrite, Writer

__all__ = ["MachineNodePoolController"]

KIND = "MachineNodePool"
Obj = dict[str, Any]


class ReconcileError(Exception):
    """A reconcile step failed with this message (upstream returns it as the error)."""


def _tidy(node: Obj) -> Obj:
    """Leave out empty labels, annotations and taints, as Go's omitempty does when it writes the node."""
    meta = node.get("metadata") or {}
    for field in ("labels", "annotations"):
        if field in meta and not meta[field]:
            del meta[field]
    spec = node.get("spec")
    if isinstance(spec, dict) and "taints" in spec and not spec["taints"]:
        del spec["taints"]
    return node


def _labels_and_taints(node: Obj) -> tuple[Any, Any]:
    return ((node.get("metadata") or {}).get("labels") or {}, (node.get("spec") or {}).get("taints") or [])


class MachineNodePoolController(ReconcileController):
    """Imperator's MachineNodePool controller: node labels, annotations, taints and health."""

    name = "imperator-nodepool"
    watches = ((API_VERSION, KIND), ("v1", "Node"))

    def __init__(self, runtime: Runtime) -> None:
        self._versions: dict[Hashable, int] = {}
        self._failed: dict[Hashable, int] = {}
        self._verified: dict[Hashable, int] = {}
        self.limiter = RateLimiter()
        self.last_blocker = ""
        """Why the waiter last said no: the write a reconcile would still make."""
        super().__init__(runtime)

    # --- events -----------------------------------------------------------------------

    def _bump(self, keys: list[Hashable]) -> list[Hashable]:
        for key in keys:
            self._versions[key] = self._versions.get(key, 0) + 1
        return keys

    def initial_keys(self, obj: Obj) -> Iterable[Hashable]:
        if obj.get("kind") == KIND:
            return self._bump([("", obj["metadata"]["name"])])
        return []  # a node's create event does not pass upstream's predicate

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        if obj.get("kind") == KIND:
            return self._bump([("", obj["metadata"]["name"])])
        if event.type != "MODIFIED" or event.old_object is None:
            return []
        old = event.old_object
        if (
            (obj["metadata"].get("labels") or {}) == (old["metadata"].get("labels") or {})
            and (obj["metadata"].get("annotations") or {}) == (old["metadata"].get("annotations") or {})
            and ((obj.get("spec") or {}).get("taints") or []) == ((old.get("spec") or {}).get("taints") or [])
        ):
            return []
        keys: list[Hashable] = []
        for node in (old, obj):  # EnqueueRequestsFromMapFunc maps the old and the new object
            group = (node["metadata"].get("annotations") or {}).get(MACHINE_GROUP_KEY, "")
            for pool in self.reader.list(API_VERSION, KIND):
                key = ("", pool["metadata"]["name"])
                if (pool.get("spec") or {}).get("machineGroupName", "") == group and key not in keys:
                    keys.append(key)
        return self._bump(keys)

    # --- reconcile --------------------------------------------------------------------

    def reconcile(self, key: Hashable) -> None:
        try:
            pool = self.client.get(API_VERSION, KIND, cast(tuple[str, str], key)[1])
        except NotFound:
            for table in (self._versions, self._failed, self._verified):
                table.pop(key, None)
            self.limiter.forget(key)
            return
        ok = self._reconcile(pool, Writer(self.client))
        if ok:
            self.limiter.forget(key)
            self._failed.pop(key, None)
        else:
            self._failed[key] = self._versions.get(key, 0)
            self.queue.add_after(key, self.runtime.clock.now() + self.limiter.when(key))

    def _reconcile(self, pool: Obj, writer: Writer) -> bool:
        """One Reconcile of a pool; False when upstream would return an error or ask for a requeue."""
        meta = pool["metadata"]
        finalizers = list(meta.get("finalizers") or ())
        try:
            if not meta.get("deletionTimestamp"):
                if NODE_POOL_FINALIZER not in finalizers:
                    pool = copy_tree(pool)
                    pool["metadata"]["finalizers"] = [*finalizers, NODE_POOL_FINALIZER]
                    writer.update(pool)
                    return True
            else:
                if NODE_POOL_FINALIZER in finalizers:
                    self._cleanup_nodes(pool, writer)
                    pool = copy_tree(pool)
                    pool["metadata"]["finalizers"] = [f for f in finalizers if f != NODE_POOL_FINALIZER]
                    writer.update(pool)
                return True
        except (ApiError, ReconcileError) as exc:
            self.log.info("reconcile failed", pool=meta["name"], error=_message(exc))
            return False
        try:
            self._reconcile_nodes(pool, writer)
        except (ApiError, ReconcileError) as exc:
            failed = copy_tree(pool)
            status = failed.setdefault("status", {})
            set_status_condition(status.setdefault("conditions", []), CONDITION_READY, "False", "Failure",
                                 _message(exc), self.runtime.clock.timestamp())
            try:
                self._write_status(pool, failed, writer)
            except ApiError as update_exc:
                self.log.info("failed to update MachineNodePool status", error=update_exc.message)
            return False
        try:
            return self._update_status(pool, writer)
        except ApiError:
            return False

    def _cleanup_nodes(self, pool: Obj, writer: Writer) -> None:
        """cleanupNode: undo what the pool did to its nodes; stops at the first node with nothing to undo."""
        for entry in (pool.get("spec") or {}).get("nodePool") or ():
            try:
                node = self.client.get("v1", "Node", str(entry.get("name", "")))
            except NotFound:
                node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": ""}}
            origin = copy_tree(node)
            try:
                cleanup_node(pool, node)
            except NodeTaintPanic as exc:
                raise ReconcileError(str(exc)) from None
            _tidy(node)
            if (
                (origin["metadata"].get("annotations") or {}) == (node["metadata"].get("annotations") or {})
                and _labels_and_taints(origin) == _labels_and_taints(node)
            ):
                return  # upstream returns here, leaving the remaining nodes as they are
            writer.update(node)

    def _reconcile_nodes(self, pool: Obj, writer: Writer) -> None:
        """reconcileNode: every node of spec.nodePool in order; the first failure ends it."""
        now = self.runtime.clock.timestamp()
        for entry in (pool.get("spec") or {}).get("nodePool") or ():
            node = self.client.get("v1", "Node", str(entry.get("name", "")))
            origin = copy_tree(node)
            try:
                apply_pool_entry(pool, entry, node, now)
            except NodeTaintPanic as exc:
                raise ReconcileError(str(exc)) from None
            _tidy(node)
            if _labels_and_taints(origin) == _labels_and_taints(node):
                continue  # an annotation alone is not written (upstream compares labels and taints)
            writer.update(node)

    def _update_status(self, pool: Obj, writer: Writer) -> bool:
        """updateStatus: the node conditions of every entry; written with Ready=True when they changed."""
        conditions = []
        for entry in (pool.get("spec") or {}).get("nodePool") or ():
            node = self.client.get("v1", "Node", str(entry.get("name", "")))
            cond: Obj = {}
            if entry.get("name"):
                cond["name"] = entry["name"]
            value = node_condition(entry, node)
            if value:
                cond["condition"] = value
            conditions.append(cond)
        if ((pool.get("status") or {}).get("nodePool") or []) == conditions:
            return True
        new = copy_tree(pool)
        status = new.setdefault("status", {})
        if conditions:
            status["nodePool"] = conditions
        else:
            status.pop("nodePool", None)
        set_status_condition(status.setdefault("conditions", []), CONDITION_READY, "True", "Success",
                             "update status conditions", self.runtime.clock.timestamp())
        self._write_status(pool, new, writer)
        return True

    def _write_status(self, before: Obj, new: Obj, writer: Writer) -> None:
        stored, changed = writer.update_status(new)
        if changed and not writer.dry_run:
            self.runtime.recorder.record_status(self.name, before, stored)

    # --- waiter -----------------------------------------------------------------------

    def settled(self) -> bool:
        """Every pool: a reconcile now would write nothing, or it failed and waits for its retry."""
        for pool in self.reader.list(API_VERSION, KIND):
            key = ("", pool["metadata"]["name"])
            version = self._versions.get(key, 0)
            if self._failed.get(key) == version or self._verified.get(key) == version:
                continue
            try:
                self._reconcile(copy_tree(pool), Writer(self.client, dry_run=True))
            except WouldWrite as exc:
                self.last_blocker = f"{key[1]}: would {exc}"
                return False
            self._verified[key] = version
        return True


def _message(exc: BaseException) -> str:
    return exc.message if isinstance(exc, ApiError) else str(exc)
