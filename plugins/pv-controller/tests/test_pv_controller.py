"""persistentvolume-binder: binding, provisioning and the claim and volume phases, on a SimEnv."""

from __future__ import annotations

from typing import Any

import pytest

from kubesim.testing import SimEnv
from kubesim_pv_controller import PersistentVolumeController

ZONE = "topology.kubernetes.io/zone"


def sc(name: str, mode: str = "Immediate", provisioner: str = "csi.example.com", **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": mode, "reclaimPolicy": "Delete", **extra}


def pvc(name: str, storage_class: str | None = "fast", size: str = "1Gi", **spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                           "metadata": {"name": name, "namespace": "default"},
                           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}},
                                    **spec}}
    if storage_class is not None:
        out["spec"]["storageClassName"] = storage_class
    return out


def pv(name: str, size: str, storage_class: str = "fast", policy: str = "Retain", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                     "persistentVolumeReclaimPolicy": policy, "csi": {"driver": "csi.example.com", "volumeHandle": name},
                     **spec}}


@pytest.fixture
def env() -> Any:
    with SimEnv([PersistentVolumeController]) as e:
        yield e


def claim(env: SimEnv, name: str) -> dict[str, Any]:
    return env.get("v1", "PersistentVolumeClaim", name, "default")


def volume(env: SimEnv, name: str) -> dict[str, Any]:
    return env.get("v1", "PersistentVolume", name)


def test_immediate_claim_binds_the_smallest_matching_volume(env: SimEnv) -> None:
    env.create(sc("fast", provisioner="kubernetes.io/no-provisioner"))
    for name, size in (("pv-big", "10Gi"), ("pv-small", "2Gi"), ("pv-tiny", "500Mi")):
        env.create(pv(name, size))
    env.create(pvc("data"))
    env.settle()
    c = claim(env, "data")
    assert c["spec"]["volumeName"] == "pv-small"
    assert c["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    assert c["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes",
                                            "pv.kubernetes.io/bound-by-controller": "yes"}
    v = volume(env, "pv-small")
    assert v["spec"]["claimRef"]["uid"] == c["metadata"]["uid"]
    assert v["status"]["phase"] == "Bound"
    assert [volume(env, n)["status"]["phase"] for n in ("pv-big", "pv-tiny")] == ["Available", "Available"]


