"""The ReplicaSet controller on an in-process cluster. Several tests port upstream's
pkg/controller/replicaset/replica_set_test.go (names in the docstrings); they check the
writes the controller makes instead of a fake PodControl's calls."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim_replicaset.replicaset import ReplicaSetController, calculate_status, replicaset_settled
from rs_harness import World, pod_object, rs_object

LABELS = {"foo": "bar"}


def rs_world(**kw: Any) -> World:
    return World(ReplicaSetController, **kw)


def status(w: World, name: str = "foobar") -> dict[str, Any]:
    return w.get("apps/v1", "ReplicaSet", name).get("status") or {}


def test_sync_replicaset_does_nothing() -> None:
    """TestSyncReplicaSetDoesNothing: 2 running pods, 2 replicas: no pod created, deleted or patched."""
    w = rs_world()
    rs = w.create(rs_object("foobar", 2, LABELS))
    for i in range(2):
        w.create(pod_object(f"pod{i}", LABELS, owner=rs))
    w.bind_and_ready()
    w.writes.clear()
    w.settle()
    assert w.writes_by("replicaset", "Pod") == []
    assert status(w)["replicas"] == 2


def test_creates_missing_replicas_with_generate_name_and_controller_ref() -> None:
    """Too few replicas: the controller creates pods `<rs>-<5 chars>` owned by the RS."""
    w = rs_world()
    rs = w.create(rs_object("foobar", 3, LABELS))
    w.settle()
    pods = w.pods()
    assert len(pods) == 3
    for p in pods:
        name = p["metadata"]["name"]
        assert name.startswith("foobar-") and len(name) == len("foobar-") + 5
        assert p["metadata"]["labels"] == LABELS
        assert p["metadata"]["ownerReferences"] == [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "foobar", "uid": rs["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True,
        }]
        assert p["spec"]["containers"][0]["image"] == "foo/bar"
    st = status(w)
    assert (st["replicas"], st["fullyLabeledReplicas"], st.get("readyReplicas", 0)) == (3, 3, 0)
    assert st["observedGeneration"] == w.get("apps/v1", "ReplicaSet", "foobar")["metadata"]["generation"]


def test_deletes_extra_replicas_preferring_unready_and_unscheduled() -> None:
    """Too many replicas: the pods that are least far along go first (getPodsToDelete)."""
    w = rs_world()
    rs = w.create(rs_object("foobar", 4, LABELS))
    w.settle()
    names = sorted(p["metadata"]["name"] for p in w.pods())
    w.bind_and_ready([w.get("v1", "Pod", names[0]), w.get("v1", "Pod", names[1])])
    w.cluster.bind("default", names[2], "node-2", actor="scheduler")  # scheduled, not ready
    w.patch("apps/v1", "ReplicaSet", "foobar", {"spec": {"replicas": 2}})
    w.settle()
    left = sorted(p["metadata"]["name"] for p in w.pods())
    assert left == names[:2]  # the unscheduled and the not-ready pods went
    assert status(w)["replicas"] == 2 and status(w)["readyReplicas"] == 2
    assert rs["metadata"]["uid"]


def test_scale_down_ranks_by_colocated_pods() -> None:
    """Of ready pods, those sharing a node with more related pods are deleted first."""
    w = rs_world()
    w.create(rs_object("foobar", 3, LABELS))
    w.settle()
    a, b, c = sorted(p["metadata"]["name"] for p in w.pods())
    w.bind_and_ready([w.get("v1", "Pod", a), w.get("v1", "Pod", c)], node="crowded")
    w.bind_and_ready([w.get("v1", "Pod", b)], node="alone")
    w.patch("apps/v1", "ReplicaSet", "foobar", {"spec": {"replicas": 2}})
    w.settle()
    left = {p["metadata"]["name"] for p in w.pods()}
    assert b in left and len(left & {a, c}) == 1


def test_pod_controller_lookup() -> None:
    """TestPodControllerLookup: an orphan wakes the RSs of its namespace whose selector matches."""
    w = rs_world()
    w.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}})
    other_ns = rs_object("foo", 0, LABELS)
    w.create(other_ns)
    bar = rs_object("bar", 0, LABELS)
    bar["metadata"]["namespace"] = "ns"
    w.create(bar)
    ctl = w.controllers[0]
    assert isinstance(ctl, ReplicaSetController)
    no_labels = pod_object("foo1", {})
    no_labels["metadata"]["namespace"] = "ns"
    assert ctl._matching_replicasets(no_labels) == []
    matching = pod_object("foo3", LABELS)
    matching["metadata"]["namespace"] = "ns"
    assert ctl._matching_replicasets(matching) == [("ns", "bar")]


def test_adopts_orphans_and_creates_only_the_rest() -> None:
    """TestPatchPodWithOtherOwnerRef / orphan adoption: a matching orphan is adopted, not duplicated."""
    w = rs_world()
    rs = w.create(rs_object("foobar", 2, LABELS))
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": "default"}}
    other = w.create(other)
    w.create(pod_object("orphan", LABELS, owner=other, controller=False))
    w.settle()
    pods = w.pods()
    assert len(pods) == 2
    orphan = w.get("v1", "Pod", "orphan")
    refs = orphan["metadata"]["ownerReferences"]
    assert {r["uid"] for r in refs} == {other["metadata"]["uid"], rs["metadata"]["uid"]}
    assert next(r for r in refs if r.get("controller"))["blockOwnerDeletion"] is True
    assert [w_ for w_ in w.writes_by("replicaset", "Pod") if w_[1] == "MODIFIED"] == [
        ("replicaset", "MODIFIED", "Pod", "orphan")]


def test_does_not_touch_pods_controlled_by_others() -> None:
    """TestDoNotPatchPodWithOtherControlRef: a pod with another controller is left alone."""
    w = rs_world()
    w.create(rs_object("foobar", 1, LABELS))
    owner = w.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner", "namespace": "default"}})
    w.create(pod_object("taken", LABELS, owner=owner))
    w.settle()
    assert w.get("v1", "Pod", "taken")["metadata"]["ownerReferences"][0]["uid"] == owner["metadata"]["uid"]
    assert len(w.pods(label="foo=bar")) == 2  # one new pod for foobar besides the taken one


def test_releases_pods_whose_labels_stop_matching() -> None:
    """TestUpdateLabelsRemoveControllerRef: relabelled pods are released and replaced."""
    w = rs_world()
    w.create(rs_object("foobar", 2, LABELS))
    w.settle()
    name = w.pods()[0]["metadata"]["name"]
    w.patch("v1", "Pod", name, {"metadata": {"labels": {"foo": "other"}}})
    w.settle()
    assert not w.get("v1", "Pod", name)["metadata"].get("ownerReferences")
    assert len(w.pods(label="foo=bar")) == 2
    assert status(w)["replicas"] == 2


def test_does_not_adopt_or_create_while_being_deleted() -> None:
    """TestDoNotAdoptOrCreateIfBeingDeleted."""
    w = rs_world()
    rs = rs_object("foobar", 2, LABELS)
    rs["metadata"]["finalizers"] = ["example.com/hold"]
    w.create(rs)
    w.create(pod_object("orphan", LABELS))
    w.cluster.delete("apps/v1", "ReplicaSet", "foobar", "default", actor="scenario")
    w.writes.clear()
    w.settle()
    assert [x for x in w.writes_by("replicaset") if x[1] != "MODIFIED/status"] == []
    assert "ownerReferences" not in w.get("v1", "Pod", "orphan")["metadata"]


def test_ready_replicas() -> None:
    """TestReadyReplicas: readyReplicas counts Ready pods only."""
    w = rs_world()
    w.create(rs_object("foobar", 2, LABELS))
    w.settle()
    a, b = sorted(p["metadata"]["name"] for p in w.pods())
    w.bind_and_ready([w.get("v1", "Pod", a)])
    w.cluster.bind("default", b, "node-1", actor="scheduler")
    w.set_ready(b, ready=False)
    w.settle()
    st = status(w)
    assert (st["replicas"], st["readyReplicas"], st["availableReplicas"]) == (2, 1, 1)


def test_available_replicas_wait_min_ready_seconds_in_simulated_time() -> None:
    """TestAvailableReplicas: a Ready pod counts as available minReadySeconds later."""
    w = rs_world()
    w.create(rs_object("foobar", 2, LABELS, minReadySeconds=15))
    w.settle()
    w.bind_and_ready()
    w.settle()
    assert status(w)["readyReplicas"] == 2 and status(w).get("availableReplicas", 0) == 0
    w.step(10)
    assert status(w).get("availableReplicas", 0) == 0
    w.step(5)  # exactly minReadySeconds after Ready: available (lastTransitionTime + 15s <= now)
    assert status(w)["availableReplicas"] == 2


class DenyPodsAfter:
    """An admission plugin standing in for a ResourceQuota: at most `limit` pods."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def __call__(self, request: AdmissionRequest) -> AdmissionResponse | None:
        if request.phase != "validating" or request.resource.kind != "Pod" or request.operation != "CREATE":
            return None
        self.count += 1
        if self.count > self.limit:
            return AdmissionResponse(allowed=False, name="quota",
                                     message="exceeded quota: compute-resources, requested: pods=1")
        return None


