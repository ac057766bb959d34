"""The Machine controller as the kubesim PreSimulationController "imperator-machine".

A port of upstream pkg/controllers/machine_controller.go and controller_utils.go. One
reconcile of a Machine, in upstream's order:

1. CreateOrUpdate the MachineNodePool `<group>-node-pool` (labels, machineGroupName, a copy
   of spec.nodePool, machineTypeStock extended with new machine types, controller reference);
2. for every machine type used by a node pool entry and present in status.availableMachines,
   CreateOrUpdate the reservation StatefulSet `<group>-<type>` in the core namespace with
   replicas = maximum - (used + waiting + unscheduled reservation pods), never below 0, where
   maximum, used and waiting are the Machine's current status and unscheduled is counted now;
3. for every machine type in status.availableMachines, CreateOrUpdate the Service `<group>-<type>`;
4. recount status.availableMachines (maximum, reserved, used, waiting) and write it with
   Ready=True when it changed.

Each created or updated object marks the Machine Ready=True; a failed step sets Ready=False
with the error and the Machine is retried with controller-runtime's rate limiter in simulated
time. Upstream's CreateOrUpdate always finds the StatefulSets and Services changed (what it
writes lacks the API server's defaults), so every reconcile sends them as updates; the API
server, and kubesim's cluster, find nothing to change and store nothing.

Watched, as upstream's SetupWithManager: Machines, the MachineNodePools and StatefulSets a
Machine controls, and pods (podReconcileRequest: a pod with the machine-group and
machine-type labels of exactly one Machine, unless it is a guest outside an injected
namespace). The waiter holds when nothing is queued for now and a reconcile of every Machine
would write nothing (dry run), or its last reconcile failed and nothing it watches changed.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.cluster.workload_defaults import default_statefulset
from kubesim.errors import ApiError, NotFound
from kubesim_imperator_nodepool import (
    API_VERSION,
    CONDITION_READY,
    INJECTION_ENABLED,
    INJECTION_KEY,
    MACHINE_GROUP_KEY,
    MACHINE_TYPE_KEY,
    POD_ROLE_GUEST,
    POD_ROLE_KEY,
    POD_ROLE_RESERVATION,
    RateLimiter,
    WouldWrite,
    Writer,
    node_pool_name,
    set_status_condition,
)

from .names import core_namespace, machine_group_of, reservation_labels, reservation_name
from .ownership import AlreadyOwned, controller_of, set_controller_reference
from .reservation import generate_service, generate_statefulset
from .usage import count_reserved, count_unscheduled, count_used_and_waiting

__all__ = ["MachineController", "desired_replicas", "typed_node_pool"]

Obj = dict[str, Any]
MACHINE = "Machine"
_NEXT_INSTANT = timedelta(microseconds=1)
"""A reservation StatefulSet lowered for unscheduled reservation pods grows again only at a later instant.

Upstream counts reservation pods that cannot be scheduled in the replicas formula, so such a
pod makes its StatefulSet shrink (the pod goes), then grow (the pod comes back, unschedulable
again), and so on: a loop that takes real time on a cluster but none in a simulated instant.
Deferring the growth to the next instant (the next MajorStep) keeps the flapping, one round per
step, and lets the step end.
"""
POOL = "MachineNodePool"


class StepFailed(Exception):
    """A reconcile step failed; the message is what upstream puts into the Ready condition."""


def typed_node_pool(entries: Iterable[Any] | None) -> list[Obj]:
    """spec.nodePool as Go's typed NodePool list marshals it (unknown fields gone, taint only when true)."""
    out = []
    for np in entries or ():
        entry: Obj = {"name": np.get("name", ""), "mode": np.get("mode", "")}
        if np.get("taint"):
            entry["taint"] = True
        entry["machineType"] = [{"name": mt.get("name", "")} for mt in np.get("machineType") or ()]
        out.append(entry)
    return out


def _typed_pool(pool: Obj) -> Obj:
    """What Semantic.DeepEqual sees of a MachineNodePool: metadata as is, spec as typed, nil == empty."""
    spec = pool.get("spec") or {}
    meta = {k: v for k, v in (pool.get("metadata") or {}).items() if v not in (None, [], {})}
    return {
        "metadata": meta,
        "spec": {
            "machineGroupName": spec.get("machineGroupName", ""),
            "nodePool": typed_node_pool(spec.get("nodePool")),
            "machineTypeStock": [{"name": s.get("name", "")} for s in spec.get("machineTypeStock") or ()],
        },
        "status": pool.get("status") or {},
    }


def desired_replicas(usage: dict[str, Any], unscheduled: int) -> int:
    """maximum - (used + waiting + unscheduled reservation pods), at least 0 (reconcileStatefulSet)."""
    replicas = int(usage.get("maximum", 0)) - (int(usage.get("used", 0)) + int(usage.get("waiting", 0)) + unscheduled)
    return max(replicas, 0)


