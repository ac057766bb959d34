"""VolumeBinding, ported from upstream's volume_binding_test.go TestVolumeBinding table, with
cases of our own for dynamic provisioning, Reserve/PreBind/Unreserve and the queueing hints."""

# upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node
from volume_builders import ObjectStore, make_pv, make_pvc, make_sc, pvc_pod, volume_framework

from kubesim_scheduler.framework import Code, CycleState, QueueingHint, Status
from kubesim_scheduler.plugins.volumes import binder as vb
from kubesim_scheduler.plugins.volumes import binding

HOST = "kubernetes.io/hostname"
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}
CLASSES = [make_sc("immediate-sc", "Immediate"), make_sc("wait-sc", "WaitForFirstConsumer"),
           make_sc("wait-hdd-sc", "WaitForFirstConsumer")]
# upstream's defaultShapePoint, used with the scoring gate when a case gives no shape
DEFAULT_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
CUSTOM_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 50, "score": 3}, {"utilization": 100, "score": 5}]


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


def bound_pvc(name: str, sc: str, pv: str, phase: str | None = None) -> dict[str, Any]:
    return make_pvc(name, storage_class=sc, volume=pv, annotations=BOUND, phase=phase)


def avail_pv(name: str, sc: str, capacity: str | None = None, affinity: dict[str, list[str]] | None = None,
             ) -> dict[str, Any]:
    return make_pv(name, storage_class=sc, phase="Available", capacity=capacity, node_affinity=affinity)


def zonal_nodes() -> list[dict[str, Any]]:
    return [make_node(f"zone-{z}-node-{n}", labels={REGION: f"region-{z}", ZONE: f"zone-{z}"})
            for z in "abc" for n in "ab"]


def zonal_pvs() -> list[dict[str, Any]]:
    return [avail_pv(f"pv-{z}-{i}", "wait-sc", cap, {REGION: [f"region-{z}"], ZONE: [f"zone-{z}"]})
            for z, cap in (("a", "200Gi"), ("b", "100Gi")) for i in range(2)]


def local_pvs(classes: tuple[str, ...]) -> list[dict[str, Any]]:
    out = []
    for node, cap in (("node-a", "200Gi"), ("node-b", "100Gi")):
        i = 0
        for sc in classes:
            for _ in range(2):
                out.append(avail_pv(f"pv-{node[-1]}-{i}", sc, cap, {HOST: [node]}))
                i += 1
    return out


