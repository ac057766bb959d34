"""VolumeRestrictions, ported from upstream's volume_restrictions_test.go tables (GCE, AWS,
RBD and iSCSI disk conflicts, ReadWriteOncePod access-mode conflicts and the queueing hints)."""

# upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node, make_pod
from volume_builders import ObjectStore, make_pvc, pre_filter_then_filter, pvc_pod, volume_framework

from kubesim_scheduler.framework import Code, QueueingHint, Status
from kubesim_scheduler.plugins.volumes import restrictions

DISK_CONFLICT = Status(Code.UNSCHEDULABLE, restrictions.ERR_REASON_DISK_CONFLICT)
RWOP_CONFLICT = Status(Code.UNSCHEDULABLE, restrictions.ERR_REASON_RWOP_CONFLICT)


def _vol_pod(source: str, spec: dict[str, Any] | None, node: str = "") -> dict[str, Any]:
    extra = {"volumes": [{"name": "v", source: spec}]} if spec is not None else None
    return make_pod(node=node, spec_extra=extra)


SOURCES = {
    "gce": ("gcePersistentDisk", {"pdName": "foo"}, {"pdName": "bar"}),
    "aws": ("awsElasticBlockStore", {"volumeID": "foo"}, {"volumeID": "bar"}),
    "rbd": ("rbd", {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"},
            {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}),
    "iscsi": ("iscsi", {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                        "fsType": "ext4", "lun": 0},
              {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01", "fsType": "ext4",
               "lun": 0}),
}
DISK_CASES = [
    # (name, pod volume: None | "state" | "state2", existing pod volume or absent, want)
    ("nothing", None, None, None),
    ("one state", None, "state", None),
    ("same state", "state", "state", DISK_CONFLICT),
    ("different state", "state2", "state", None),
]


@pytest.mark.parametrize("kind", sorted(SOURCES))
@pytest.mark.parametrize("name,mine,existing,want", DISK_CASES, ids=[c[0] for c in DISK_CASES])
def test_disk_conflicts(kind: str, name: str, mine: str | None, existing: str | None, want: Status | None) -> None:
    source, state, state2 = SOURCES[kind]
    specs = {"state": state, "state2": state2}
    pods = [_vol_pod(source, specs[existing], node="node-1")] if existing else []
    fw = volume_framework("VolumeRestrictions", ObjectStore(), [make_node("node-1")], pods)
    pod = _vol_pod(source, specs[mine] if mine else None)
    pre, filt, _ = pre_filter_then_filter(fw, "VolumeRestrictions", pod, "node-1")
    if mine is None:
        assert pre == Status(Code.SKIP)
        return
    assert pre is None
    assert (None if filt is None else filt.with_plugin("")) == want


def test_read_only_disks_do_not_conflict() -> None:
    """Two read-only mounts of one GCE PD may share a node; read-write and read-only may not."""
    ro = {"pdName": "foo", "readOnly": True}
    fw = volume_framework("VolumeRestrictions", ObjectStore(), [make_node("node-1")],
                          [_vol_pod("gcePersistentDisk", ro, node="node-1")])
    _, filt, _ = pre_filter_then_filter(fw, "VolumeRestrictions", _vol_pod("gcePersistentDisk", ro), "node-1")
    assert filt is None
    _, filt, _ = pre_filter_then_filter(fw, "VolumeRestrictions", _vol_pod("gcePersistentDisk", {"pdName": "foo"}),
                                        "node-1")
    assert filt is not None and filt.with_plugin("") == DISK_CONFLICT


RWOP_PVC = make_pvc("claim-with-rwop", access_modes=["ReadWriteOncePod"])
RWX_PVC = make_pvc("claim-with-rwx", access_modes=["ReadWriteMany"])


def _rwop_pod(name: str = "pod-with-rwop", node: str = "node-1") -> dict[str, Any]:
    return pvc_pod(name, "claim-with-rwop", node=node)


def _rwx_pod() -> dict[str, Any]:
    return pvc_pod("pod-with-rwx", "claim-with-rwx", node="node-1")


ACCESS_MODE_CASES = [
    ("nothing", make_pod(), [], [], Status(Code.SKIP), None),
    ("failed to get PVC", _rwop_pod(), [], [],
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "claim-with-rwop" not found'), None),
    ("no access mode conflict", _rwop_pod(), [_rwx_pod()], [RWOP_PVC, RWX_PVC], Status(Code.SKIP), None),
    ("access mode conflict", _rwop_pod(), [_rwop_pod("other"), _rwx_pod()], [RWOP_PVC, RWX_PVC], None, RWOP_CONFLICT),
]


@pytest.mark.parametrize("name,pod,existing,pvcs,want_pre,want_filter", ACCESS_MODE_CASES,
                         ids=[c[0] for c in ACCESS_MODE_CASES])
def test_access_mode_conflicts(name: str, pod: dict[str, Any], existing: list[dict[str, Any]],
                               pvcs: list[dict[str, Any]], want_pre: Status | None, want_filter: Status | None) -> None:
    fw = volume_framework("VolumeRestrictions", ObjectStore(pvcs), [make_node("node-1")], existing)
    pl: Any = fw.plugin("VolumeRestrictions")
    state = fw.cycle_state(pod)
    _res, pre = pl.pre_filter(state, pod, None)
    assert pre == want_pre
    if pre is None:
        got = pl.filter(state, pod, fw.scheduler.handle.get_node_info("node-1"))
        assert (None if got is None else got.with_plugin("")) == want_filter


def test_rwop_conflict_cleared_by_removing_the_user() -> None:
    """PreFilterExtensions.RemovePod: preemption's what-if removes the pod that holds the claim."""
    user = _rwop_pod("other")
    fw = volume_framework("VolumeRestrictions", ObjectStore([RWOP_PVC]), [make_node("node-1")], [user])
    pl: Any = fw.plugin("VolumeRestrictions")
    pod = _rwop_pod()
    state = fw.cycle_state(pod)
    _res, pre = pl.pre_filter(state, pod, None)
    assert pre is None
    info = fw.scheduler.handle.get_node_info("node-1")
    clone = state.clone()
    assert pl.remove_pod(clone, pod, fw.scheduler.handle.pod_info(user), info) is None
    assert pl.filter(clone, pod, info) is None
    assert pl.filter(state, pod, info).with_plugin("") == RWOP_CONFLICT
    assert pl.add_pod(clone, pod, fw.scheduler.handle.pod_info(user), info) is None
    assert pl.filter(clone, pod, info).with_plugin("") == RWOP_CONFLICT


POD_DELETED_HINTS = [
    ("queue-when-the-deleted-pod-had-a-conflicting-disk",
     _vol_pod("gcePersistentDisk", {"pdName": "foo"}), _vol_pod("gcePersistentDisk", {"pdName": "foo"}),
     QueueingHint.QUEUE),
    ("skip-when-the-deleted-pod-has-another-disk", _vol_pod("gcePersistentDisk", {"pdName": "foo"}),
     _vol_pod("gcePersistentDisk", {"pdName": "bar"}), QueueingHint.QUEUE_SKIP),
    ("queue-when-the-deleted-pod-used-the-same-rwop-claim", _rwop_pod(node=""), _rwop_pod("other"), QueueingHint.QUEUE),
    ("skip-when-the-deleted-pod-used-another-claim", _rwop_pod(node=""), _rwx_pod(), QueueingHint.QUEUE_SKIP),
]


@pytest.mark.parametrize("name,pod,deleted,want", POD_DELETED_HINTS, ids=[c[0] for c in POD_DELETED_HINTS])
def test_is_schedulable_after_pod_deleted(name: str, pod: dict[str, Any], deleted: dict[str, Any],
                                          want: QueueingHint) -> None:
    assert restrictions._pod_deleted_hint(pod, deleted, None) == want


@pytest.mark.parametrize("ns,claim,want", [
    ("default", "claim-with-rwop", QueueingHint.QUEUE),
    ("other", "claim-with-rwop", QueueingHint.QUEUE_SKIP),
    ("default", "unrelated", QueueingHint.QUEUE_SKIP),
], ids=["queue-the-pods-claim", "skip-other-namespace", "skip-other-claim"])
def test_is_schedulable_after_pvc_added(ns: str, claim: str, want: QueueingHint) -> None:
    assert restrictions._pvc_added_hint(_rwop_pod(node=""), None, make_pvc(claim, namespace=ns)) == want
