"""The StatefulSet controller's sync, ported from upstream stateful_set_control_test.go where it fits.

Upstream drives `UpdateStatefulSet` with fake pod control and plays the kubelet with
setPodRunning/setPodReady; here the controller runs against kubesim's cluster and the test
plays the kubelet through the same helpers (statefulset_harness).
"""

from __future__ import annotations

import pytest
from kubesim_statefulset.identity import POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL
from statefulset_harness import Sim, burst, monotonic_invariants, new_statefulset

POLICIES = ["OrderedReady", "Parallel"]

# a claim template the API server accepts (access modes and a storage request are required)
DATA_CLAIM = {"metadata": {"name": "data"},
              "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def make(replicas: int, policy: str, **spec) -> tuple[Sim, dict]:
    sim = Sim()
    sts = new_statefulset(replicas, **spec)
    if policy == "Parallel":
        sts = burst(sts)
    else:
        monotonic_invariants(sim)
    sim.cluster.create(sts)
    return sim, sts


# --- TestStatefulSetControl --------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_creates_pods(policy):
    sim, _ = make(3, policy)
    sim.scale_up()
    status = sim.sts()["status"]
    assert (status["replicas"], status["readyReplicas"], status["updatedReplicas"]) == (3, 3, 3)
    assert sim.names() == ["foo-0", "foo-1", "foo-2"]


@pytest.mark.parametrize("policy", POLICIES)
def test_scales_up(policy):
    sim, _ = make(3, policy)
    sim.scale_up()
    sim.patch_set({"spec": {"replicas": 4}})
    sim.scale_up()
    status = sim.sts()["status"]
    assert (status["replicas"], status["readyReplicas"], status["updatedReplicas"]) == (4, 4, 4)


@pytest.mark.parametrize("policy", POLICIES)
def test_scales_down(policy):
    sim, _ = make(3, policy)
    sim.scale_up()
    sim.patch_set({"spec": {"replicas": 0}})
    sim.scale_down()
    status = sim.sts()["status"]
    assert (status["replicas"], status.get("readyReplicas", 0), status.get("updatedReplicas", 0)) == (0, 0, 0)
    assert sim.pods() == []


@pytest.mark.parametrize("policy", POLICIES)
def test_replaces_pods(policy):
    sim, _ = make(5, policy)
    sim.scale_up()
    for name in ("foo-0", "foo-2", "foo-4"):
        sim.delete_pod(name)
    sim.scale_up()
    assert sim.names() == [f"foo-{i}" for i in range(5)]
    assert sim.sts()["status"]["replicas"] == 5


@pytest.mark.parametrize("policy", POLICIES)
def test_recreates_failed_pod(policy):
    sim, _ = make(3, policy)
    sim.scale_up()
    uid = sim.pods()[0]["metadata"]["uid"]
    sim.set_phase("foo-0", "Failed")
    sim.settle()
    assert "foo-0" not in sim.names()  # deleted; its replacement waits for time to move on
    sim.step(1)
    sim.scale_up()
    assert sim.pods()[0]["metadata"]["name"] == "foo-0" and sim.pods()[0]["metadata"]["uid"] != uid


@pytest.mark.parametrize("policy", POLICIES)
def test_recreates_succeeded_pod(policy):
    sim, _ = make(3, policy)
    sim.scale_up()
    sim.set_phase("foo-1", "Succeeded")
    sim.settle()
    assert sim.names() == ["foo-0", "foo-2"]
    sim.step(1)
    sim.scale_up()
    assert sim.names() == ["foo-0", "foo-1", "foo-2"]


# --- pod management policy -------------------------------------------------------------------


def test_ordered_ready_creates_one_pod_at_a_time_and_waits_for_running_and_ready():
    sim, _ = make(3, "OrderedReady")
    sim.settle()
    assert sim.names() == ["foo-0"]
    sim.set_phase("foo-0", "Running")
    sim.settle()
    assert sim.names() == ["foo-0"]  # Running is not enough: Ready too
    sim.set_ready("foo-0")
    sim.settle()
    assert sim.names() == ["foo-0", "foo-1"]
    status = sim.sts()["status"]
    assert (status["replicas"], status["readyReplicas"]) == (2, 1)


def test_parallel_creates_all_pods_at_once_without_waiting():
    sim, _ = make(3, "Parallel")
    sim.settle()
    assert sim.names() == ["foo-0", "foo-1", "foo-2"]
    assert sim.created() == ["foo-0", "foo-1", "foo-2"]


def test_ordered_ready_scales_down_from_the_highest_ordinal_one_at_a_time():
    from kubesim_kubelet import KubeletController

    sim = Sim(KubeletController)
    sim.cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    sts = new_statefulset(4)
    sts["spec"]["template"]["spec"]["nodeName"] = "n1"
    sim.cluster.create(sts)
    sim.settle()
    assert sim.names() == ["foo-0", "foo-1", "foo-2", "foo-3"]  # the kubelet made each Running and Ready
    sim.patch_set({"spec": {"replicas": 1}})
    sim.settle()
    assert sim.deleted() == ["foo-3"]  # terminating for 30 s; the next waits
    for _ in range(3):
        sim.step(10)
    assert sim.deleted() == ["foo-3", "foo-2"]
    for _ in range(6):
        sim.step(10)
    assert sim.deleted() == ["foo-3", "foo-2", "foo-1"]
    assert sim.names() == ["foo-0"]
    sim.close()


def test_parallel_scales_down_all_condemned_pods_at_once():
    sim, _ = make(4, "Parallel")
    sim.scale_up()
    sim.patch_set({"spec": {"replicas": 1}})
    sim.settle()
    assert sim.deleted() == ["foo-3", "foo-2", "foo-1"]


def test_ordered_ready_does_not_scale_down_while_a_pod_is_unhealthy():
    sim, _ = make(3, "OrderedReady")
    sim.scale_up()
    sim.set_ready("foo-0", False)
    sim.patch_set({"spec": {"replicas": 1}})
    sim.settle()
    assert sim.deleted() == []
    sim.set_ready("foo-0")
    sim.settle()
    assert sim.deleted() == ["foo-2", "foo-1"]


def test_ordered_ready_waits_for_a_pending_pod_and_counts_as_settled():
    sim, _ = make(3, "OrderedReady")
    sim.settle()  # asserts the waiter holds although only foo-0 exists
    assert sim.names() == ["foo-0"]
    assert sim.ssc.waiter().satisfied()
    status = sim.sts()["status"]
    assert status["replicas"] == 1 and status.get("readyReplicas", 0) == 0


def test_start_ordinal_names_pods_from_it():
    sim, _ = make(3, "Parallel", ordinals={"start": 5})
    sim.scale_up()
    assert sim.names() == ["foo-5", "foo-6", "foo-7"]
    sim.patch_set({"spec": {"ordinals": {"start": 3}}})
    sim.scale_down()
    sim.scale_up()
    assert sim.names() == ["foo-3", "foo-4", "foo-5"]


# --- pods, claims, status ---------------------------------------------------------------------


def test_pods_carry_identity_labels_owner_and_claims():
    sim = Sim()
    sts = new_statefulset(2, volumeClaimTemplates=[
        {"metadata": {"name": "data", "labels": {"tier": "db"}},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
    ])
    created = sim.cluster.create(sts)
    sim.scale_up()
    pod = sim.pods()[1]
    meta = pod["metadata"]
    revision = sim.sts()["status"]["updateRevision"]
    assert meta["labels"] == {"foo": "bar", POD_NAME_LABEL: "foo-1", POD_INDEX_LABEL: "1", REVISION_LABEL: revision}
    assert meta["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "foo",
                                        "uid": created["metadata"]["uid"], "controller": True,
                                        "blockOwnerDeletion": True}]
    assert meta["generateName"] == "foo-"
    assert pod["spec"]["hostname"] == "foo-1" and pod["spec"]["subdomain"] == "governingsvc"
    assert pod["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-foo-1"}}]
    claims = sim.cluster.list("v1", "PersistentVolumeClaim", "default")
    assert [c["metadata"]["name"] for c in claims] == ["data-foo-0", "data-foo-1"]
    assert claims[0]["metadata"]["labels"] == {"tier": "db", "foo": "bar"}
    assert claims[0]["spec"]["resources"] == {"requests": {"storage": "1Gi"}}
    assert "ownerReferences" not in claims[0]["metadata"]  # Retain / Retain


