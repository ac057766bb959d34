"""NodeVolumeLimits: CSI attach limits per driver, from the node's CSINode allocatable counts.

Volumes of migratable in-tree plugins (inline in pods, in PVs, or provisioned by an in-tree
StorageClass provisioner) count against the CSI driver they migrate to (csi_translation).
"""

# upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.k8s.storage import (
    Obj,
    claim_class,
    ephemeral_claim_name,
    name_of,
    namespace_of,
    pod_claim_refs,
    volume_is_for_pod,
)

from ...framework.cycle_state import CycleState
from ...framework.events import POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.interface import EnqueueExtensions, FilterPlugin, PreFilterPlugin, PreFilterResult
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.status import Code, Status
from .csi_translation import (
    TranslationError,
    csi_migration_on,
    inline_volume_handle,
    plugin_by_name,
    plugin_of_pv,
    plugin_of_volume,
    pv_volume_handle,
)
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


def _csi_driver_info(view: StorageView, csi_node: Obj | None, pvc: Obj) -> tuple[str, str]:
    """getCSIDriverInfo: (driver, volume handle) of the claim's PV, or from its class."""
    pv_name = (pvc.get("spec") or {}).get("volumeName") or ""
    if not pv_name:
        return _csi_driver_info_from_class(view, csi_node, pvc)
    try:
        pv = view.volume(pv_name)
    except NotFoundError:
        return _csi_driver_info_from_class(view, csi_node, pvc)
    csi = (pv.get("spec") or {}).get("csi")
    if csi:
        return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
    plugin = plugin_of_pv(pv)
    if plugin is None or not csi_migration_on(csi_node, plugin.plugin):
        return "", ""
    try:
        return pv_volume_handle(pv)
    except TranslationError:
        return "", ""


def _csi_driver_info_from_class(view: StorageView, csi_node: Obj | None, pvc: Obj) -> tuple[str, str]:
    """getCSIDriverInfoFromSC: the class's provisioner (or the driver its in-tree plugin migrates
    to) and a handle made from the claim's name, for a claim that is not bound yet."""
    sc_name = claim_class(pvc)
    if not sc_name:
        return "", ""
    try:
        sc = view.storage_class(sc_name)
    except NotFoundError:
        return "", ""
    handle = f"{VOLUME_HANDLE_PREFIX}-{namespace_of(pvc)}/{name_of(pvc)}"
    provisioner = str(sc.get("provisioner") or "")
    plugin = plugin_by_name(provisioner)
    if plugin is None:
        return provisioner, handle
    if not csi_migration_on(csi_node, provisioner):
        return "", ""
    return plugin.driver, handle


def _inline_volume(vol: Obj, csi_node: Obj | None, pod: Obj, result: dict[str, str]) -> None:
    """checkAttachableInlineVolume: a migratable inline volume counts against its CSI driver."""
    plugin = plugin_of_volume(vol)
    if plugin is None or not csi_migration_on(csi_node, plugin.plugin):
        return
    try:
        driver, handle = inline_volume_handle(vol, namespace_of(pod))
    except TranslationError as exc:
        raise _LookupError(f"converting volume({vol.get('name') or ''}) from inline to csi: {exc}", False) from exc
    result[f"{driver}/{handle}"] = driver


def _attachable_volumes(view: StorageView, csi_node: Obj | None, pod: Obj, new_pod: bool,
                        result: dict[str, str]) -> None:
    """filterAttachableVolumes: unique volume name -> driver of the pod's attachable volumes."""
    ns = namespace_of(pod) or "default"
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if not isinstance(vol, Mapping):
            continue
        if vol.get("persistentVolumeClaim") is not None:
            source = vol["persistentVolumeClaim"]
            name = str(source.get("claimName") or "") if isinstance(source, Mapping) else ""
            ephemeral = False
        elif vol.get("ephemeral") is not None:
            name, ephemeral = ephemeral_claim_name(pod, vol), True
        else:
            _inline_volume(vol, csi_node, pod, result)
            continue
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
        driver, handle = _csi_driver_info(view, csi_node, pvc)
        if driver and handle:
            result[f"{driver}/{handle}"] = driver


def _uses_attachable(vol: Mapping[str, Any]) -> bool:
    """A PVC, a generic ephemeral volume or an inline migratable volume (PreFilter's test)."""
    return (vol.get("persistentVolumeClaim") is not None or vol.get("ephemeral") is not None
            or plugin_of_volume(vol) is not None)


def _pod_deleted_hint(_pod: Mapping[str, Any], old: Any, _new: Any) -> QueueingHint:
    spec = old.get("spec") or {}
    if not spec.get("volumes"):
        return QueueingHint.QUEUE_SKIP
    if not spec.get("nodeName") and not (old.get("status") or {}).get("nominatedNodeName"):
        return QueueingHint.QUEUE_SKIP
    if any(isinstance(v, Mapping) and _uses_attachable(v) for v in spec["volumes"]):
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


def _va_deleted_hint(pod: Mapping[str, Any], old: Any, _new: Any) -> QueueingHint:
    """isSchedulableAfterVolumeAttachmentDeleted: the pod has a claim, or an inline migratable
    volume of the deleted attachment's driver (a volume that cannot be translated: queue)."""
    attacher = ((old or {}).get("spec") or {}).get("attacher") or ""
    for vol in (pod.get("spec") or {}).get("volumes") or ():
        if not isinstance(vol, Mapping):
            continue
        if vol.get("persistentVolumeClaim") is not None:
            return QueueingHint.QUEUE
        if plugin_of_volume(vol) is None:
            continue
        try:
            driver, _handle = inline_volume_handle(vol, namespace_of(pod))
        except TranslationError:
            return QueueingHint.QUEUE
        if driver == attacher:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


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
        if any(isinstance(v, Mapping) and _uses_attachable(v) for v in (pod.get("spec") or {}).get("volumes") or ()):
            return None, None
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        if not (pod.get("spec") or {}).get("volumes"):
            return None
        view = storage_view(state, self.handle)
        node_name = node_info.name
        csi_node = view.csi_node(node_name)
        new_volumes: dict[str, str] = {}
        try:
            _attachable_volumes(view, csi_node, pod, True, new_volumes)
        except _LookupError as exc:
            if exc.not_found:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
            return Status.from_error(str(exc))
        if not new_volumes:
            return None
        limits = volume_limits(csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        try:
            for existing in node_info.pods:
                _attachable_volumes(view, csi_node, existing.pod, False, attached)
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
