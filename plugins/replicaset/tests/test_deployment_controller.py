"""The Deployment and ReplicaSet controllers together on an in-process cluster, with the test
playing scheduler and kubelet (`World.bind_and_ready`). Ports of upstream's
deployment_controller_test.go cases are named in the docstrings."""

from __future__ import annotations

from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse, copy_tree
from kubesim.cluster.workload_defaults import default_deployment
from kubesim_replicaset.deployment.hashing import compute_hash
from rs_harness import World, deployment_object, rs_object

DEPLOYMENT = ("apps/v1", "Deployment")

LABELS = {"app": "web"}
REVISION = "deployment.kubernetes.io/revision"


def _defaulted(obj: dict[str, Any]) -> dict[str, Any]:
    """A defaulted copy of a Deployment, as the API server stores it."""
    obj = copy_tree(obj)
    default_deployment(obj)
    return obj


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c.get("reason", "")) for c in (obj.get("status") or {}).get("conditions") or []}


def rs_by_revision(w: World) -> dict[str, dict[str, Any]]:
    return {r["metadata"]["annotations"][REVISION]: r for r in w.replicasets()}


def roll(w: World, rounds: int = 50) -> int:
    """Settle, then let pending pods run, until nothing is left to bind; returns the rounds taken."""
    for i in range(rounds):
        w.settle()
        if not w.bind_and_ready():
            return i
    raise AssertionError("rollout did not finish")


def test_sync_creates_replicaset_and_pods_stay_pending_without_a_kubelet() -> None:
    """TestSyncDeploymentCreatesReplicaSet, and the waiters with pods that never run."""
    w = World()
    d = w.create(deployment_object("foo", 1, LABELS))
    w.settle()  # asserts both waiters hold with the pod Pending
    [rs] = w.replicasets()
    template = _defaulted(d)["spec"]["template"]
    pod_hash = compute_hash(template, None)
    assert rs["metadata"]["name"] == f"foo-{pod_hash}"
    assert rs["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "web", "pod-template-hash": pod_hash}}
    assert rs["spec"]["template"]["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
    assert rs["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]
    assert rs["metadata"]["annotations"] == {REVISION: "1", "deployment.kubernetes.io/desired-replicas": "1",
                                             "deployment.kubernetes.io/max-replicas": "2"}
    [pod] = w.pods()
    assert pod["metadata"]["name"].startswith(f"foo-{pod_hash}-")
    d = w.get(*DEPLOYMENT, "foo")
    assert d["metadata"]["annotations"] == {REVISION: "1"}
    st = d["status"]
    assert (st["observedGeneration"], st["replicas"], st["updatedReplicas"], st["unavailableReplicas"]) == (1, 1, 1, 1)
    assert "availableReplicas" not in st
    assert conditions(d) == {"Available": ("False", "MinimumReplicasUnavailable"),
                             "Progressing": ("True", "ReplicaSetUpdated")}


def test_defaults_are_applied() -> None:
    w = World()
    body = deployment_object("foo", 1, LABELS)
    del body["spec"]["replicas"]
    w.create(body)
    spec = w.get(*DEPLOYMENT, "foo")["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert (spec["revisionHistoryLimit"], spec["progressDeadlineSeconds"]) == (10, 600)
    assert spec["template"]["spec"]["restartPolicy"] == "Always"


def test_rolling_update_respects_surge_and_unavailability_and_completes() -> None:
    w = World()
    w.create(deployment_object("foo", 10, LABELS, strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": 3, "maxUnavailable": 2}}))
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "foo/bar:2"}]}}}})
    for _ in range(50):
        w.settle()
        pods = w.pods()
        assert len(pods) <= 13  # replicas + maxSurge
        ready = [p for p in pods if any(c["type"] == "Ready" and c["status"] == "True"
                                        for c in p["status"].get("conditions", []))]
        assert len(ready) >= 8  # replicas - maxUnavailable
        if not w.bind_and_ready():
            break
    revs = rs_by_revision(w)
    assert revs["1"]["spec"]["replicas"] == 0 and revs["2"]["spec"]["replicas"] == 10
    d = w.get(*DEPLOYMENT, "foo")
    assert d["metadata"]["annotations"][REVISION] == "2"
    st = d["status"]
    assert (st["replicas"], st["updatedReplicas"], st["readyReplicas"], st["availableReplicas"]) == (10, 10, 10, 10)
    assert "unavailableReplicas" not in st
    assert conditions(d) == {"Available": ("True", "MinimumReplicasAvailable"),
                             "Progressing": ("True", "NewReplicaSetAvailable")}
    assert all(p["spec"]["containers"][0]["image"] == "foo/bar:2" for p in w.pods())


