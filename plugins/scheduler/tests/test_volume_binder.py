"""The VolumeBinding plugin's binder, ported from upstream's binder_test.go tables
(TestFindPodVolumesWithoutProvisioning and TestFindPodVolumesWithProvisioning, each run without
a CSIDriver and with one that has and one that lacks capacity tracking; TestAssumePodVolumes)."""

# upstream: pkg/scheduler/framework/plugins/volumebinding/binder_test.go

from __future__ import annotations

from typing import Any

import pytest
from volume_builders import ObjectStore, make_sc

from kubesim_scheduler.plugins.volumes.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BindError,
    PodVolumes,
    VolumeBinder,
)
from kubesim_scheduler.plugins.volumes.objects import StorageView

NS = "testns"
NODE_KEY, NODE_VALUE = "nodeKey", "node1"
PROVISIONER = "test-provisioner"
WAIT, IMMEDIATE, WAIT_PROV, TOPO_MISMATCH = "waitClass", "immediateClass", "waitClassWithProvisioner", "topoMismatchClass"
BOUND, PREBOUND, UNBOUND, SELECTED = "bound", "prebound", "unbound", "selected"

CLASSES = [
    make_sc(WAIT_PROV, "WaitForFirstConsumer", PROVISIONER,
            allowed_topologies=[{NODE_KEY: [NODE_VALUE, "reference-value"]}]),
    make_sc(IMMEDIATE, "Immediate"),
    make_sc(WAIT, "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
    make_sc(TOPO_MISMATCH, "WaitForFirstConsumer", PROVISIONER, allowed_topologies=[{NODE_KEY: ["reference-value"]}]),
]


def make_test_pvc(name: str, size: str, node: str, state: str, volume: str, rv: str, cls: str) -> dict[str, Any]:
    """makeTestPVC."""
    meta: dict[str, Any] = {"name": name, "namespace": NS, "uid": f"pvc-uid-{name}", "resourceVersion": rv,
                            "annotations": {}}
    spec: dict[str, Any] = {"resources": {"requests": {"storage": size}}, "storageClassName": cls}
    if state == BOUND:
        meta["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
        spec["volumeName"] = volume
    elif state == PREBOUND:
        spec["volumeName"] = volume
    elif state == SELECTED:
        meta["annotations"]["volume.kubernetes.io/selected-node"] = node
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def make_test_pv(name: str, node: str, capacity: str, rv: str, bound_to: dict[str, Any] | None, cls: str,
                 ) -> dict[str, Any]:
    """makeTestPV."""
    meta: dict[str, Any] = {"name": name, "resourceVersion": rv, "annotations": {}}
    spec: dict[str, Any] = {"capacity": {"storage": capacity}, "storageClassName": cls}
    if node:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": NODE_KEY, "operator": "In", "values": [node]}]}]}}
    if bound_to is not None:
        bmeta = bound_to["metadata"]
        spec["claimRef"] = {"name": bmeta["name"], "namespace": bmeta["namespace"], "uid": bmeta["uid"]}
        meta["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes"
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec,
            "status": {"phase": "Available"}}


def generic_pvc(owned: bool) -> dict[str, Any]:
    """makeGenericEphemeralPVC("test-volume", owned)."""
    pvc = make_test_pvc("test-pod-test-volume", "1G", "", BOUND, "pv-bound", "1", WAIT)
    if owned:
        pvc["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "test-pod",
                                               "uid": "test-pod-uid", "controller": True}]
    return pvc


unbound_pvc = make_test_pvc("unbound-pvc", "1G", "", UNBOUND, "", "1", WAIT)
unbound_pvc2 = make_test_pvc("unbound-pvc2", "5G", "", UNBOUND, "", "1", WAIT)
prebound_pvc = make_test_pvc("prebound-pvc", "1G", "", PREBOUND, "pv-node1a", "1", WAIT)
bound_pvc = make_test_pvc("bound-pvc", "1G", "", BOUND, "pv-bound", "1", WAIT)
immediate_unbound_pvc = make_test_pvc("immediate-unbound-pvc", "1G", "", UNBOUND, "", "1", IMMEDIATE)
immediate_bound_pvc = make_test_pvc("immediate-bound-pvc", "1G", "", BOUND, "pv-bound-immediate", "1", IMMEDIATE)
provisioned_pvc = make_test_pvc("provisioned-pvc", "1Gi", "", UNBOUND, "", "1", WAIT_PROV)
no_provisioner_pvc = make_test_pvc("no-provisioner-pvc", "1Gi", "", UNBOUND, "", "1", WAIT)
topo_mismatch_pvc = make_test_pvc("topo-mismatch-pvc", "1Gi", "", UNBOUND, "", "1", TOPO_MISMATCH)
selected_node_pvc = make_test_pvc("provisioned-pvc", "1Gi", NODE_VALUE, SELECTED, "", "1", WAIT_PROV)
conflicting_generic_pvc, correct_generic_pvc = generic_pvc(False), generic_pvc(True)

pv_node1a = make_test_pv("pv-node1a", "node1", "5G", "1", None, WAIT)
pv_node1b = make_test_pv("pv-node1b", "node1", "10G", "1", None, WAIT)
pv_node2 = make_test_pv("pv-node2", "node2", "1G", "1", None, WAIT)
pv_bound = make_test_pv("pv-bound", "node1", "1G", "1", bound_pvc, WAIT)
pv_bound_immediate = make_test_pv("pv-bound-immediate", "node1", "1G", "1", immediate_bound_pvc, IMMEDIATE)
pv_bound_immediate_node2 = make_test_pv("pv-bound-immediate", "node2", "1G", "1", immediate_bound_pvc, IMMEDIATE)
pv_bound_generic = make_test_pv("pv-bound", "node1", "1G", "1", correct_generic_pvc, WAIT)
TEST_NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1", "labels": {NODE_KEY: "node1"}}}


def make_pod(claims: list[dict[str, Any]] | None = None, volumes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if volumes is None:
        volumes = [{"name": c["metadata"]["name"], "persistentVolumeClaim": {"claimName": c["metadata"]["name"]}}
                   for c in claims or ()]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "test-pod", "namespace": NS, "uid": "test-pod-uid"},
            "spec": {"nodeName": "node1", "volumes": volumes, "containers": [{"name": "c", "image": "i"}]}}


