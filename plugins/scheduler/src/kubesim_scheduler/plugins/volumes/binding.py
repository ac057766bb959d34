"""VolumeBinding: binds a pod's unbound claims to volumes or asks for their provisioning.

PreFilter sorts the claims (bound, WaitForFirstConsumer-unbound, Immediate-unbound: the
last make the pod unschedulable until the PV controller binds them), Filter finds per
node the volumes that fit, Reserve assumes the chosen bindings, PreBind writes them and
Unreserve reverts them. Scoring needs the StorageCapacityScoring gate (alpha, off in
v1.34): without it PreScore skips.
"""

# upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from kubesim.k8s.storage import (
    Obj,
    claim_class,
    name_of,
    namespace_of,
    pod_claim_refs,
    quantity_bytes,
    storage_capacity,
    storage_request,
    volume_class,
    volume_is_for_pod,
)

from ...framework.cycle_state import CycleState
from ...framework.events import NODE, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.status import Code, Status
from ...helper import build_broken_linear_function
from .binder import BindError, PodVolumeClaims, PodVolumes, VolumeBinder
from .objects import NotFoundError
from .state import storage_view

__all__ = ["VolumeBinding", "ERR_UNBOUND_IMMEDIATE", "build_scorer"]

ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
_STATE_KEY = "VolumeBinding"


@attrs.define(eq=False)
class _StateData:
    all_bound: bool = False
    pod_volumes_by_node: dict[str, PodVolumes] = attrs.field(factory=dict)
    claims: PodVolumeClaims | None = None
    has_static_bindings: bool = False

    def clone(self) -> _StateData:
        return self  # upstream: shared between the cycle and its preemption clones