def test_create_failures_set_replica_failure_and_the_waiter_holds() -> None:
    """TestSyncReplicaSetCreateFailures: a rejected create stops the sync and becomes ReplicaFailure."""
    quota = DenyPodsAfter(2)
    w = rs_world(admitters=[quota])
    w.create(rs_object("foobar", 5, LABELS))
    assert w.controllers[0].run_once()  # one sync
    assert quota.count == 3  # creation stopped at the first rejection
    w.settle()  # asserts the waiter: ReplicaFailure=True
    assert len(w.pods()) == 2
    st = status(w)
    failure = next(c for c in st["conditions"] if c["type"] == "ReplicaFailure")
    assert failure["status"] == "True" and failure["reason"] == "FailedCreate"
    assert failure["message"] == ('admission webhook "quota" denied the request: exceeded quota: '
                                  "compute-resources, requested: pods=1")
    assert st["replicas"] == 2
    # once the quota allows it, the retry (in simulated time) creates the rest and clears the condition
    quota.limit = 100
    w.step(10)
    assert len(w.pods()) == 5
    assert "conditions" not in status(w)


def test_calculate_status_omits_zero_counts_like_the_api_server() -> None:
    rs = rs_object("foobar", 1, LABELS)
    rs["metadata"]["generation"] = 1
    from kubesim.clock import DEFAULT_EPOCH
    st = calculate_status(rs, [], None, DEFAULT_EPOCH, "2025-01-01T00:00:00Z")
    assert st == {"replicas": 0}