EPHEMERAL = [{"name": "test-volume", "ephemeral": {}}]
NO_SUCH = [{"name": "no-such-pvc", "ephemeral": {}}]


class _Lister:
    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    def list_objects(self, kind: str, namespace: str | None = None) -> list[dict[str, Any]]:
        return self.store.list(kind, namespace)


def find_pod_volumes(store: ObjectStore, pod: dict[str, Any]) -> tuple[PodVolumes, list[str]]:
    """The test's findPodVolumes: GetPodVolumeClaims (an error for unbound immediate claims), then FindPodVolumes."""
    binder = VolumeBinder(store.update)
    view = StorageView(_Lister(store))  # type: ignore[arg-type]
    claims = binder.get_pod_volume_claims(view, pod)
    if claims.unbound_immediate:
        raise BindError("pod has unbound immediate PersistentVolumeClaims")
    return binder.find_pod_volumes(view, pod, claims, TEST_NODE)


def csi_driver(capacity: bool | None) -> list[dict[str, Any]]:
    if capacity is None:
        return []
    return [{"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": PROVISIONER},
             "spec": {"storageCapacity": capacity}}]


DRIVERS = {"no CSIDriver": None, "CSIDriver with capacity tracking": True,
           "CSIDriver without capacity tracking": False}

# name -> (pvs, pod claims, cached claims (None: the pod's), pod volumes (None: from the claims),
#          expected bindings [(claim, pv name)], reasons, should fail)
WITHOUT_PROVISIONING: dict[str, tuple[Any, ...]] = {
    "no-volumes": ([], [], None, [], [], [], False),
    "no-pvcs": ([], [], None, [{"name": "empty", "emptyDir": {}}], [], [], False),
    "pvc-not-found": ([], [bound_pvc], [], None, [], [], True),
    "bound-pvc": ([pv_bound], [bound_pvc], None, None, [], [], False),
    "bound-pvc,pv-not-exists": ([], [bound_pvc], None, None, [], [ERR_REASON_PV_NOT_EXIST], False),
    "prebound-pvc": ([make_test_pv("pv-node1a", "node1", "5G", "1", unbound_pvc, WAIT)], [prebound_pvc], None, None,
                     [], [], True),
    "unbound-pvc,pv-same-node": ([pv_node2, pv_node1a, pv_node1b], [unbound_pvc], None, None,
                                 [("unbound-pvc", "pv-node1a")], [], False),
    "unbound-pvc,pv-different-node": ([pv_node2], [unbound_pvc], None, None, [], [ERR_REASON_BIND_CONFLICT], False),
    "two-unbound-pvcs": ([pv_node1a, pv_node1b], [unbound_pvc, unbound_pvc2], None, None,
                         [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], False),
    "two-unbound-pvcs,order-by-size": ([pv_node1a, pv_node1b], [unbound_pvc2, unbound_pvc], None, None,
                                       [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], False),
    "two-unbound-pvcs,partial-match": ([pv_node1a], [unbound_pvc, unbound_pvc2], None, None,
                                       [("unbound-pvc", "pv-node1a")], [ERR_REASON_BIND_CONFLICT], False),
    "one-bound,one-unbound": ([pv_bound, pv_node1a], [unbound_pvc, bound_pvc], None, None,
                              [("unbound-pvc", "pv-node1a")], [], False),
    "one-bound,one-unbound,no-match": ([pv_bound, pv_node2], [unbound_pvc, bound_pvc], None, None, [],
                                       [ERR_REASON_BIND_CONFLICT], False),
    "one-prebound,one-unbound": ([pv_node1a, pv_node1b], [unbound_pvc, prebound_pvc], None, None, [], [], True),
    "immediate-bound-pvc": ([pv_bound_immediate], [immediate_bound_pvc], None, None, [], [], False),
    "immediate-bound-pvc-wrong-node": ([pv_bound_immediate_node2], [immediate_bound_pvc], None, None, [],
                                       [ERR_REASON_NODE_CONFLICT], False),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], None, None, [], [], True),
    "immediate-unbound-pvc,delayed-mode-bound": ([pv_bound], [immediate_unbound_pvc, bound_pvc], None, None, [], [],
                                                 True),
    "immediate-unbound-pvc,delayed-mode-unbound": ([], [immediate_unbound_pvc, unbound_pvc], None, None, [], [],
                                                   True),
    "generic-ephemeral,no-pvc": ([], [], None, NO_SUCH, [], [], True),
    "generic-ephemeral,with-pvc": ([pv_bound_generic], [], [correct_generic_pvc], EPHEMERAL, [], [], False),
    "generic-ephemeral,wrong-pvc": ([pv_bound_generic], [], [conflicting_generic_pvc], EPHEMERAL, [], [], True),
}


