"""VolumeRestrictions: in-tree disks that cannot be shared, and ReadWriteOncePod claims in use."""

# upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.k8s.storage import Obj, claim_names, name_of, namespace_of

from ...framework.cycle_state import CycleState
from ...framework.events import NODE, POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import EnqueueExtensions, FilterPlugin, PreFilterExtensions, PreFilterPlugin, PreFilterResult
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.pod_info import PodInfo
from ...framework.status import Code, Status
from .objects import NotFoundError
from .state import storage_view

__all__ = ["VolumeRestrictions", "ERR_REASON_DISK_CONFLICT", "ERR_REASON_RWOP_CONFLICT"]

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod")
_STATE_KEY = "PreFilterVolumeRestrictions"
_CHECKED = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


@attrs.define(eq=False)
class _State:
    rwop_claims: frozenset[str]
    conflicting_refs: int = 0

    def clone(self) -> _State:
        return _State(self.rwop_claims, self.conflicting_refs)

    def update_with_pod(self, pod: Obj, multiplier: int) -> None:
        self.conflicting_refs += multiplier * sum(1 for n in claim_names(pod) if n in self.rwop_claims)


def _volumes(pod: Obj) -> Sequence[Mapping[str, Any]]:
    return [v for v in (pod.get("spec") or {}).get("volumes") or () if isinstance(v, Mapping)]


def _needs_check(vol: Mapping[str, Any]) -> bool:
    return any(vol.get(k) is not None for k in _CHECKED)


def _is_volume_conflict(vol: Mapping[str, Any], pod: Obj) -> bool:
    """isVolumeConflict: the same disk mounted read-write by both pods (EBS: at all)."""
    for ev in _volumes(pod):
        a, b = vol.get("gcePersistentDisk"), ev.get("gcePersistentDisk")
        if a is not None and b is not None and a.get("pdName") == b.get("pdName") \
                and not (a.get("readOnly") and b.get("readOnly")):
            return True
        a, b = vol.get("awsElasticBlockStore"), ev.get("awsElasticBlockStore")
        if a is not None and b is not None and a.get("volumeID") == b.get("volumeID"):
            return True
        a, b = vol.get("iscsi"), ev.get("iscsi")
        if a is not None and b is not None and a.get("iqn") == b.get("iqn") \
                and not (a.get("readOnly") and b.get("readOnly")):
            return True
        a, b = vol.get("rbd"), ev.get("rbd")
        if a is not None and b is not None and set(a.get("monitors") or ()) & set(b.get("monitors") or ()) \
                and (a.get("pool") or "rbd") == (b.get("pool") or "rbd") and a.get("image") == b.get("image") \
                and not (a.get("readOnly") and b.get("readOnly")):
            return True
    return False


def satisfy_volume_conflicts(pod: Obj, existing: Sequence[Obj]) -> bool:
    """satisfyVolumeConflicts over the pods already on the node."""
    for vol in _volumes(pod):
        if _needs_check(vol) and any(_is_volume_conflict(vol, ep) for ep in existing):
            return False
    return True


def _pvc_added_hint(pod: Mapping[str, Any], _old: Any, new: Any) -> QueueingHint:
    if namespace_of(new) != (namespace_of(pod) or "default"):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE if name_of(new) in claim_names(pod) else QueueingHint.QUEUE_SKIP


def _pod_deleted_hint(pod: Mapping[str, Any], old: Any, _new: Any) -> QueueingHint:
    if namespace_of(old) != namespace_of(pod):
        return QueueingHint.QUEUE_SKIP
    if not satisfy_volume_conflicts(pod, [old]):
        return QueueingHint.QUEUE
    mine = set(claim_names(pod))
    return QueueingHint.QUEUE if any(n in mine for n in claim_names(old)) else QueueingHint.QUEUE_SKIP


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, PreFilterExtensions, EnqueueExtensions):
    name = "VolumeRestrictions"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD
        if not self.handle.feature("SchedulerQueueingHints"):
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(ClusterEvent(POD, ActionType.DELETE), _pod_deleted_hint),
            ClusterEventWithHint(ClusterEvent(NODE, node_actions)),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", ActionType.ADD), _pvc_added_hint),
        ]

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        needs_check = any(_needs_check(v) for v in _volumes(pod))
        names = claim_names(pod)
        rwop: set[str] = set()
        if names:
            view = storage_view(state, self.handle)
            ns = namespace_of(pod) or "default"
            for n in names:
                try:
                    pvc = view.claim(ns, n)
                except NotFoundError as exc:
                    return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
                if "ReadWriteOncePod" in ((pvc.get("spec") or {}).get("accessModes") or ()):
                    rwop.add(name_of(pvc))
        s = _State(frozenset(rwop))
        if rwop:
            ns = namespace_of(pod) or "default"
            used = {(namespace_of(p.pod) or "default", c) for p in self.handle.assigned_pods() for c in claim_names(p.pod)}
            s.conflicting_refs = sum(1 for c in rwop if (ns, c) in used)
        if not needs_check and s.conflicting_refs == 0:
            return None, Status(Code.SKIP)
        state.write(_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self

    def add_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return Status.from_error(f'cannot read "{_STATE_KEY}" from cycleState')
        s.update_with_pod(pod_info_to_add.pod, 1)
        return None

    def remove_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return Status.from_error(f'cannot read "{_STATE_KEY}" from cycleState')
        s.update_with_pod(pod_info_to_remove.pod, -1)
        return None

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod, [p.pod for p in node_info.pods]):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return Status.from_error(f'cannot read "{_STATE_KEY}" from cycleState')
        if s.conflicting_refs > 0:
            return Status(Code.UNSCHEDULABLE, ERR_REASON_RWOP_CONFLICT)
        return None