@pytest.mark.parametrize(("rs_status", "spec", "deleting", "settled"), [
    ({"replicas": 2, "fullyLabeledReplicas": 2, "observedGeneration": 1}, 2, False, True),
    ({"replicas": 1, "fullyLabeledReplicas": 1, "observedGeneration": 1}, 2, False, False),
    ({"replicas": 2, "fullyLabeledReplicas": 1, "observedGeneration": 1}, 2, False, False),
    ({"replicas": 2, "fullyLabeledReplicas": 2}, 2, False, False),  # generation not observed
    ({"replicas": 1, "conditions": [{"type": "ReplicaFailure", "status": "True"}]}, 2, False, True),
])
def test_waiter_condition(rs_status: dict[str, Any], spec: int, deleting: bool, settled: bool) -> None:
    rs = rs_object("foobar", spec, LABELS)
    rs["metadata"]["generation"] = 1
    rs["status"] = rs_status
    assert replicaset_settled(rs) is settled


def test_waiter_accepts_adopted_pods_missing_template_labels() -> None:
    """An adopted pod without every template label keeps fullyLabeledReplicas below spec.replicas
    for good; the controller can do nothing about it, so its waiter still holds."""
    w = rs_world()
    rs = rs_object("foobar", 2, LABELS)
    rs["spec"]["template"]["metadata"]["labels"]["extra"] = "yes"
    w.create(rs)
    w.create(pod_object("orphan", LABELS))
    w.settle()  # asserts the waiter
    st = status(w)
    assert (st["replicas"], st["fullyLabeledReplicas"]) == (2, 1)