def _run(driver: bool | None, pvs: list[dict[str, Any]], claims: list[dict[str, Any]],
         cached: list[dict[str, Any]] | None, volumes: list[dict[str, Any]] | None,
         ) -> tuple[PodVolumes | None, list[str], bool]:
    store = ObjectStore([*CLASSES, *csi_driver(driver), *pvs, *(claims if cached is None else cached)])
    try:
        got, reasons = find_pod_volumes(store, make_pod(claims, volumes))
    except BindError:
        return None, [], True
    return got, reasons, False


def _bindings(got: PodVolumes | None) -> list[tuple[str, str]]:
    return [] if got is None else [(b.pvc["metadata"]["name"], b.pv["metadata"]["name"]) for b in got.static_bindings]


@pytest.mark.parametrize("driver", list(DRIVERS.values()), ids=list(DRIVERS))
@pytest.mark.parametrize("name", list(WITHOUT_PROVISIONING))
def test_find_pod_volumes_without_provisioning(name: str, driver: bool | None) -> None:
    pvs, claims, cached, volumes, bindings, reasons, fails = WITHOUT_PROVISIONING[name]
    got, got_reasons, failed = _run(driver, pvs, claims, cached, volumes)
    assert failed == fails
    assert sorted(got_reasons) == sorted(reasons)
    assert _bindings(got) == bindings
    assert got is None or got.dynamic_provisions == []


# name -> (pvs, pod claims, expected bindings, expected provisions (claim names), reasons, should fail,
#          needs capacity)
WITH_PROVISIONING: dict[str, tuple[Any, ...]] = {
    "one-provisioned": ([], [provisioned_pvc], [], ["provisioned-pvc"], [], False, True),
    "two-unbound-pvcs,one-matched,one-provisioned": ([pv_node1a], [unbound_pvc, provisioned_pvc],
                                                     [("unbound-pvc", "pv-node1a")], ["provisioned-pvc"], [], False,
                                                     True),
    "one-bound,one-provisioned": ([pv_bound], [bound_pvc, provisioned_pvc], [], ["provisioned-pvc"], [], False, True),
    "one-binding,one-selected-node": ([pv_bound], [bound_pvc, selected_node_pvc], [], ["provisioned-pvc"], [], False,
                                      True),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], [], [], [], True, False),
    "one-immediate-bound,one-provisioned": ([pv_bound_immediate], [immediate_bound_pvc, provisioned_pvc], [],
                                            ["provisioned-pvc"], [], False, True),
    "invalid-provisioner": ([], [no_provisioner_pvc], [], [], [ERR_REASON_BIND_CONFLICT], False, False),
    "volume-topology-unsatisfied": ([], [topo_mismatch_pvc], [], [], [ERR_REASON_BIND_CONFLICT], False, False),
}