def test_rollout_blocked_by_pods_that_never_run_is_settled() -> None:
    """New pods that never become available stop the rollout at maxSurge/maxUnavailable; the
    controller can do nothing more, so its waiter holds."""
    w = World()
    w.create(deployment_object("foo", 4, LABELS))  # 25%/25%: surge 1, unavailable 1
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:2"}]}}}})
    w.settle()
    revs = rs_by_revision(w)
    assert revs["1"]["spec"]["replicas"] == 3  # 4 - maxUnavailable
    assert revs["2"]["spec"]["replicas"] == 2  # 4 + maxSurge - 3
    w.step(60)  # nothing changes with time
    assert rs_by_revision(w)["2"]["spec"]["replicas"] == 2


def test_proportional_scaling_during_a_blocked_rollout() -> None:
    w = World()
    w.create(deployment_object("foo", 4, LABELS))
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:2"}]}}}})
    w.settle()  # old 3, new 2 (blocked)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"replicas": 8}})
    w.settle()
    revs = rs_by_revision(w)
    # allowed 8 + 2 (25% surge of 8) = 10, 5 to add: old 3*10/5=6 (+3), new 2*10/5=4 (+2)
    assert (revs["1"]["spec"]["replicas"], revs["2"]["spec"]["replicas"]) == (6, 4)
    for r in revs.values():
        assert r["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] == "8"
        assert r["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "10"


def test_recreate_scales_old_to_zero_before_creating_the_new_replicaset() -> None:
    w = World()
    w.create(deployment_object("foo", 3, LABELS, strategy={"type": "Recreate"}))
    roll(w)
    w.writes.clear()
    w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:2"}]}}}})
    roll(w)
    rs_writes = [x for x in w.writes if x[2] in ("ReplicaSet", "Pod") and not x[1].endswith("/status")
                 and x[0] != "scheduler"]
    first_create = next(i for i, x in enumerate(rs_writes) if x[1] == "ADDED" and x[2] == "ReplicaSet")
    deletes = [i for i, x in enumerate(rs_writes) if x[1] == "DELETED" and x[2] == "Pod"]
    assert len(deletes) == 3 and max(deletes) < first_create
    revs = rs_by_revision(w)
    assert (revs["1"]["spec"]["replicas"], revs["2"]["spec"]["replicas"]) == (0, 3)
    assert conditions(w.get(*DEPLOYMENT, "foo"))["Progressing"] == ("True", "NewReplicaSetAvailable")


def test_paused_deployment_only_scales() -> None:
    w = World()
    w.create(deployment_object("foo", 2, LABELS))
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"paused": True}})
    w.settle()
    assert conditions(w.get(*DEPLOYMENT, "foo"))["Progressing"] == ("Unknown", "DeploymentPaused")
    w.patch(*DEPLOYMENT, "foo", {"spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "x:2"}]}}}})
    w.settle()
    assert [r["spec"]["replicas"] for r in w.replicasets()] == [3]  # no new ReplicaSet while paused
    w.patch(*DEPLOYMENT, "foo", {"spec": {"paused": False}})
    roll(w)
    assert len(w.replicasets()) == 2
    assert conditions(w.get(*DEPLOYMENT, "foo"))["Progressing"] == ("True", "NewReplicaSetAvailable")


def test_revision_history_limit_cleans_up_old_replicasets() -> None:
    w = World()
    w.create(deployment_object("foo", 1, LABELS, revisionHistoryLimit=1))
    roll(w)
    for image in ("x:2", "x:3", "x:4"):
        w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}})
        roll(w)
    assert sorted(rs_by_revision(w)) == ["3", "4"]
    deleted = [x for x in w.writes_by("deployment", "ReplicaSet") if x[1] == "DELETED"]
    assert len(deleted) == 2