def test_immediate_claim_without_volume_is_provisioned(env: SimEnv) -> None:
    env.create(sc("fast", allowedTopologies=[{"matchLabelExpressions": [{"key": ZONE, "values": ["a", "b"]}]}]))
    env.create(pvc("data", size="3Gi"))
    env.settle()
    c = claim(env, "data")
    name = f"pvc-{c['metadata']['uid']}"
    assert c["spec"]["volumeName"] == name and c["status"]["phase"] == "Bound"
    assert c["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] == "csi.example.com"
    v = volume(env, name)
    assert v["spec"]["capacity"] == {"storage": "3Gi"}
    assert v["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert v["spec"]["csi"] == {"driver": "csi.example.com", "volumeHandle": name}
    assert v["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a", "b"]}]}]
    assert v["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == "csi.example.com"
    assert v["status"]["phase"] == "Bound"


def test_wait_for_first_consumer_provisions_on_the_selected_node(env: SimEnv) -> None:
    env.create(sc("fast", "WaitForFirstConsumer"))
    env.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {ZONE: "b", "other": "x"}}})
    env.create({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
                "spec": {"drivers": [{"name": "csi.example.com", "nodeID": "n1", "topologyKeys": [ZONE]}]}})
    env.create(pvc("data"))
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Pending"
    assert env.list("v1", "PersistentVolume") == []
    env.patch("v1", "PersistentVolumeClaim", "data",
              {"metadata": {"annotations": {"volume.kubernetes.io/selected-node": "n1"}}}, namespace="default")
    env.settle()
    c = claim(env, "data")
    assert c["status"]["phase"] == "Bound"
    v = volume(env, c["spec"]["volumeName"])
    assert v["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["b"]}]}]


def test_scheduler_static_binding_is_completed(env: SimEnv) -> None:
    """The scheduler's PreBind writes the volume's claimRef; the controller binds the claim."""
    env.create(sc("fast", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"))
    env.create(pv("local-1", "5Gi"))
    c = env.create(pvc("data"))
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Pending"
    v = volume(env, "local-1")
    v["spec"]["claimRef"] = {"namespace": "default", "name": "data", "uid": c["metadata"]["uid"]}
    v["metadata"].setdefault("annotations", {})["pv.kubernetes.io/bound-by-controller"] = "yes"
    env.update(v, actor="scheduler")
    env.settle()
    assert claim(env, "data")["spec"]["volumeName"] == "local-1"
    assert claim(env, "data")["status"]["phase"] == "Bound"
    assert volume(env, "local-1")["status"]["phase"] == "Bound"


def test_claim_without_class_waits_for_a_volume(env: SimEnv) -> None:
    env.create(pvc("data", storage_class=""))
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Pending"
    env.create(pv("late", "1Gi", storage_class=""))
    env.settle()
    assert claim(env, "data")["spec"]["volumeName"] == "late"


def test_pre_bound_claim(env: SimEnv) -> None:
    env.create(pv("chosen", "1Gi"))
    env.create(pv("other", "1Gi"))
    env.create(pvc("data", storage_class="fast", volumeName="chosen"))
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Bound"
    assert volume(env, "chosen")["spec"]["claimRef"]["name"] == "data"
    assert "claimRef" not in volume(env, "other")["spec"]


@pytest.mark.parametrize("policy,left", [("Delete", None), ("Retain", "Released")])
def test_deleted_claim_releases_its_volume(env: SimEnv, policy: str, left: str | None) -> None:
    env.create(sc("fast", provisioner="kubernetes.io/no-provisioner"))
    env.create(pv("v", "1Gi", policy=policy))
    env.create(pvc("data"))
    env.settle()
    env.delete("v1", "PersistentVolumeClaim", "data", "default")
    env.settle()
    if left is None:
        assert not env.exists("v1", "PersistentVolume", "v")
    else:
        assert volume(env, "v")["status"]["phase"] == left


def test_bound_claim_loses_its_volume(env: SimEnv) -> None:
    env.create(sc("fast", provisioner="kubernetes.io/no-provisioner"))
    env.create(pv("v", "1Gi"))
    env.create(pvc("data"))
    env.settle()
    env.delete("v1", "PersistentVolume", "v")
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Lost"


def test_same_inputs_same_writes() -> None:
    def run() -> list[Any]:
        with SimEnv([PersistentVolumeController]) as e:
            e.create(sc("fast"))
            for i in range(3):
                e.create(pvc(f"c{i}"))
            e.settle()
            return [(c["metadata"]["name"], c["spec"]["volumeName"]) for c in e.list("v1", "PersistentVolumeClaim")]

    first = run()
    assert first == run()
    assert len(first) == 3


def test_default_class_is_assigned_retroactively(env: SimEnv) -> None:
    env.create(pvc("data", storage_class=None))
    env.settle()
    assert "storageClassName" not in claim(env, "data")["spec"]
    env.create(sc("standard", metadata={"name": "standard",
                                         "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}))
    env.settle()
    c = claim(env, "data")
    assert c["spec"]["storageClassName"] == "standard"
    assert c["status"]["phase"] == "Bound"  # provisioned from the class (Immediate)


def test_ephemeral_volume_claims_follow_their_pod() -> None:
    from kubesim_pv_controller import EphemeralVolumeController

    template = {"metadata": {"labels": {"type": "scratch"}},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                         "resources": {"requests": {"storage": "1Gi"}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "busybox"}],
                    "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": template}},
                                {"name": "cm", "configMap": {"name": "x"}}]}}
    with SimEnv([PersistentVolumeController, EphemeralVolumeController]) as e:
        e.create(sc("fast"))
        created = e.create(pod)
        e.settle()
        c = e.get("v1", "PersistentVolumeClaim", "app-scratch", "default")
        assert c["metadata"]["labels"] == {"type": "scratch"}
        assert c["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
        assert c["status"]["phase"] == "Bound"
        assert [x["metadata"]["name"] for x in e.list("v1", "PersistentVolumeClaim")] == ["app-scratch"]
        e.delete("v1", "Pod", "app", "default")
        e.settle()
        assert not e.exists("v1", "PersistentVolumeClaim", "app-scratch", "default")


def test_imported_bound_pair_stays_bound(env: SimEnv) -> None:
    """kubesim import keeps a bound claim's annotations but drops the volume's claimRef uid."""
    bound = pv("imported", "1Gi", claimRef={"namespace": "default", "name": "data"})
    env.create(bound)
    volume_obj = volume(env, "imported")
    volume_obj["status"] = {"phase": "Bound"}
    env.cluster.update(volume_obj, actor="scenario", subresource="status")
    c = pvc("data", volumeName="imported")
    c["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    phases: list[str] = []
    env.cluster.watch(lambda e: phases.append(e.object.get("status", {}).get("phase", ""))
                      if e.object.get("kind") == "PersistentVolume" else None)
    created = env.create(c)
    env.settle()
    assert volume(env, "imported")["spec"]["claimRef"]["uid"] == created["metadata"]["uid"]
    assert volume(env, "imported")["status"]["phase"] == "Bound"
    assert claim(env, "data")["status"]["phase"] == "Bound"
    assert phases and "Available" not in phases  # never released on the way


def test_claim_naming_a_volume_attributes_class_waits(env: SimEnv) -> None:
    """VolumeAttributesClass is off in v1.34: FindMatchingVolume refuses such a claim, which stays Pending."""
    env.create(pv("v", "1Gi"))
    env.create(pvc("data", volumeAttributesClassName="gold"))
    env.settle()
    assert claim(env, "data")["status"]["phase"] == "Pending"
    assert "claimRef" not in volume(env, "v")["spec"]


def test_pods_without_ephemeral_volumes_are_not_queued() -> None:
    from kubesim_pv_controller import EphemeralVolumeController

    plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain", "namespace": "default"},
             "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    with SimEnv([EphemeralVolumeController]) as e:
        controller = next(c for c in e.controllers if isinstance(c, EphemeralVolumeController))
        e.create(plain)
        assert len(controller.queue) == 0  # enqueuePod: nothing for this pod to reconcile
        e.settle()
        assert e.list("v1", "PersistentVolumeClaim") == []
