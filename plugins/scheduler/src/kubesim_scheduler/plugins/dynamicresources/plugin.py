"""DynamicResources: schedule pods whose ResourceClaims need devices from ResourceSlices.

PreEnqueue waits for every claim to exist; PreFilter reads the pod's claims and prepares the
structured allocator (unallocated claims) or the node selector of allocated ones; Filter
allocates per node; PostFilter deallocates one unavailable claim that no other pod uses;
Reserve keeps the chosen node's allocation as in flight (other pods' allocators treat its
devices as taken); Unreserve drops it and un-reserves the pod; PreBind writes the allocation
(with the delete-protection finalizer) and adds the pod to status.reservedFor. Claims are
shared: a claim allocated for one pod is reserved for every pod that names it, on the
allocation's node. The extended-resource mapping (DRAExtendedResource), binding conditions
and device taints are alpha in v1.34 and not modelled.
"""

# upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
# (EventsToRegister, PreEnqueue, isSchedulableAfterClaimChange, isSchedulableAfterPodChange,
# foreachPodResourceClaim, PreFilter, validateDeviceClass, Filter, PostFilter, Reserve,
# Unreserve, PreBind, bindClaim), allocateddevices.go, dra_manager.go (in-flight allocations)

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import attrs
from kubesim.errors import ApiError

from ...framework.cycle_state import CycleState
from ...framework.diagnosis import NodeToStatus
from ...framework.events import NODE, POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
)
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.status import Code, Status
from ..nodeaffinity import NodeSelector
from .allocator import AllocationError, AllocationTimeout, Allocator, DeviceID
from .claims import FINALIZER, ClaimNotFound, claim_name, is_for_pod, is_reserved_for_pod

__all__ = ["DynamicResources", "RESOURCE_CLAIM", "RESOURCE_SLICE", "DEVICE_CLASS", "NAME", "STEPS_PER_SECOND",
           "allocation_steps"]

NAME = "DynamicResources"
RESOURCE_CLAIM = "ResourceClaim"
RESOURCE_SLICE = "ResourceSlice"
DEVICE_CLASS = "DeviceClass"
_STATE_KEY = NAME
DEFAULT_FILTER_TIMEOUT = 10.0
#: allocator search steps per second of filterTimeout: kubesim's deterministic stand-in for time
STEPS_PER_SECOND = 20_000
#: the bound when the timeout is off (filterTimeout 0 or the gate off): loops stay bounded
UNBOUNDED_STEPS = 10_000_000

Obj = Mapping[str, Any]


@attrs.define
class _State:
    """stateData: the pod's claims and what Filter found for each node."""

    claims: list[Obj] = attrs.field(factory=list)
    available_on: list[NodeSelector | None] = attrs.field(factory=list)
    allocator: Allocator | None = None
    node_allocations: dict[str, list[dict[str, Any]]] = attrs.field(factory=dict)
    unavailable: set[int] = attrs.field(factory=set)
    allocations: dict[int, dict[str, Any]] = attrs.field(factory=dict)

    def clone(self) -> _State:
        return self  # upstream: Clone returns the same pointer (the state is shared)

    def to_allocate(self) -> list[tuple[int, Obj]]:
        return [(i, c) for i, c in enumerate(self.claims) if not (c.get("status") or {}).get("allocation")]


def _meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def _key(obj: Obj) -> str:
    return f"{_meta(obj).get('namespace', '')}/{_meta(obj).get('name', '')}"


def allocation_steps(filter_timeout: Any, gate: bool = True) -> int:
    """The allocator's step budget for a Filter call: filterTimeout (seconds) at STEPS_PER_SECOND.

    Upstream stops Filter after filterTimeout of wall time (0 or DRASchedulerFilterTimeout off:
    no limit); a simulation must not depend on the machine's speed, so time is counted in
    search steps instead.
    """
    seconds = filter_timeout if isinstance(filter_timeout, (int, float)) else DEFAULT_FILTER_TIMEOUT
    if not gate or seconds <= 0:
        return UNBOUNDED_STEPS
    return min(UNBOUNDED_STEPS, max(1, math.ceil(seconds * STEPS_PER_SECOND)))


