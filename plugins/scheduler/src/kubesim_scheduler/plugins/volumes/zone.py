"""VolumeZone: a node's zone/region labels must match the labels of the pod's bound volumes."""

# upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go,
# k8s.io/cloud-provider/volume/helpers/zones.go (LabelZonesToSet)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from kubesim.k8s.storage import Obj, claim_class, claim_names, name_of, namespace_of

from ...framework.cycle_state import CycleState
from ...framework.events import NODE, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import EnqueueExtensions, FilterPlugin, PreFilterPlugin, PreFilterResult
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.status import Code, Status
from .objects import NotFoundError, StorageView
from .state import storage_view

__all__ = ["VolumeZone", "ERR_REASON_CONFLICT", "TOPOLOGY_LABELS"]

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
_STATE_KEY = "PreFilterVolumeZone"
_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION = "failure-domain.beta.kubernetes.io/region"
_ZONE = "topology.kubernetes.io/zone"
_REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (_BETA_ZONE, _BETA_REGION, _ZONE, _REGION)


@attrs.frozen
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


def _to_ga(label: str) -> str:
    return {_BETA_REGION: _REGION, _BETA_ZONE: _ZONE}.get(label, label)


def _label_zones_to_set(value: str) -> frozenset[str] | None:
    """LabelZonesToSet: '__'-separated zones; None when a zone is empty."""
    zones = [z.strip() for z in value.split("__")]
    if any(not z for z in zones):
        return None
    return frozenset(zones)


def pv_topologies(pv: Obj) -> list[PVTopology]:
    out = []
    labels = (pv.get("metadata") or {}).get("labels") or {}
    for key in TOPOLOGY_LABELS:
        if key in labels:
            values = _label_zones_to_set(str(labels[key]))
            if values is not None:
                out.append(PVTopology(name_of(pv), key, values))
    return out


def _topologies_of_pod(view: StorageView, pod: Obj) -> tuple[list[PVTopology], Status | None]:
    """getPVbyPod: the zone constraints of the pod's bound volumes (WaitForFirstConsumer claims skipped)."""
    out: list[PVTopology] = []
    ns = namespace_of(pod) or "default"
    for pvc_name in claim_names(pod):
        if not pvc_name:
            return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name")
        try:
            pvc = view.claim(ns, pvc_name)
        except NotFoundError as exc:
            return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
        pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
        if not pv_name:
            sc_name = claim_class(pvc)
            if not sc_name:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  "PersistentVolumeClaim had no pv name and storageClass name")
            try:
                sc = view.storage_class(sc_name)
            except NotFoundError as exc:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
            mode = sc.get("volumeBindingMode")
            if mode is None:
                return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  f'VolumeBindingMode not set for StorageClass "{sc_name}"')
            if mode == "WaitForFirstConsumer":
                continue
            return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolume had no name")
        try:
            pv = view.volume(pv_name)
        except NotFoundError as exc:
            return [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
        out.extend(pv_topologies(pv))
    return out, None


def _pvc_hint(pod: Mapping[str, Any], _old: Any, new: Any) -> QueueingHint:
    if new is None or namespace_of(new) != (namespace_of(pod) or "default"):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE if name_of(new) in claim_names(pod) else QueueingHint.QUEUE_SKIP


def _sc_added_hint(_pod: Mapping[str, Any], _old: Any, new: Any) -> QueueingHint:
    return QueueingHint.QUEUE if new.get("volumeBindingMode") == "WaitForFirstConsumer" else QueueingHint.QUEUE_SKIP


def _pv_hint(_pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    if old is None or pv_topologies(old) != pv_topologies(new):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = "VolumeZone"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.handle.feature("SchedulerQueueingHints"):
            node_actions |= ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(ClusterEvent("StorageClass", ActionType.ADD), _sc_added_hint),
            ClusterEventWithHint(ClusterEvent(NODE, node_actions)),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", ActionType.ADD | ActionType.UPDATE), _pvc_hint),
            ClusterEventWithHint(ClusterEvent("PersistentVolume", ActionType.ADD | ActionType.UPDATE), _pv_hint),
        ]

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        if not claim_names(pod):
            return None, Status(Code.SKIP)
        topologies, status = _topologies_of_pod(storage_view(state, self.handle), pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(Code.SKIP)
        state.write(_STATE_KEY, topologies)
        return None, None

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        if not (pod.get("spec") or {}).get("volumes"):
            return None
        topologies = state.get(_STATE_KEY)
        if not isinstance(topologies, list):
            topologies, status = _topologies_of_pod(storage_view(state, self.handle), pod)
            if status is not None:
                return status
        labels = (node_info.node.get("metadata") or {}).get("labels") or {}
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return None
        for t in topologies:
            value = labels.get(t.key)
            if value is None:
                value = labels.get(_to_ga(t.key))
            if value is None or value not in t.values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return None