def test_rollback_to_a_revision() -> None:
    """rollback.go: the deprecated rollback annotation brings an old template back."""
    w = World()
    w.create(deployment_object("foo", 2, LABELS, image="x:1"))
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:2"}]}}}})
    roll(w)
    w.patch(*DEPLOYMENT, "foo", {"metadata": {"annotations": {"deprecated.deployment.rollback.to": "1"}}})
    roll(w)
    d = w.get(*DEPLOYMENT, "foo")
    assert "deprecated.deployment.rollback.to" not in d["metadata"]["annotations"]
    assert d["spec"]["template"]["spec"]["containers"][0]["image"] == "x:1"
    assert "pod-template-hash" not in d["spec"]["template"]["metadata"]["labels"]
    revs = rs_by_revision(w)
    assert sorted(revs) == ["2", "3"]  # the first ReplicaSet is the new one again, as revision 3
    assert revs["3"]["spec"]["replicas"] == 2
    assert revs["3"]["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] == "1"


def test_progress_deadline_exceeded_in_simulated_time() -> None:
    w = World()
    w.create(deployment_object("foo", 2, LABELS, progressDeadlineSeconds=30))
    w.settle()  # pods never run
    for _ in range(3):
        w.step(10)
        assert conditions(w.get(*DEPLOYMENT, "foo"))["Progressing"][1] != "ProgressDeadlineExceeded"
    w.step(10)
    assert conditions(w.get(*DEPLOYMENT, "foo"))["Progressing"] == ("False", "ProgressDeadlineExceeded")


def test_min_ready_seconds_delays_availability() -> None:
    w = World()
    w.create(deployment_object("foo", 2, LABELS, minReadySeconds=20))
    roll(w)
    assert w.get(*DEPLOYMENT, "foo")["status"].get("availableReplicas", 0) == 0
    w.step(20)
    d = w.get(*DEPLOYMENT, "foo")
    assert d["status"]["availableReplicas"] == 2
    assert conditions(d)["Available"] == ("True", "MinimumReplicasAvailable")


def test_adopts_orphan_replicasets() -> None:
    """TestGetReplicaSetsForDeployment: an orphan RS matching the selector is adopted."""
    w = World()
    orphan = rs_object("orphan", 1, LABELS)
    orphan["metadata"]["labels"] = dict(LABELS)
    w.create(orphan)
    unlabelled = w.create(rs_object("unlabelled", 1, LABELS))
    d = w.create(deployment_object("foo", 1, LABELS))
    roll(w)
    orphan = w.get("apps/v1", "ReplicaSet", "orphan")
    assert orphan["metadata"]["ownerReferences"][0]["uid"] == d["metadata"]["uid"]
    assert orphan["spec"]["replicas"] == 0  # an old ReplicaSet of the Deployment now
    assert "ownerReferences" not in w.get("apps/v1", "ReplicaSet", "unlabelled")["metadata"]  # RS labels decide
    assert unlabelled["metadata"]["uid"]


def test_hash_collision_bumps_collision_count() -> None:
    """getNewReplicaSet: a foreign ReplicaSet holding the name leads to collisionCount 1 and a new name."""
    w = World()
    body = deployment_object("foo", 1, LABELS)
    taken = f"foo-{compute_hash(_defaulted(body)['spec']['template'], None)}"
    w.create(rs_object(taken, 0, {"other": "x"}))
    w.create(body)
    w.settle()
    d = w.get(*DEPLOYMENT, "foo")
    assert d["status"]["collisionCount"] == 1
    names = {r["metadata"]["name"] for r in w.replicasets()}
    assert names == {taken, f"foo-{compute_hash(_defaulted(body)['spec']['template'], 1)}"}


class DenyReplicaSets:
    def __call__(self, request: AdmissionRequest) -> AdmissionResponse | None:
        if request.phase == "validating" and request.resource.kind == "ReplicaSet" and request.operation == "CREATE":
            return AdmissionResponse(allowed=False, name="policy", message="no new ReplicaSets today")
        return None


def test_replicaset_create_error_blocks_the_deployment_and_the_waiter_holds() -> None:
    w = World(admitters=[DenyReplicaSets()])
    w.create(deployment_object("foo", 1, LABELS))
    w.settle()
    d = w.get(*DEPLOYMENT, "foo")
    status, reason = conditions(d)["Progressing"]
    assert (status, reason) == ("False", "ReplicaSetCreateError")
    msg = next(c for c in d["status"]["conditions"] if c["type"] == "Progressing")["message"]
    assert msg.startswith('Failed to create new replica set "foo-') and msg.endswith(
        'admission webhook "policy" denied the request: no new ReplicaSets today')


def test_deleting_a_deployment_removes_its_replicasets_and_pods() -> None:
    w = World()
    w.create(deployment_object("foo", 2, LABELS))
    roll(w)
    w.cluster.delete("apps/v1", "Deployment", "foo", "default", actor="scenario")
    w.settle()
    assert w.replicasets() == [] and w.pods() == []