def _unresolvable(msg: str) -> Status:
    """statusUnschedulable: UnschedulableAndUnresolvable with the reason."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin, ReservePlugin,
                       PreBindPlugin, EnqueueExtensions):
    """kube-scheduler's DynamicResources plugin (resource.k8s.io/v1, structured parameters)."""

    name = NAME

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.enabled = self.handle.feature("DynamicResourceAllocation")
        self._max_steps = allocation_steps(self.args.get("filterTimeout", DEFAULT_FILTER_TIMEOUT),
                                           self.handle.feature("DRASchedulerFilterTimeout"))
        # claim uid -> the claim with the allocation Reserve chose (dra_manager's inFlightAllocations)
        self._in_flight: dict[str, Obj] = {}

    # ------------------------------------------------------------- lookups
    def _claim(self, namespace: str, name: str) -> Obj | None:
        return self.handle.get_object(RESOURCE_CLAIM, namespace, name)

    def _pod_claims(self, pod: Obj) -> list[Obj]:
        """foreachPodResourceClaim: every claim of the pod, or ClaimNotFound with the reason."""
        out: list[Obj] = []
        ns = str(_meta(pod).get("namespace") or "default")
        for pod_claim in (pod.get("spec") or {}).get("resourceClaims") or ():
            name, must_own = claim_name(pod, pod_claim)
            if name is None:
                continue
            claim = self._claim(ns, name)
            if claim is None:
                raise ClaimNotFound(f'resourceclaim.resource.k8s.io "{name}" not found')
            if _meta(claim).get("deletionTimestamp"):
                raise ClaimNotFound(f'resourceclaim "{name}" is being deleted')
            if must_own:
                why = is_for_pod(pod, claim)
                if why is not None:
                    raise ClaimNotFound(why)
            out.append(claim)
        return out

    def _allocated_devices(self) -> set[DeviceID]:
        """ListAllAllocatedDevices: devices of allocated claims and in-flight allocations (not admin access)."""
        used: set[DeviceID] = set()
        claims = list(self.handle.list_objects(RESOURCE_CLAIM, None)) + list(self._in_flight.values())
        for claim in claims:
            alloc = (claim.get("status") or {}).get("allocation") or {}
            for r in (alloc.get("devices") or {}).get("results") or ():
                if not r.get("adminAccess"):
                    used.add((str(r.get("driver")), str(r.get("pool")), str(r.get("device"))))
        return used

    def _device_class(self, name: str) -> Obj | None:
        return self.handle.get_object(DEVICE_CLASS, None, name)

    # ------------------------------------------------------------- events
    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enabled:
            return []
        return [
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE)),
            ClusterEventWithHint(ClusterEvent(RESOURCE_CLAIM, ActionType.ADD | ActionType.UPDATE), self._after_claim_change),
            ClusterEventWithHint(ClusterEvent(POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM), self._after_pod_change),
            ClusterEventWithHint(ClusterEvent(DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE)),
            ClusterEventWithHint(ClusterEvent(RESOURCE_SLICE, ActionType.ADD | ActionType.UPDATE)),
        ]

    def _after_claim_change(self, pod: Obj, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterClaimChange (an object that is not a claim: Queue, as upstream's error does)."""
        if (new is not None and not isinstance(new, Mapping)) or (old is not None and not isinstance(old, Mapping)):
            return QueueingHint.QUEUE
        try:
            claims = self._pod_claims(pod)
        except ClaimNotFound:
            return QueueingHint.QUEUE_SKIP
        if new is None:
            return QueueingHint.QUEUE_SKIP  # deletes are not registered; nothing to gain
        uses = any(_meta(c).get("uid") == _meta(new).get("uid") for c in claims)
        if old is not None and (old.get("status") or {}).get("allocation") and not (new.get("status") or {}).get("allocation"):
            return QueueingHint.QUEUE  # deallocated: devices became free
        if not uses:
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP if (old.get("status") or {}) == (new.get("status") or {}) else QueueingHint.QUEUE

    def _after_pod_change(self, pod: Obj, old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterPodChange: the pod's own claims got generated."""
        if not isinstance(new, Mapping):
            return QueueingHint.QUEUE
        if _meta(pod).get("uid") != _meta(new).get("uid"):
            return QueueingHint.QUEUE_SKIP
        try:
            self._pod_claims(new)
        except ClaimNotFound:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # ---------------------------------------------------------- pre-enqueue
    def pre_enqueue(self, pod: Obj) -> Status | None:
        if not self.enabled:
            return None
        try:
            self._pod_claims(pod)
        except ClaimNotFound as e:
            return _unresolvable(str(e))
        return None

    # ------------------------------------------------------------ prefilter
    def pre_filter(self, state: CycleState, pod: Obj, nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.SKIP)
        s = _State()
        state.write(_STATE_KEY, s)
        try:
            claims = self._pod_claims(pod)
        except ClaimNotFound as e:
            return None, _unresolvable(str(e))
        if not claims:
            return None, Status(Code.SKIP)
        s.available_on = [None] * len(claims)
        to_allocate = 0
        for i, claim in enumerate(claims):
            alloc = (claim.get("status") or {}).get("allocation")
            if alloc:
                if alloc.get("nodeSelector") is not None:
                    s.available_on[i] = NodeSelector(alloc["nodeSelector"])
                continue
            to_allocate += 1
            if str(_meta(claim).get("uid")) in self._in_flight:
                return None, _unresolvable(f"resource claim {_key(claim)} is in the process of being allocated")
            for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
                if request.get("exactly"):
                    targets = [(str(request.get("name")), request["exactly"].get("deviceClassName"))]
                elif request.get("firstAvailable"):
                    if not self.handle.feature("DRAPrioritizedList"):
                        return None, _unresolvable(f"resource claim {_key(claim)}, request {request.get('name')}: has subrequests, but the DRAPrioritizedList feature is disabled")
                    targets = [(f"{request.get('name')}/{sub.get('name')}", sub.get("deviceClassName")) for sub in request["firstAvailable"]]
                else:
                    return None, _unresolvable(f"resource claim {_key(claim)}, request {request.get('name')}: unknown request type")
                for req_name, class_name in targets:
                    if not class_name:
                        return None, Status.from_error(f"request {req_name}: unsupported request type")
                    if self._device_class(str(class_name)) is None:
                        return None, _unresolvable(f"request {req_name}: device class {class_name} does not exist")
        if to_allocate:
            slices = sorted(self.handle.list_objects(RESOURCE_SLICE, None), key=lambda o: str(_meta(o).get("name", "")))
            s.allocator = Allocator(self._device_class, slices, self._allocated_devices(),
                                    admin_access=self.handle.feature("DRAAdminAccess"),
                                    prioritized_list=self.handle.feature("DRAPrioritizedList"),
                                    device_taints=self.handle.feature("DRADeviceTaints"),
                                    partitionable_devices=self.handle.feature("DRAPartitionableDevices"),
                                    max_steps=self._max_steps)
        s.claims = claims
        return None, None

    # --------------------------------------------------------------- filter
    def filter(self, state: CycleState, pod: Obj, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return Status.from_error(f'reading "{_STATE_KEY}" from cycleState: not found')
        if not s.claims:
            return None
        node = node_info.node
        unavailable = [i for i, sel in enumerate(s.available_on) if sel is not None and not sel.match_node(node)]
        results: list[dict[str, Any]] | None = None
        if s.allocator is not None:
            pending = [c for _, c in s.to_allocate()]
            try:
                results = s.allocator.allocate(node, pending)
            except AllocationTimeout:
                return _unresolvable("timed out trying to allocate devices")
            except AllocationError as e:
                return Status.from_error(str(e))
            if results is None or len(results) != len(pending):
                return _unresolvable("cannot allocate all claims")
        if unavailable:
            s.unavailable.update(unavailable)
            return _unresolvable("resourceclaim not available on the node")
        if s.allocator is not None and results is not None:
            s.node_allocations[str(_meta(node).get("name"))] = results
        return None

    # ----------------------------------------------------------- postfilter
    def post_filter(self, state: CycleState, pod: Obj, statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE, "plugin disabled")
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State) or not s.claims:
            return None, Status(Code.UNSCHEDULABLE, "no new claims to deallocate")
        uid = _meta(pod).get("uid")
        # upstream picks one at random (map order); the lowest index keeps runs repeatable
        for i in sorted(s.unavailable):
            claim = s.claims[i]
            reserved = (claim.get("status") or {}).get("reservedFor") or []
            if not reserved or (len(reserved) == 1 and reserved[0].get("uid") == uid):
                updated = copy.deepcopy(dict(claim))
                status = updated.setdefault("status", {})
                for field in ("reservedFor", "allocation", "devices"):
                    status.pop(field, None)
                try:
                    self.handle.update_object(updated, status=True)
                except ApiError as e:
                    return None, Status.from_error(e.message)
                return None, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        return None, Status(Code.UNSCHEDULABLE, "still not schedulable")

    # -------------------------------------------------------------- reserve
    def reserve(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State) or not s.claims:
            return None
        pending = s.to_allocate()
        if not pending or s.allocator is None:
            return None
        results = s.node_allocations.get(node_name)
        if not results:
            return Status.from_error("claim allocation not found for node")
        if len(results) != len(pending):
            return Status.from_error(f"internal error, have {len(results)} allocations, {len(pending)} claims to allocate, want {len(pending)} claims")
        for (index, claim), allocation in zip(pending, results):
            s.allocations[index] = allocation
            flying = copy.deepcopy(dict(claim))
            flying.setdefault("status", {})["allocation"] = allocation
            self._in_flight[str(_meta(claim).get("uid"))] = flying
        return None

    def unreserve(self, state: CycleState, pod: Obj, node_name: str) -> None:
        if not self.enabled:
            return
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State) or not s.claims:
            return
        uid = _meta(pod).get("uid")
        for claim in s.claims:
            self._in_flight.pop(str(_meta(claim).get("uid")), None)
            current = self.handle.get_object(RESOURCE_CLAIM, _meta(claim).get("namespace"), str(_meta(claim).get("name")))
            if current is None or not (current.get("status") or {}).get("allocation") or not is_reserved_for_pod(pod, current):
                continue
            updated = copy.deepcopy(dict(current))
            updated["status"]["reservedFor"] = [r for r in updated["status"].get("reservedFor") or () if r.get("uid") != uid]
            try:
                self.handle.update_object(updated, status=True)
            except ApiError:
                pass  # upstream logs it; the next attempt gets here again

    # -------------------------------------------------------------- prebind
    def pre_bind_pre_flight(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        s = state.get(_STATE_KEY)
        if not self.enabled or not isinstance(s, _State) or not s.claims:
            return Status(Code.SKIP)
        return None

    def pre_bind(self, state: CycleState, pod: Obj, node_name: str) -> Status | None:
        if not self.enabled:
            return None
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State) or not s.claims:
            return None
        for index, claim in enumerate(s.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            try:
                s.claims[index] = self._bind_claim(s, index, pod)
            except (ApiError, _BindError) as e:
                return Status.from_error(getattr(e, "message", None) or str(e))
            finally:
                if index in s.allocations:
                    self._in_flight.pop(str(_meta(claim).get("uid")), None)
        return None

    def _bind_claim(self, s: _State, index: int, pod: Obj) -> Obj:
        """bindClaim: write the allocation (finalizer first) and add the pod to reservedFor."""
        claim = s.claims[index]
        allocation = s.allocations.get(index)
        meta = _meta(claim)
        current = self.handle.get_object(RESOURCE_CLAIM, meta.get("namespace"), str(meta.get("name")))
        if current is None or _meta(current).get("deletionTimestamp"):
            raise _BindError(f"claim {_key(claim)} got deleted in the meantime")
        updated = copy.deepcopy(dict(current))
        if allocation is not None:
            if (updated.get("status") or {}).get("allocation"):
                raise _BindError(f"claim {_key(claim)} got allocated elsewhere in the meantime")
            finalizers = list(updated["metadata"].get("finalizers") or ())
            if FINALIZER not in finalizers:
                updated["metadata"]["finalizers"] = [*finalizers, FINALIZER]
                updated = copy.deepcopy(dict(self.handle.update_object(updated)))
            updated.setdefault("status", {})["allocation"] = copy.deepcopy(allocation)
        pm = _meta(pod)
        status = updated.setdefault("status", {})
        status["reservedFor"] = [*(status.get("reservedFor") or ()),
                                 {"resource": "pods", "name": pm.get("name"), "uid": pm.get("uid")}]
        return self.handle.update_object(updated, status=True)


class _BindError(RuntimeError):
    """bindClaim found the claim changed under it (deleted, or allocated by someone else)."""
