"""VolumeZone, ported from upstream's volume_zone_test.go tables (TestSingleZone,
TestMultiZone, TestWithBinding and the queueing-hint tables)."""

# upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node, make_pod
from volume_builders import (
    REGION,
    REGION_BETA,
    ZONE,
    ZONE_BETA,
    ObjectStore,
    make_pv,
    make_pvc,
    make_sc,
    pre_filter_then_filter,
    pvc_pod,
    volume_framework,
)

from kubesim_scheduler.framework import Code, QueueingHint, Status
from kubesim_scheduler.plugins.volumes import zone

CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, zone.ERR_REASON_CONFLICT)
SKIP = Status(Code.SKIP)


def _run(store: ObjectStore, pod: dict[str, Any], node_labels: dict[str, str]) -> tuple[Status | None, Status | None]:
    fw = volume_framework("VolumeZone", store, [make_node("host1", labels=node_labels)])
    pre, filt, _ = pre_filter_then_filter(fw, "VolumeZone", pod, "host1")
    return pre, (None if filt is None else filt.with_plugin(""))


SINGLE_ZONE_STORE = [
    make_pv("Vol_1", labels={ZONE_BETA: "us-west1-a"}),
    make_pv("Vol_2", labels={REGION_BETA: "us-west1", "uselessLabel": "none"}),
    make_pv("Vol_3", labels={REGION_BETA: "us-west1"}),
    make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    make_pv("Vol_Stable_2", labels={REGION: "us-west1", "uselessLabel": "none"}),
    make_pv("Vol_Stable_3", labels={ZONE: "us-west1-a", REGION: "us-west1-a"}),
    make_pvc("PVC_1", volume="Vol_1"), make_pvc("PVC_2", volume="Vol_2"), make_pvc("PVC_3", volume="Vol_3"),
    make_pvc("PVC_4", volume="Vol_not_exist"), make_pvc("PVC_Stable_1", volume="Vol_Stable_1"),
    make_pvc("PVC_Stable_2", volume="Vol_Stable_2"), make_pvc("PVC_Stable_3", volume="Vol_Stable_3"),
]
U = {"uselessLabel": "none"}
SINGLE_ZONE = [
    ("pod without volume", make_pod("pod_1"), {ZONE_BETA: "us-west1-a"}, SKIP, None),
    ("node without labels", pvc_pod("pod_1", "PVC_1"), {}, None, None),
    ("beta zone label matched", pvc_pod("pod_1", "PVC_1"), {ZONE_BETA: "us-west1-a", **U}, None, None),
    ("beta region label matched", pvc_pod("pod_1", "PVC_2"), {REGION_BETA: "us-west1", **U}, None, None),
    ("beta region label doesn't match", pvc_pod("pod_1", "PVC_2"), {REGION_BETA: "no_us-west1", **U}, None, CONFLICT),
    ("beta zone label doesn't match", pvc_pod("pod_1", "PVC_1"), {ZONE_BETA: "no_us-west1-a", **U}, None, CONFLICT),
    ("zone label matched", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE: "us-west1-a", **U}, None, None),
    ("region label matched", pvc_pod("pod_1", "PVC_Stable_2"), {REGION: "us-west1", **U}, None, None),
    ("region label doesn't match", pvc_pod("pod_1", "PVC_Stable_2"), {REGION: "no_us-west1", **U}, None, CONFLICT),
    ("zone label doesn't match", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE: "no_us-west1-a", **U}, None, CONFLICT),
    ("pv with zone and region, node with only zone", pvc_pod("pod_1", "PVC_Stable_3"), {ZONE: "us-west1-a"},
     None, CONFLICT),
    ("pv with zone,node with beta zone", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE_BETA: "us-west1-a"}, None, CONFLICT),
    ("pv with beta label,node with ga label, matched", pvc_pod("pod_1", "PVC_1"), {ZONE: "us-west1-a"}, None, None),
    ("pv with beta label,node with ga label, don't match", pvc_pod("pod_1", "PVC_1"), {ZONE: "us-west1-b"},
     None, CONFLICT),
]