def test_status_after_scale_up():
    sim, _ = make(3, "OrderedReady")
    sim.scale_up()
    sts = sim.sts()
    revision = sim.revisions()[0]["metadata"]["name"]
    assert sts["status"] == {
        "observedGeneration": 1, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3, "updatedReplicas": 3,
        "currentRevision": revision, "updateRevision": revision, "collisionCount": 0, "availableReplicas": 3,
    }


def test_retention_policy_delete_gives_claims_owner_references():
    sim = Sim()
    sts = new_statefulset(3, volumeClaimTemplates=[DATA_CLAIM],
                          persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Delete"})
    created = sim.cluster.create(sts)
    sim.scale_up()
    refs = {c["metadata"]["name"]: c["metadata"].get("ownerReferences")
            for c in sim.cluster.list("v1", "PersistentVolumeClaim", "default")}
    assert all(r == [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "foo",
                      "uid": created["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
               for r in refs.values())
    sim.patch_set({"spec": {"replicas": 2}})
    sim.scale_down()
    # the condemned pod's claim was handed to the pod before it went; the garbage collector took both
    assert [c["metadata"]["name"] for c in sim.cluster.list("v1", "PersistentVolumeClaim", "default")] == [
        "data-foo-0", "data-foo-1",
    ]


def test_min_ready_seconds_makes_pods_available_later():
    sim, _ = make(2, "Parallel", minReadySeconds=15)
    sim.scale_up()
    status = sim.sts()["status"]
    assert status["readyReplicas"] == 2 and status["availableReplicas"] == 0
    sim.step(10)
    assert sim.sts()["status"]["availableReplicas"] == 0
    sim.step(10)
    assert sim.sts()["status"]["availableReplicas"] == 2


# --- adoption -----------------------------------------------------------------------------------


def test_adopts_a_matching_orphan_pod_and_releases_one_that_stops_matching():
    sim = Sim()
    sim.cluster.create({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "foo-0", "namespace": "default", "labels": {"foo": "bar"}},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}})
    sim.cluster.create({"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "stranger", "namespace": "default", "labels": {"foo": "bar"}},
                        "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}})
    created = sim.cluster.create(new_statefulset(1))
    sim.settle()
    adopted = sim.cluster.get("v1", "Pod", "foo-0", "default")
    assert adopted["metadata"]["ownerReferences"][0]["uid"] == created["metadata"]["uid"]
    assert "ownerReferences" not in sim.cluster.get("v1", "Pod", "stranger", "default")["metadata"]
    assert sim.created() == []  # adopted, not recreated
    assert POD_NAME_LABEL not in adopted["metadata"]["labels"]  # Pending: OrderedReady waits before fixing it
    sim.run_and_ready("foo-0")
    sim.settle()
    assert sim.cluster.get("v1", "Pod", "foo-0", "default")["metadata"]["labels"][POD_NAME_LABEL] == "foo-0"
    # labels changed: released, and a new foo-0 cannot be created while the old one holds the name
    pod = sim.cluster.get("v1", "Pod", "foo-0", "default")
    pod["metadata"]["labels"] = {"foo": "baz"}
    sim.cluster.update(pod)
    sim.settle()
    assert "ownerReferences" not in sim.cluster.get("v1", "Pod", "foo-0", "default")["metadata"]


def test_deleting_the_set_garbage_collects_its_pods():
    sim, _ = make(3, "Parallel")
    sim.scale_up()
    sim.cluster.delete("apps/v1", "StatefulSet", "foo", "default")
    sim.settle()
    assert sim.pods() == []
    assert sim.revisions() == []


# --- the waiter -------------------------------------------------------------------------------


def test_the_waiter_sees_work_a_sync_would_do():
    sim, _ = make(3, "Parallel")
    assert not sim.ssc.settled()  # a revision and three pods to create
    assert "would create ControllerRevision" in sim.ssc.last_blocker
    sim.settle()
    assert sim.ssc.settled()
    sim.cluster.delete("v1", "Pod", "foo-1", "default")
    assert not sim.ssc.settled()
    assert sim.ssc.last_blocker == "default/foo: would create Pod foo-1"


def test_changes_a_sync_does_not_read_do_not_wake_the_set():
    sim, _ = make(2, "Parallel")
    sim.scale_up()
    assert sim.ssc.queue.ready() == 0
    sim.cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    sim.cluster.bind("default", "foo-0", "n1")  # spec.nodeName and PodScheduled: not read by a sync
    pod = sim.cluster.get("v1", "Pod", "foo-1", "default")
    pod["metadata"]["annotations"] = {"note": "x"}
    sim.cluster.update(pod)
    assert sim.ssc.queue.ready() == 0
    sim.set_ready("foo-1", False)  # readiness is read
    assert sim.ssc.queue.ready() == 1
    sim.settle()
    assert sim.sts()["status"]["readyReplicas"] == 1


def test_a_claim_being_deleted_blocks_its_pod_until_it_is_gone():
    sim = Sim()
    sim.cluster.create({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                        "metadata": {"name": "data-foo-0", "namespace": "default",
                                     "finalizers": ["kubernetes.io/pvc-protection"]}, "spec": DATA_CLAIM["spec"]})
    sim.cluster.delete("v1", "PersistentVolumeClaim", "data-foo-0", "default")
    sim.cluster.create(new_statefulset(1, volumeClaimTemplates=[DATA_CLAIM]))
    sim.settle()  # the sync fails ("pvc data-foo-0 is being deleted"): can do nothing more for now
    assert sim.pods() == []
    claim = sim.cluster.get("v1", "PersistentVolumeClaim", "data-foo-0", "default")
    claim["metadata"]["finalizers"] = []
    sim.cluster.update(claim)  # the claim goes
    sim.step(1)  # retried at the next moment: a new claim, then the pod
    assert sim.names() == ["foo-0"]
    assert sim.cluster.get("v1", "PersistentVolumeClaim", "data-foo-0", "default")["metadata"].get(
        "deletionTimestamp") is None
