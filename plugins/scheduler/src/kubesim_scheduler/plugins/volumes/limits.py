"""NodeVolumeLimits: CSI attach limits per driver, from the node's CSINode allocatable counts.

In-tree volume sources are not translated to CSI (kubesim models CSI drivers only), so
inline in-tree volumes and PVs with in-tree sources are not counted.
"""

# upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.k8s.storage import Obj, claim_class, name_of, namespace_of, pod_claim_refs, volume_is_for_pod

from ...framework.cycle_state import CycleState
from ...framework.events import POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import EnqueueExtensions, FilterPlugin, PreFilterPlugin, PreFilterResult
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.status import Code, Status
from .objects import NotFoundError, StorageView
from .state import storage_view

__all__ = ["NodeVolumeLimits", "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "VOLUME_HANDLE_PREFIX"]

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
#: upstream draws a random 32-character prefix per scheduler; any fixed one works the same
VOLUME_HANDLE_PREFIX = "kubesim"


class _LookupError(Exception):
    def __init__(self, message: str, not_found: bool) -> None:
        super().__init__(message)
        self.not_found = not_found


def volume_limits(csi_node: Obj | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable.count of the drivers that set one."""
    out: dict[str, int] = {}
    for d in ((csi_node or {}).get("spec") or {}).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[str(d.get("name") or "")] = int(count)
    return out


def _csi_driver_info(view: StorageView, pvc: Obj) -> tuple[str, str]:
    """getCSIDriverInfo: (driver, volume handle) of the claim's PV, or from its class."""
    pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
    if pv_name:
        try:
            pv = view.volume(pv_name)
        except NotFoundError:
            pv = None
        if pv is not None:
            csi = (pv.get("spec") or {}).get("csi")
            if not csi:
                return "", ""
            return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
    sc_name = claim_class(pvc)
    if not sc_name:
        return "", ""
    try:
        sc = view.storage_class(sc_name)
    except NotFoundError:
        return "", ""
    handle = f"{VOLUME_HANDLE_PREFIX}-{namespace_of(pvc)}/{name_of(pvc)}"
    return str(sc.get("provisioner") or ""), handle


def _attachable_volumes(view: StorageView, pod: Obj, new_pod: bool, result: dict[str, str]) -> None:
    """filterAttachableVolumes: unique volume name -> driver of the pod's claims."""
    ns = namespace_of(pod) or "default"
    for name, ephemeral, _vol in pod_claim_refs(pod):
        if not name:
            raise _LookupError("PersistentVolumeClaim had no name", False)
        try:
            pvc = view.claim(ns, name)
        except NotFoundError as exc:
            if new_pod:
                raise _LookupError(f"looking up PVC {ns}/{name}: {exc}", True) from exc
            continue
        if ephemeral:
            err = volume_is_for_pod(pod, pvc)
            if err:
                raise _LookupError(err, False)
        driver, handle = _csi_driver_info(view, pvc)
        if driver and handle:
            result[f"{driver}/{handle}"] = driver


def _pod_deleted_hint(_pod: Mapping[str, Any], old: Any, _new: Any) -> QueueingHint:
    spec = old.get("spec") or {}
    if not spec.get("volumes"):
        return QueueingHint.QUEUE_SKIP
    if not spec.get("nodeName") and not (old.get("status") or {}).get("nominatedNodeName"):
        return QueueingHint.QUEUE_SKIP
    if any(v.get("persistentVolumeClaim") is not None or v.get("ephemeral") is not None for v in spec["volumes"]):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _pvc_added_hint(pod: Mapping[str, Any], _old: Any, new: Any) -> QueueingHint:
    if namespace_of(new) != (namespace_of(pod) or "default"):
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE if any(n == name_of(new) for n, _e, _v in pod_claim_refs(pod)) else QueueingHint.QUEUE_SKIP


def _csinode_updated_hint(_pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    before = volume_limits(old)
    for driver, limit in volume_limits(new).items():
        if limit > before.get(driver, 0):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _va_deleted_hint(pod: Mapping[str, Any], _old: Any, _new: Any) -> QueueingHint:
    has_claim = any(v.get("persistentVolumeClaim") is not None for v in (pod.get("spec") or {}).get("volumes") or ())
    return QueueingHint.QUEUE if has_claim else QueueingHint.QUEUE_SKIP


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    name = "NodeVolumeLimits"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent("CSINode", ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent("CSINode", ActionType.UPDATE), _csinode_updated_hint),
            ClusterEventWithHint(ClusterEvent(POD, ActionType.DELETE), _pod_deleted_hint),
            ClusterEventWithHint(ClusterEvent("PersistentVolumeClaim", ActionType.ADD), _pvc_added_hint),
            ClusterEventWithHint(ClusterEvent("VolumeAttachment", ActionType.DELETE), _va_deleted_hint),
        ]

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        if pod_claim_refs(pod):
            return None, None
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        if not (pod.get("spec") or {}).get("volumes"):
            return None
        view = storage_view(state, self.handle)
        node_name = node_info.name
        new_volumes: dict[str, str] = {}
        try:
            _attachable_volumes(view, pod, True, new_volumes)
        except _LookupError as exc:
            if exc.not_found:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
            return Status.from_error(str(exc))
        if not new_volumes:
            return None
        limits = volume_limits(view.csi_node(node_name))
        if not limits:
            return None
        attached: dict[str, str] = {}
        try:
            for existing in node_info.pods:
                _attachable_volumes(view, existing.pod, False, attached)
        except _LookupError as exc:
            return Status.from_error(str(exc))
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for unique, driver in _node_volume_attachments(view, node_name).items():
            if unique not in attached:
                attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None


def _node_volume_attachments(view: StorageView, node_name: str) -> dict[str, str]:
    """getNodeVolumeAttachmentInfo: CSI volumes attached to the node by VolumeAttachments."""
    out: dict[str, str] = {}
    for va in view.volume_attachments():
        spec = va.get("spec") or {}
        attacher = spec.get("attacher") or ""
        pv_name = (spec.get("source") or {}).get("persistentVolumeName")
        if spec.get("nodeName") != node_name or not attacher or pv_name is None:
            continue
        try:
            pv = view.volume(pv_name)
        except NotFoundError:
            continue
        csi = (pv.get("spec") or {}).get("csi")
        if not csi:
            continue
        out[f"{attacher}/{csi.get('volumeHandle') or ''}"] = str(attacher)
    return out