def _usage_of(machine: Obj, machine_type: str) -> dict[str, Any] | None:
    """util.GetMachineTypeUsage: the first status entry of the machine type."""
    for entry in (machine.get("status") or {}).get("availableMachines") or ():
        if entry.get("name") == machine_type:
            return dict(entry.get("usage") or {})
    return None


def _normalize(obj: Obj) -> Obj:
    """What the API server stores for an object the controller updates (StatefulSet defaulting)."""
    if obj.get("kind") == "StatefulSet" and obj.get("apiVersion") == "apps/v1":
        obj = copy_tree(obj)
        default_statefulset(obj)
    return obj


class MachineController(ReconcileController):
    """Imperator's Machine controller: node pool, reservation StatefulSets and Services, usage status."""

    name = "imperator-machine"
    watches = ((API_VERSION, MACHINE), (API_VERSION, POOL), ("apps/v1", "StatefulSet"), ("v1", "Pod"))

    def __init__(self, runtime: Runtime) -> None:
        self._versions: dict[Hashable, int] = {}
        self._failed: dict[Hashable, int] = {}
        self._verified: dict[Hashable, int] = {}
        self.limiter = RateLimiter()
        self.last_blocker = ""
        """Why the waiter last said no: the write a reconcile would still make."""
        self._lowered: dict[tuple[str, str], datetime] = {}
        self._deferred = False
        super().__init__(runtime)

    # --- events -----------------------------------------------------------------------

    def _bump(self, keys: list[Hashable]) -> list[Hashable]:
        for key in keys:
            self._versions[key] = self._versions.get(key, 0) + 1
        return keys

    def initial_keys(self, obj: Obj) -> Iterable[Hashable]:
        return self._bump(self._keys_of(obj))

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        keys = self._keys_of(event.object)
        if event.type == "MODIFIED" and event.old_object is not None:
            keys += [k for k in self._keys_of(event.old_object) if k not in keys]
        return self._bump(keys)

    def _keys_of(self, obj: Obj) -> list[Hashable]:
        kind = obj.get("kind")
        if kind == MACHINE:
            return [("", obj["metadata"]["name"])]
        if kind == "Pod":
            return self._pod_reconcile_request(obj)
        ref = controller_of(obj)  # Owns(): the controlling Machine
        if ref is not None and ref.get("kind") == MACHINE and str(ref.get("apiVersion", "")).startswith(
                API_VERSION.split("/")[0] + "/"):
            return [("", ref.get("name", ""))]
        return []

    def _pod_reconcile_request(self, pod: Obj) -> list[Hashable]:
        """podReconcileRequest: the one Machine whose group and machine type the pod names."""
        meta = pod.get("metadata") or {}
        labels = meta.get("labels") or {}
        if MACHINE_GROUP_KEY not in labels:
            return []  # (checked first: a pod of no machine group needs no namespace read)
        try:
            ns = self.reader.get("v1", "Namespace", meta.get("namespace", "default"), copy=False)
        except NotFound:
            return []
        injection = (ns["metadata"].get("labels") or {}).get(INJECTION_KEY)
        if injection != INJECTION_ENABLED and labels.get(POD_ROLE_KEY) == POD_ROLE_GUEST:
            return []
        machines = self.reader.list(API_VERSION, MACHINE,
                                         label_selector={"matchLabels": {MACHINE_GROUP_KEY: labels[MACHINE_GROUP_KEY]}})
        if len(machines) != 1 or MACHINE_TYPE_KEY not in labels:
            return []
        for mt in (machines[0].get("spec") or {}).get("machineTypes") or ():
            if mt.get("name") == labels[MACHINE_TYPE_KEY]:
                return [("", machines[0]["metadata"]["name"])]
        return []

    # --- reconcile --------------------------------------------------------------------

    def reconcile(self, key: Hashable) -> None:
        try:
            machine = self.client.get(API_VERSION, MACHINE, cast(tuple[str, str], key)[1])
        except NotFound:
            for table in (self._versions, self._failed, self._verified):
                table.pop(key, None)
            self.limiter.forget(key)
            return
        self._deferred = False
        if self._reconcile(machine, Writer(self.client, normalize=_normalize)):
            self.limiter.forget(key)
            self._failed.pop(key, None)
            if self._deferred:  # a StatefulSet lowered at this instant grows again in the next one
                self.queue.add_after(key, self.runtime.clock.now() + _NEXT_INSTANT)
        else:
            self._failed[key] = self._versions.get(key, 0)
            self.queue.add_after(key, self.runtime.clock.now() + self.limiter.when(key))

    def _reconcile(self, machine: Obj, writer: Writer) -> bool:
        """One Reconcile; False when upstream returns an error or asks for a requeue."""
        try:
            machine = self._reconcile_node_pool(machine, writer)
            machine = self._reconcile_statefulsets(machine, writer)
            machine = self._reconcile_services(machine, writer)
        except StepFailed as exc:
            return self._failed_status(machine, str(exc), writer)
        try:
            self._update_status(machine, writer)
        except (ApiError, StepFailed) as exc:  # upstream requeues without writing a failure
            self.log.info("machine status update failed", machine=machine["metadata"]["name"], error=_message(exc))
            return False
        return True

    def _reconcile_node_pool(self, machine: Obj, writer: Writer) -> Obj:
        """reconcileMachineNodePool."""
        group = machine_group_of(machine["metadata"].get("labels"))
        name = node_pool_name(group)
        try:
            try:
                existing: Obj | None = self.client.get(API_VERSION, POOL, name)
            except NotFound:
                existing = None
            pool: Obj = copy_tree(existing) if existing is not None else {
                "apiVersion": API_VERSION, "kind": POOL, "metadata": {"name": name}}
            spec: Obj = pool.setdefault("spec", {})
            stock = [dict(s) for s in spec.get("machineTypeStock") or ()]
            known = {s.get("name") for s in stock}
            labels: dict[str, str] = pool["metadata"].setdefault("labels", {})
            labels.setdefault(MACHINE_GROUP_KEY, group)
            spec["machineGroupName"] = group
            spec["nodePool"] = typed_node_pool((machine.get("spec") or {}).get("nodePool"))
            for mt in (machine.get("spec") or {}).get("machineTypes") or ():
                if mt.get("name") not in known:
                    stock.append({"name": mt.get("name", "")})
            spec["machineTypeStock"] = stock
            set_controller_reference(machine, pool)
            if existing is None:
                writer.create(pool)
            elif _typed_pool(existing) != _typed_pool(pool):
                writer.update(pool)
            else:
                return machine
        except (ApiError, AlreadyOwned) as exc:
            raise StepFailed(f"failed to reconcile MachineNodePool; {_message(exc)}") from None
        return self._success_status(machine, writer)

    def _reconcile_statefulsets(self, machine: Obj, writer: Writer) -> Obj:
        """reconcileStatefulSet: the reservation StatefulSets of the machine types in node pools."""
        group = machine_group_of(machine["metadata"].get("labels"))
        spec = machine.get("spec") or {}
        in_pools = {mt.get("name") for np in spec.get("nodePool") or () for mt in np.get("machineType") or ()}
        namespace = core_namespace()
        for mt in spec.get("machineTypes") or ():
            type_name = str(mt.get("name", ""))
            if type_name not in in_pools:
                continue
            usage = _usage_of(machine, type_name)
            if usage is None:
                continue  # "skipped to reconcile StatefuleSet": the status has no entry yet
            name = reservation_name(group, type_name)
            try:
                try:
                    existing: Obj | None = self.client.get("apps/v1", "StatefulSet", name, namespace)
                except NotFound:
                    existing = None
                sts = copy_tree(existing) if existing is not None else {
                    "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": namespace}}
                pods = self.reader.list("v1", "Pod", namespace,
                                             label_selector={"matchLabels": reservation_labels(group, type_name)})
                unscheduled = count_unscheduled(pods)
                replicas = desired_replicas(usage, unscheduled)
                current = (existing or {}).get("spec", {}).get("replicas")
                now = self.runtime.clock.now()
                if current is not None and replicas > current and self._lowered.get((namespace, name)) == now:
                    replicas = current  # see _NEXT_INSTANT: one shrink and regrowth per simulated instant
                    self._deferred = True
                generate_statefulset(mt, group, replicas, sts)
                set_controller_reference(machine, sts)
                if existing is None:
                    writer.create(sts)
                else:
                    writer.update(sts)
                    if current is not None and replicas < current and unscheduled and not writer.dry_run:
                        self._lowered[(namespace, name)] = now
            except (ApiError, AlreadyOwned) as exc:
                raise StepFailed(f"failed to reconcile StatefulSet for machineType, {type_name}; "
                                 f"{_message(exc)}") from None
            machine = self._success_status(machine, writer)
        return machine

    def _reconcile_services(self, machine: Obj, writer: Writer) -> Obj:
        """reconcileService: the reservation Service of every machine type with a status entry."""
        group = machine_group_of(machine["metadata"].get("labels"))
        namespace = core_namespace()
        for mt in (machine.get("spec") or {}).get("machineTypes") or ():
            type_name = str(mt.get("name", ""))
            if _usage_of(machine, type_name) is None:
                continue
            name = reservation_name(group, type_name)
            try:
                try:
                    existing: Obj | None = self.client.get("v1", "Service", name, namespace)
                except NotFound:
                    existing = None
                svc = copy_tree(existing) if existing is not None else {
                    "apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace}}
                generate_service(type_name, group, svc)
                set_controller_reference(machine, svc)
                if existing is None:
                    writer.create(svc)
                else:
                    writer.update(svc)
            except (ApiError, AlreadyOwned) as exc:
                raise StepFailed(f"failed to reconcile Service for machineType, {type_name}; "
                                 f"{_message(exc)}") from None
            machine = self._success_status(machine, writer)
        return machine

    def _update_status(self, machine: Obj, writer: Writer) -> None:
        """updateStatus: recount every machine type's usage; write it when it changed."""
        group = machine_group_of(machine["metadata"].get("labels"))
        spec = machine.get("spec") or {}
        desired = {mt.get("name"): int(mt.get("available", 0)) for mt in spec.get("machineTypes") or ()}
        origin = (machine.get("status") or {}).get("availableMachines") or []
        entries = copy_tree(origin)
        present = {e.get("name") for e in entries}
        for mt in spec.get("machineTypes") or ():
            if mt.get("name") not in present:
                entries.append({"name": mt.get("name", ""), "usage": {
                    "maximum": int(mt.get("available", 0)), "reserved": 0, "used": 0, "waiting": 0}})
        injected: dict[str, bool] = {}

        def injection_enabled(namespace: str) -> bool:
            if namespace not in injected:
                ns = self.client.get("v1", "Namespace", namespace)
                injected[namespace] = (ns["metadata"].get("labels") or {}).get(INJECTION_KEY) == INJECTION_ENABLED
            return injected[namespace]

        for entry in entries:
            common = {MACHINE_GROUP_KEY: group, MACHINE_TYPE_KEY: entry.get("name", "")}
            reservations = self.reader.list(
                "v1", "Pod", label_selector={"matchLabels": {**common, POD_ROLE_KEY: POD_ROLE_RESERVATION}})
            guests = self.reader.list(
                "v1", "Pod", label_selector={"matchLabels": {**common, POD_ROLE_KEY: POD_ROLE_GUEST}})
            used, waiting = count_used_and_waiting(guests, injection_enabled)
            entry["usage"] = {"maximum": desired.get(entry.get("name"), 0), "reserved": count_reserved(reservations),
                              "used": used, "waiting": waiting}
        if entries == origin:
            return
        counted = copy_tree(machine)
        counted.setdefault("status", {})["availableMachines"] = entries
        self._success_status(machine, writer, counted.get("status"))

    def _success_status(self, machine: Obj, writer: Writer, status: Obj | None = None) -> Obj:
        """updateReconcileSuccessStatus: Ready=True; a failed write fails the step with its error.

        `status` is the Machine's status as the reconcile changed it (default: as stored).
        """
        new = copy_tree(machine)
        if status is not None:
            new["status"] = copy_tree(status)
        status = new.setdefault("status", {})
        set_status_condition(status.setdefault("conditions", []), CONDITION_READY, "True", "Success",
                             "update status conditions", self.runtime.clock.timestamp())
        try:
            stored, changed = writer.update_status(new)
        except ApiError as exc:
            raise StepFailed(exc.message) from None
        if changed:
            self.runtime.recorder.record_status(self.name, machine, stored)
        return stored

    def _failed_status(self, machine: Obj, message: str, writer: Writer) -> bool:
        """updateReconcileFailedStatus: Ready=False with the error; always retried."""
        self.log.info("machine reconcile failed", machine=machine["metadata"]["name"], error=message)
        new = copy_tree(machine)
        status = new.setdefault("status", {})
        set_status_condition(status.setdefault("conditions", []), CONDITION_READY, "False", "Failure", message,
                             self.runtime.clock.timestamp())
        try:
            stored, changed = writer.update_status(new)
        except ApiError:
            return False
        if changed:
            self.runtime.recorder.record_status(self.name, machine, stored)
        return False

    # --- waiter -----------------------------------------------------------------------

    def settled(self) -> bool:
        """Every Machine: a reconcile now would write nothing, or it failed and waits for its retry."""
        for machine in self.reader.list(API_VERSION, MACHINE):
            key = ("", machine["metadata"]["name"])
            version = self._versions.get(key, 0)
            if self._failed.get(key) == version or self._verified.get(key) == version:
                continue
            try:
                self._reconcile(copy_tree(machine), Writer(self.client, dry_run=True, normalize=_normalize))
            except WouldWrite as exc:
                self.last_blocker = f"{key[1]}: would {exc}"
                return False
            self._verified[key] = version
        return True


def _message(exc: BaseException) -> str:
    return exc.message if isinstance(exc, ApiError) else str(exc)