NO_MATCH = unresolvable(vb.ERR_REASON_BIND_CONFLICT)
# upstream makeNode labels each node with its hostname
NODES_ABC = [make_node(n, labels={HOST: n}) for n in ("node-a", "node-b", "node-c")]
# (name, pod, nodes, pvcs, pvs, scoring shape (None: gate off), want PreFilter, want Filter per node, want scores)
TABLE: list[tuple[Any, ...]] = [
    ("pod has not pvcs", pvc_pod("pod-a"), [make_node("node-a")], [], [], None, Status(Code.SKIP), [None], [0]),
    ("all bound", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")], [bound_pvc("pvc-a", "wait-sc", "pv-a")],
     [avail_pv("pv-a", "wait-sc")], None, None, [None], [0]),
    ("PVC does not exist", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")], [], [], None,
     unresolvable('persistentvolumeclaim "pvc-a" not found'), [None], [0]),
    ("Part of PVCs do not exist", pvc_pod("pod-a", "pvc-a", "pvc-b"), [make_node("node-a")],
     [bound_pvc("pvc-a", "wait-sc", "pv-a")], [], None, unresolvable('persistentvolumeclaim "pvc-b" not found'),
     [None], [0]),
    ("immediate claims not bound", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")],
     [make_pvc("pvc-a", storage_class="immediate-sc")], [], None,
     unresolvable("pod has unbound immediate PersistentVolumeClaims"), [None], [0]),
    ("unbound claims no matches", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")],
     [make_pvc("pvc-a", storage_class="wait-sc")], [], None, None, [NO_MATCH], [0]),
    ("bound and unbound unsatisfied", pvc_pod("pod-a", "pvc-a", "pvc-b"), [make_node("node-a", labels={"foo": "barbar"})],
     [bound_pvc("pvc-a", "wait-sc", "pv-a"), make_pvc("pvc-b", storage_class="wait-sc")],
     [make_pv("pv-a", storage_class="wait-sc", phase="Available", node_affinity={"foo": ["bar"]})], None, None,
     [unresolvable(vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT)], [0]),
    ("pvc not found", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")], [], [], None,
     unresolvable('persistentvolumeclaim "pvc-a" not found'), [None], [0]),
    ("pv not found", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")], [bound_pvc("pvc-a", "wait-sc", "pv-a")], [],
     None, None, [unresolvable(vb.ERR_REASON_PV_NOT_EXIST)], [0]),
    ("pv not found claim lost", pvc_pod("pod-a", "pvc-a"), [make_node("node-a")],
     [bound_pvc("pvc-a", "wait-sc", "pv-a", phase="Lost")], [], None,
     unresolvable('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'), [None], [0]),
    ("local volumes with close capacity are preferred", pvc_pod("pod-a", "pvc-a"), NODES_ABC,
     [make_pvc("pvc-a", storage_class="wait-sc", request="50Gi")], local_pvs(("wait-sc",)), DEFAULT_SHAPE, None,
     [None, None, NO_MATCH], [25, 50, 0]),
    ("local volumes with close capacity are preferred (multiple pvcs)", pvc_pod("pod-a", "pvc-0", "pvc-1"), NODES_ABC,
     [make_pvc("pvc-0", storage_class="wait-sc", request="50Gi"),
      make_pvc("pvc-1", storage_class="wait-hdd-sc", request="100Gi")],
     local_pvs(("wait-sc", "wait-hdd-sc")), DEFAULT_SHAPE, None, [None, None, NO_MATCH], [38, 75, 0]),
    ("zonal volumes with close capacity are preferred", pvc_pod("pod-a", "pvc-a"), zonal_nodes(),
     [make_pvc("pvc-a", storage_class="wait-sc", request="50Gi")], zonal_pvs(), DEFAULT_SHAPE, None,
     [None, None, None, None, NO_MATCH, NO_MATCH], [25, 25, 50, 50, 0, 0]),
    ("zonal volumes with close capacity are preferred (custom shape)", pvc_pod("pod-a", "pvc-a"), zonal_nodes(),
     [make_pvc("pvc-a", storage_class="wait-sc", request="50Gi")], zonal_pvs(), CUSTOM_SHAPE, None,
     [None, None, None, None, NO_MATCH, NO_MATCH], [15, 15, 30, 30, 0, 0]),
]


@pytest.mark.parametrize("case", TABLE, ids=[c[0] for c in TABLE])
def test_volume_binding(case: tuple[Any, ...]) -> None:
    name, pod, nodes, pvcs, pvs, shape, want_pre, want_filter, want_scores = case
    gates = {"StorageCapacityScoring": True} if shape is not None else None
    args = {"bindTimeoutSeconds": 300, **({"shape": shape} if shape is not None else {})}
    fw = volume_framework("VolumeBinding", ObjectStore([*CLASSES, *pvcs, *pvs]), nodes, feature_gates=gates, args=args)
    pl: Any = fw.plugin("VolumeBinding")
    state = fw.cycle_state(pod)
    _res, pre = pl.pre_filter(state, pod, None)
    assert pre == want_pre
    if pre is not None and not pre.is_skip():
        return  # the framework skips Filter after a failed PreFilter
    got_filter = []
    for n in nodes:
        info = fw.scheduler.handle.get_node_info(n["metadata"]["name"])
        got_filter.append(None if pre is not None else pl.filter(state, pod, info))
    assert got_filter == want_filter
    pre_score = pl.pre_score(state, pod, None)
    if shape is None:
        assert pre_score == Status(Code.SKIP)  # StorageCapacityScoring is off in v1.34: no scorer
        return
    assert pre_score is None
    scores = [pl.score(state, pod, fw.scheduler.handle.get_node_info(n["metadata"]["name"])) for n in nodes]
    assert scores == want_scores


# --- dynamic provisioning (checkVolumeProvisions, hasEnoughCapacity) --------------------------------

def _provision_filter(objects: list[dict[str, Any]], node_labels: dict[str, str] | None = None,
                      claim: dict[str, Any] | None = None) -> Status | None:
    claim = claim or make_pvc("pvc-a", storage_class="fast", request="10Gi")
    fw = volume_framework("VolumeBinding", ObjectStore([*objects, claim]), [make_node("node-a", labels=node_labels)])
    pl: Any = fw.plugin("VolumeBinding")
    pod = pvc_pod("pod-a", "pvc-a")
    state = fw.cycle_state(pod)
    assert pl.pre_filter(state, pod, None)[1] is None
    return pl.filter(state, pod, fw.scheduler.handle.get_node_info("node-a"))