@pytest.mark.parametrize("name,pod,labels,want_pre,want_filter", SINGLE_ZONE, ids=[c[0] for c in SINGLE_ZONE])
def test_single_zone(name: str, pod: dict[str, Any], labels: dict[str, str], want_pre: Status | None,
                     want_filter: Status | None) -> None:
    assert _run(ObjectStore(SINGLE_ZONE_STORE), pod, labels) == (want_pre, want_filter)


MULTI_ZONE_STORE = [
    make_pv("Vol_1", labels={ZONE_BETA: "us-west1-a"}),
    make_pv("Vol_2", labels={ZONE_BETA: "us-west1-b", "uselessLabel": "none"}),
    make_pv("Vol_3", labels={ZONE_BETA: "us-west1-c__us-west1-a"}),
    make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    make_pv("Vol_Stable_2", labels={ZONE: "us-west1-c__us-west1-a"}),
    make_pvc("PVC_1", volume="Vol_1"), make_pvc("PVC_2", volume="Vol_2"), make_pvc("PVC_3", volume="Vol_3"),
    make_pvc("PVC_4", volume="Vol_not_exist"), make_pvc("PVC_Stable_1", volume="Vol_Stable_1"),
    make_pvc("PVC_Stable_2", volume="Vol_Stable_2"),
]
MULTI_ZONE = [
    ("node without labels", pvc_pod("pod_1", "PVC_3"), {}, None),
    ("beta zone label matched", pvc_pod("pod_1", "PVC_3"), {ZONE_BETA: "us-west1-a", **U}, None),
    ("beta zone label doesn't match", pvc_pod("pod_1", "PVC_1"), {ZONE_BETA: "us-west1-b", **U}, CONFLICT),
    ("zone label matched", pvc_pod("pod_1", "PVC_Stable_2"), {ZONE: "us-west1-a", **U}, None),
    ("zone label doesn't match", pvc_pod("pod_1", "PVC_Stable_1"), {ZONE: "us-west1-b", **U}, CONFLICT),
]


@pytest.mark.parametrize("name,pod,labels,want_filter", MULTI_ZONE, ids=[c[0] for c in MULTI_ZONE])
def test_multi_zone(name: str, pod: dict[str, Any], labels: dict[str, str], want_filter: Status | None) -> None:
    assert _run(ObjectStore(MULTI_ZONE_STORE), pod, labels) == (None, want_filter)


BINDING_STORE = [
    make_sc("Class_Immediate"), make_sc("Class_Wait", "WaitForFirstConsumer"),
    make_pv("Vol_1", labels={ZONE_BETA: "us-west1-a"}),
    make_pvc("PVC_1", volume="Vol_1"), make_pvc("PVC_NoSC", storage_class="Class_0"), make_pvc("PVC_EmptySC"),
    make_pvc("PVC_WaitSC", storage_class="Class_Wait"), make_pvc("PVC_ImmediateSC", storage_class="Class_Immediate"),
]