@pytest.mark.parametrize("driver", list(DRIVERS.values()), ids=list(DRIVERS))
@pytest.mark.parametrize("name", list(WITH_PROVISIONING))
def test_find_pod_volumes_with_provisioning(name: str, driver: bool | None) -> None:
    pvs, claims, bindings, provisions, reasons, fails, needs_capacity = WITH_PROVISIONING[name]
    if needs_capacity and driver:  # without CSIStorageCapacity objects, provisioning is blocked
        reasons, provisions = [*reasons, ERR_REASON_NOT_ENOUGH_SPACE], []
    got, got_reasons, failed = _run(driver, pvs, claims, None, None)
    assert failed == fails
    assert sorted(got_reasons) == sorted(reasons)
    assert _bindings(got) == bindings
    got_provisions = [] if got is None else [d.pvc["metadata"]["name"] for d in got.dynamic_provisions]
    assert got_provisions == provisions


# --- TestAssumePodVolumes -----------------------------------------------------------------------------

ASSUME: dict[str, tuple[Any, ...]] = {
    # name -> (claims, pvs, bindings [(claim, pv)], provisions, expect all bound)
    "all-bound": ([bound_pvc], [pv_bound], [], [], True),
    "one-binding": ([unbound_pvc], [pv_node1a], [(unbound_pvc, pv_node1a)], [], False),
    "two-bindings": ([unbound_pvc, unbound_pvc2], [pv_node1a, pv_node1b],
                     [(unbound_pvc, pv_node1a), (unbound_pvc2, pv_node1b)], [], False),
    "pv-already-bound": ([unbound_pvc], [make_test_pv("pv-node1a", "node1", "5G", "1", unbound_pvc, WAIT)],
                         [(unbound_pvc, make_test_pv("pv-node1a", "node1", "5G", "1", unbound_pvc, WAIT))], [], False),
    "one-binding, one-provision": ([unbound_pvc, provisioned_pvc], [pv_node1a], [(unbound_pvc, pv_node1a)],
                                   [provisioned_pvc], False),
    "one-provision": ([provisioned_pvc], [], [], [provisioned_pvc], False),
}


@pytest.mark.parametrize("name", list(ASSUME))
def test_assume_pod_volumes(name: str) -> None:
    from kubesim_scheduler.plugins.volumes.binder import BindingInfo, DynamicProvision

    claims, pvs, bindings, provisions, all_bound = ASSUME[name]
    store = ObjectStore([*CLASSES, *claims, *pvs])
    binder = VolumeBinder(store.update)
    view = StorageView(_Lister(store))  # type: ignore[arg-type]
    volumes = PodVolumes([BindingInfo(pvc=c, pv=v) for c, v in bindings], [DynamicProvision(pvc=c) for c in provisions])
    assert binder.assume_pod_volumes(view, make_pod(claims), "node1", volumes) == all_bound
    if all_bound:
        return
    for b in volumes.static_bindings:  # the assumed volume points at its claim, as the cache shows it
        assumed = binder.volume(view, b.pv["metadata"]["name"])
        assert assumed["spec"]["claimRef"]["uid"] == b.pvc["metadata"]["uid"]
        assert assumed["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes"
    for d in volumes.dynamic_provisions:  # the assumed claim carries the selected node
        assumed = binder.claim(view, NS, d.pvc["metadata"]["name"])
        assert assumed["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "node1"
    binder.revert_assumed_pod_volumes(volumes)  # RevertAssumedPodVolumes: the API objects again
    assert len(binder.cache) == 0
    for c in claims:
        assert binder.claim(view, NS, c["metadata"]["name"]) == store.objects[("PersistentVolumeClaim", NS,
                                                                                c["metadata"]["name"])]