def test_provisionable_claim_passes() -> None:
    assert _provision_filter([make_sc("fast", "WaitForFirstConsumer", "csi.example.com")]) is None


@pytest.mark.parametrize("provisioner", ["", "kubernetes.io/no-provisioner"])
def test_class_without_provisioner_cannot_provision(provisioner: str) -> None:
    assert _provision_filter([make_sc("fast", "WaitForFirstConsumer", provisioner)]) == NO_MATCH


def test_allowed_topologies_limit_provisioning() -> None:
    sc = make_sc("fast", "WaitForFirstConsumer", "csi.example.com", allowed_topologies=[{ZONE: ["zone-a"]}])
    assert _provision_filter([sc], {ZONE: "zone-a"}) is None
    assert _provision_filter([sc], {ZONE: "zone-b"}) == NO_MATCH


def test_storage_capacity_tracking() -> None:
    sc = make_sc("fast", "WaitForFirstConsumer", "csi.example.com")
    driver = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "csi.example.com"},
              "spec": {"storageCapacity": True}}

    def capacity(size: str) -> dict[str, Any]:
        return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
                "metadata": {"name": f"cap-{size}", "namespace": "kube-system"}, "storageClassName": "fast",
                "capacity": size, "nodeTopology": {"matchLabels": {ZONE: "zone-a"}}}

    labels = {ZONE: "zone-a"}
    assert _provision_filter([sc, driver], labels) == unresolvable(vb.ERR_REASON_NOT_ENOUGH_SPACE)
    assert _provision_filter([sc, driver, capacity("5Gi")], labels) == unresolvable(vb.ERR_REASON_NOT_ENOUGH_SPACE)
    assert _provision_filter([sc, driver, capacity("50Gi")], labels) is None
    assert _provision_filter([sc, driver, capacity("50Gi")], {ZONE: "zone-b"}) == unresolvable(
        vb.ERR_REASON_NOT_ENOUGH_SPACE)


def test_claim_selected_for_another_node() -> None:
    claim = make_pvc("pvc-a", storage_class="fast", request="10Gi",
                     annotations={"volume.kubernetes.io/selected-node": "node-b"})
    assert _provision_filter([make_sc("fast", "WaitForFirstConsumer", "csi.example.com")], claim=claim) == NO_MATCH


# --- Reserve, PreBind, Unreserve ------------------------------------------------------------------------

def _reserved(store: ObjectStore, node: str = "node-a") -> tuple[Any, Any, dict[str, Any]]:
    fw = volume_framework("VolumeBinding", store, [make_node("node-a", labels={HOST: "node-a"})])
    pl: Any = fw.plugin("VolumeBinding")
    pod = pvc_pod("pod-a", "pvc-a")
    state = fw.cycle_state(pod)
    assert pl.pre_filter(state, pod, None)[1] is None
    assert pl.filter(state, pod, fw.scheduler.handle.get_node_info(node)) is None
    assert pl.reserve(state, pod, node) is None
    return pl, state, pod