def _unresolvable(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


# upstream's fake StorageClass lister says `storageclasses.storage.k8s.io "Class_0" not found`;
# the informer's lister (and kubesim) says storageclass.storage.k8s.io
WITH_BINDING = [
    ("label zone failure domain matched", "PVC_1", None, None),
    ("unbound volume empty storage class", "PVC_EmptySC",
     _unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
     _unresolvable("PersistentVolumeClaim had no pv name and storageClass name")),
    ("unbound volume no storage class", "PVC_NoSC", _unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
     _unresolvable('storageclass.storage.k8s.io "Class_0" not found')),
    ("unbound volume immediate binding mode", "PVC_ImmediateSC",
     _unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
     _unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"')),
    ("unbound volume wait binding mode", "PVC_WaitSC", SKIP, None),
]


@pytest.mark.parametrize("name,claim,want_pre,want_filter", WITH_BINDING, ids=[c[0] for c in WITH_BINDING])
def test_with_binding(name: str, claim: str, want_pre: Status | None, want_filter: Status | None) -> None:
    labels = {ZONE_BETA: "us-west1-a", "uselessLabel": "none"}
    assert _run(ObjectStore(BINDING_STORE), pvc_pod("pod_1", claim), labels) == (want_pre, want_filter)


def _pvc(name: str, ns: str = "default", volume: str = "Vol_1") -> dict[str, Any]:
    return make_pvc(name, namespace=ns, volume=volume)


PVC_HINTS = [
    ("pvc-was-added-but-pod-refers-no-pvc", make_pod("pod_1"), None, _pvc("PVC_1"), QueueingHint.QUEUE_SKIP),
    ("pvc-was-added-and-pod-was-bound-to-different-pvc", pvc_pod("pod_1", "PVC_2"), None, _pvc("PVC_1"),
     QueueingHint.QUEUE_SKIP),
    ("pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns", pvc_pod("pod_1", "PVC_1"), None, _pvc("PVC_1", "ns1"),
     QueueingHint.QUEUE_SKIP),
    ("pvc-was-added-and-pod-was-bound-to-the-pvc", pvc_pod("pod_1", "PVC_1"), None, _pvc("PVC_1"), QueueingHint.QUEUE),
    ("pvc-was-updated-and-pod-was-bound-to-the-pvc", pvc_pod("pod_1", "PVC_1"), _pvc("PVC_1", volume=""),
     _pvc("PVC_1"), QueueingHint.QUEUE),
    ("pvc-was-updated-but-pod-refers-no-pvc", make_pod("pod_1"), _pvc("PVC_1", volume=""), _pvc("PVC_1"),
     QueueingHint.QUEUE_SKIP),
]


@pytest.mark.parametrize("name,pod,old,new,want", PVC_HINTS, ids=[c[0] for c in PVC_HINTS])
def test_is_schedulable_after_pvc_change(name: str, pod: dict[str, Any], old: Any, new: Any, want: QueueingHint) -> None:
    assert zone._pvc_hint(pod, old, new) == want


@pytest.mark.parametrize("mode,want", [(None, QueueingHint.QUEUE_SKIP), ("WaitForFirstConsumer", QueueingHint.QUEUE)],
                         ids=["sc-doesn't-have-volume-binding-mode", "new-sc-is-wait-for-first-consumer-mode"])
def test_is_schedulable_after_storage_class_added(mode: str | None, want: QueueingHint) -> None:
    assert zone._sc_added_hint(pvc_pod("pod_1", "PVC_1"), None, make_sc("SC_1", mode)) == want


PV_HINTS = [
    ("new-pv-was-added", None, {ZONE_BETA: "us-west1-b"}, QueueingHint.QUEUE),
    ("pv-was-updated-and-changed-topology", {ZONE_BETA: "us-west1-a"}, {ZONE_BETA: "us-west1-b"}, QueueingHint.QUEUE),
    ("pv-was-updated-and-added-topology-label", {ZONE_BETA: "us-west1-a"}, {ZONE_BETA: "us-west1-a", ZONE: "zone"},
     QueueingHint.QUEUE),
    ("pv-was-updated-but-no-topology-is-changed", {ZONE_BETA: "us-west1-a", ZONE: "zone"},
     {ZONE_BETA: "us-west1-a", ZONE: "zone"}, QueueingHint.QUEUE_SKIP),
]


@pytest.mark.parametrize("name,old,new,want", PV_HINTS, ids=[c[0] for c in PV_HINTS])
def test_is_schedulable_after_pv_change(name: str, old: Any, new: Any, want: QueueingHint) -> None:
    old_pv = None if old is None else make_pv("Vol_1", labels=old)
    assert zone._pv_hint(pvc_pod("pod_1", "PVC_1"), old_pv, make_pv("Vol_1", labels=new)) == want