def _claim_hint(pod: Mapping[str, Any], _old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterPersistentVolumeClaimChange: the pod uses the changed claim."""
    if namespace_of(new) != (namespace_of(pod) or "default"):
        return QueueingHint.QUEUE_SKIP
    names = {n for n, _e, _v in pod_claim_refs(pod)}
    return QueueingHint.QUEUE if name_of(new) in names else QueueingHint.QUEUE_SKIP


def _class_hint(_pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterStorageClassChange: a new class, or changed allowedTopologies."""
    if old is None or (old.get("allowedTopologies") != new.get("allowedTopologies")):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _csinode_hint(_pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    key = "storage.alpha.kubernetes.io/migrated-plugins"
    if old is None:
        return QueueingHint.QUEUE
    old_ann = ((old.get("metadata") or {}).get("annotations") or {}).get(key)
    new_ann = ((new.get("metadata") or {}).get("annotations") or {}).get(key)
    return QueueingHint.QUEUE if old_ann != new_ann else QueueingHint.QUEUE_SKIP


def _capacity_limit(cap: Any) -> Any:
    return None if cap is None else cap.get("maximumVolumeSize", cap.get("capacity"))


def _capacity_hint(_pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterCSIStorageCapacityChange: new, or its volume limit grew."""
    if old is None:
        return QueueingHint.QUEUE
    new_limit, old_limit = _capacity_limit(new), _capacity_limit(old)
    if new_limit is not None and (old_limit is None or quantity_bytes(new_limit) > quantity_bytes(old_limit)):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _driver_hint(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterCSIDriverChange: storage capacity tracking turned off for an inline CSI volume."""
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        csi = vol.get("csi")
        if not csi or csi.get("driver") != name_of(new):
            continue
        if ((old or {}).get("spec") or {}).get("storageCapacity") and not (new.get("spec") or {}).get("storageCapacity"):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


ScoreFn = Callable[[Mapping[str, tuple[int, int]]], int]
_MAX_UTILIZATION = 100
_DEFAULT_SHAPE = ({"utilization": 0, "score": 10}, {"utilization": 100, "score": 0})


def build_scorer(shape: Sequence[Mapping[str, Any]]) -> ScoreFn:
    """buildScorerFunction: class -> (requested, capacity) to the mean of the per-class scores."""
    # upstream: pkg/scheduler/framework/plugins/volumebinding/scorer.go
    raw = build_broken_linear_function(
        [(int(p.get("utilization", 0)), int(p.get("score", 0)) * (MAX_NODE_SCORE // 10)) for p in shape])

    def one(requested: int, capacity: int) -> int:
        util = _MAX_UTILIZATION if capacity == 0 or requested > capacity else requested * _MAX_UTILIZATION // capacity
        return int(raw(np.array([util], dtype=np.int64))[0])

    def score(classes: Mapping[str, tuple[int, int]]) -> int:
        if not classes:
            return 0
        total = sum(one(req, cap) for req, cap in classes.values())
        return int(math.floor(total / len(classes) + 0.5))

    return score


class VolumeBinding(PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin, PreScorePlugin, ScorePlugin,
                    EnqueueExtensions):
    """The VolumeBinding plugin (bindTimeoutSeconds is accepted; the wait is not simulated)."""

    name = "VolumeBinding"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.binder = VolumeBinder(self.handle.update_object)
        self.capacity_scoring = self.handle.feature("StorageCapacityScoring")
        self.scorer: ScoreFn | None = None
        if self.capacity_scoring:
            self.scorer = build_scorer(self.args.get("shape") or _DEFAULT_SHAPE)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.handle.feature("SchedulerQueueingHints"):
            node_actions |= ActionType.UPDATE_NODE_TAINT
        add_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent("StorageClass", add_update), _class_hint),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", add_update), _claim_hint),
            ClusterEventWithHint(ClusterEvent("PersistentVolume", add_update)),
            ClusterEventWithHint(ClusterEvent(NODE, node_actions)),
            ClusterEventWithHint(ClusterEvent("CSINode", add_update), _csinode_hint),
            ClusterEventWithHint(ClusterEvent("CSIDriver", ActionType.UPDATE), _driver_hint),
            ClusterEventWithHint(ClusterEvent("CSIStorageCapacity", add_update), _capacity_hint),
        ]

    def _pod_has_pvcs(self, state: CycleState, pod: Obj) -> tuple[bool, str | None]:
        """podHasPVCs: whether the pod has claims, and why it cannot be scheduled yet."""
        refs = pod_claim_refs(pod)
        if not refs:
            return False, None
        view = storage_view(state, self.handle)
        ns = namespace_of(pod) or "default"
        for name, ephemeral, _vol in refs:
            try:
                pvc = view.claim(ns, name)
            except NotFoundError as exc:
                if ephemeral:
                    return True, f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                return True, str(exc)
            if (pvc.get("status") or {}).get("phase") == "Lost":
                volume = (pvc.get("spec") or {}).get("volumeName") or ""
                return True, f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{volume}"'
            if (pvc.get("metadata") or {}).get("deletionTimestamp"):
                return True, f'persistentvolumeclaim "{name}" is being deleted'
            if ephemeral:
                err = volume_is_for_pod(pod, pvc)
                if err:
                    return True, err
        return bool(refs), None

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        has, err = self._pod_has_pvcs(state, pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        if not has:
            state.write(_STATE_KEY, _StateData())
            return None, Status(Code.SKIP)
        try:
            claims = self.binder.get_pod_volume_claims(storage_view(state, self.handle), pod)
        except BindError as exc:
            return None, Status.from_error(exc)
        if claims.unbound_immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE)
        state.write(_STATE_KEY, _StateData(claims=PodVolumeClaims(
            bound=claims.bound, unbound_delay_binding=claims.unbound_delay_binding,
            unbound_volumes_delay_binding=claims.unbound_volumes_delay_binding)))
        return None, None

    def _state(self, state: CycleState) -> _StateData:
        data = state.get(_STATE_KEY)
        if not isinstance(data, _StateData):
            raise BindError(f'reading "{_STATE_KEY}" from cycleState: not found')
        return data

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        try:
            data = self._state(state)
            assert data.claims is not None
            volumes, reasons = self.binder.find_pod_volumes(storage_view(state, self.handle), pod, data.claims, node_info.node)
        except (BindError, AssertionError) as exc:
            return Status.from_error(exc)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        data.pod_volumes_by_node[node_info.name] = volumes
        data.has_static_bindings = data.has_static_bindings or bool(volumes.static_bindings)
        return None

    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        if self.scorer is None:
            return Status(Code.SKIP)
        data = state.get(_STATE_KEY)
        if not isinstance(data, _StateData):
            return Status.from_error(f'reading "{_STATE_KEY}" from cycleState: not found')
        if data.has_static_bindings or self.capacity_scoring:
            return None
        return Status(Code.SKIP)

    def score(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> int:
        data = state.get(_STATE_KEY)
        if self.scorer is None or not isinstance(data, _StateData):
            return 0
        volumes = data.pod_volumes_by_node.get(node_info.name)
        if volumes is None:
            return 0
        classes: dict[str, tuple[int, int]] = {}
        if volumes.static_bindings or not self.capacity_scoring:
            for b in volumes.static_bindings:
                req, cap = classes.get(volume_class(b.pv), (0, 0))
                classes[volume_class(b.pv)] = (req + storage_request(b.pvc), cap + storage_capacity(b.pv))
        else:
            for d in volumes.dynamic_provisions:
                if d.node_capacity is None:
                    continue
                cls = claim_class(d.pvc)
                req, _cap = classes.get(cls, (0, 0))
                cap = quantity_bytes(d.node_capacity.get("capacity"))
                classes[cls] = (req + storage_request(d.pvc), cap)
        return self.scorer(classes)

    def reserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        try:
            data = self._state(state)
        except BindError as exc:
            return Status.from_error(exc)
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            data.all_bound = True
            return None
        try:
            data.all_bound = self.binder.assume_pod_volumes(storage_view(state, self.handle), pod, node_name, volumes)
        except BindError as exc:
            return Status.from_error(exc)
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        try:
            data = self._state(state)
        except BindError as exc:
            return Status.from_error(exc)
        if data.all_bound:
            return Status(Code.SKIP)
        if node_name not in data.pod_volumes_by_node:
            return Status.from_error(f'no pod volume found for node "{node_name}"')
        return None

    def pre_bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        try:
            data = self._state(state)
        except BindError as exc:
            return Status.from_error(exc)
        if data.all_bound:
            return None
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return Status.from_error(f'no pod volume found for node "{node_name}"')
        try:
            self.binder.bind_pod_volumes(pod, volumes)
        except BindError as exc:
            return Status.from_error(exc)
        return None

    def unreserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> None:
        data = state.get(_STATE_KEY)
        if not isinstance(data, _StateData):
            return
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is not None:
            self.binder.revert_assumed_pod_volumes(volumes)