def test_static_binding_written_at_prebind() -> None:
    store = ObjectStore([*CLASSES, make_pvc("pvc-a", storage_class="wait-sc", request="1Gi"),
                         avail_pv("pv-big", "wait-sc", "10Gi"), avail_pv("pv-small", "wait-sc", "2Gi")])
    pl, state, pod = _reserved(store)
    assert len(pl.binder.cache) == 1  # the chosen PV is assumed until PreBind writes it
    assert pl.pre_bind_pre_flight(state, pod, "node-a") is None
    assert pl.pre_bind(state, pod, "node-a") is None
    [update] = store.updates
    assert update["metadata"]["name"] == "pv-small"  # the smallest volume that fits
    assert update["spec"]["claimRef"]["name"] == "pvc-a"
    assert update["spec"]["claimRef"]["uid"] == "pvc-uid-pvc-a"
    assert update["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert len(pl.binder.cache) == 0


def test_dynamic_provisioning_annotates_claim_at_prebind() -> None:
    store = ObjectStore([make_sc("fast", "WaitForFirstConsumer", "csi.example.com"),
                         make_pvc("pvc-a", storage_class="fast", request="1Gi")])
    pl, state, pod = _reserved(store)
    assert pl.pre_bind(state, pod, "node-a") is None
    [update] = store.updates
    assert update["kind"] == "PersistentVolumeClaim"
    assert update["metadata"]["annotations"] == {"volume.kubernetes.io/selected-node": "node-a"}


def test_unreserve_reverts_assumed_volumes() -> None:
    store = ObjectStore([*CLASSES, make_pvc("pvc-a", storage_class="wait-sc"), avail_pv("pv-a", "wait-sc")])
    pl, state, pod = _reserved(store)
    assert len(pl.binder.cache) == 1
    pl.unreserve(state, pod, "node-a")
    assert len(pl.binder.cache) == 0
    assert store.updates == []


def test_all_bound_skips_prebind() -> None:
    store = ObjectStore([*CLASSES, bound_pvc("pvc-a", "wait-sc", "pv-a"), avail_pv("pv-a", "wait-sc")])
    pl, state, pod = _reserved(store)
    assert pl.pre_bind_pre_flight(state, pod, "node-a") == Status(Code.SKIP)
    assert pl.pre_bind(state, pod, "node-a") is None
    assert store.updates == []


def test_prebind_write_failure_is_an_error() -> None:
    store = ObjectStore([*CLASSES, make_pvc("pvc-a", storage_class="wait-sc"), avail_pv("pv-a", "wait-sc")])
    pl, state, pod = _reserved(store)
    del store.objects[("PersistentVolume", "", "pv-a")]
    got = pl.pre_bind(state, pod, "node-a")
    assert got is not None and got.code == Code.ERROR
    assert got.message() == 'persistentvolume "pv-a" not found'
    assert len(pl.binder.cache) == 0


def test_assumed_volume_is_not_offered_twice() -> None:
    """Between Reserve and PreBind the assumed claimRef hides the volume from other claims."""
    store = ObjectStore([*CLASSES, make_pvc("pvc-a", storage_class="wait-sc"), make_pvc("pvc-b", storage_class="wait-sc"),
                         avail_pv("pv-a", "wait-sc")])
    pl, _state, _pod = _reserved(store)
    pod_b = pvc_pod("pod-b", "pvc-b")
    state_b = CycleState()
    assert pl.pre_filter(state_b, pod_b, None)[1] is None
    assert pl.filter(state_b, pod_b, pl.handle.get_node_info("node-a")) == NO_MATCH


# --- queueing hints --------------------------------------------------------------------------------------

@pytest.mark.parametrize("ns,name,want", [
    ("default", "pvc-a", QueueingHint.QUEUE), ("default", "pvc-b", QueueingHint.QUEUE_SKIP),
    ("other", "pvc-a", QueueingHint.QUEUE_SKIP),
], ids=["the-pods-claim", "another-claim", "another-namespace"])
def test_is_schedulable_after_pvc_change(ns: str, name: str, want: QueueingHint) -> None:
    assert binding._claim_hint(pvc_pod("pod-a", "pvc-a"), None, make_pvc(name, namespace=ns)) == want


def test_is_schedulable_after_storage_class_change() -> None:
    pod = pvc_pod("pod-a", "pvc-a")
    old = make_sc("sc", "WaitForFirstConsumer")
    topo = make_sc("sc", "WaitForFirstConsumer", allowed_topologies=[{ZONE: ["zone-a"]}])
    assert binding._class_hint(pod, None, old) == QueueingHint.QUEUE
    assert binding._class_hint(pod, old, topo) == QueueingHint.QUEUE
    assert binding._class_hint(pod, old, {**old, "parameters": {"x": "y"}}) == QueueingHint.QUEUE_SKIP


def test_is_schedulable_after_csi_storage_capacity_change() -> None:
    pod = pvc_pod("pod-a", "pvc-a")

    def cap(size: str | None, max_size: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "CSIStorageCapacity", "metadata": {"name": "c"}}
        if size is not None:
            out["capacity"] = size
        if max_size is not None:
            out["maximumVolumeSize"] = max_size
        return out

    assert binding._capacity_hint(pod, None, cap("1Gi")) == QueueingHint.QUEUE
    assert binding._capacity_hint(pod, cap("1Gi"), cap("2Gi")) == QueueingHint.QUEUE
    assert binding._capacity_hint(pod, cap("2Gi"), cap("1Gi")) == QueueingHint.QUEUE_SKIP
    assert binding._capacity_hint(pod, cap("1Gi"), cap("5Gi", "1Gi")) == QueueingHint.QUEUE_SKIP
    assert binding._capacity_hint(pod, cap(None), cap("1Gi")) == QueueingHint.QUEUE
