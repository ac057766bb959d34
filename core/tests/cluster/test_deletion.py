"""Deletion: finalizers, propagation policies, garbage collection, namespaces, graceful pods."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, WatchEvent
from kubesim.errors import BadRequest, Forbidden, Invalid, NotFound


def _names(cluster: Cluster, api_version: str, kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in cluster.list(api_version, kind)]


def test_delete_without_finalizers_removes_at_once(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    cluster.create(build.pod("p"))
    assert cluster.delete("v1", "Pod", "p") is None
    assert build.summary(events) == [("ADDED", "Pod", "p", "scenario"), ("DELETED", "Pod", "p", "scenario")]
    deleted = events[-1]
    assert int(deleted.object["metadata"]["resourceVersion"]) > int(
        events[0].object["metadata"]["resourceVersion"]
    )
    with pytest.raises(NotFound):
        cluster.delete("v1", "Pod", "p")


def test_finalizers_keep_the_object_until_the_last_one_goes(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    cluster.create({**build.pod("p"), "metadata": {"name": "p", "finalizers": ["a.io/x", "a.io/y"]}})
    kept = cluster.delete("v1", "Pod", "p")
    assert kept is not None
    assert kept["metadata"]["deletionTimestamp"] == "2025-01-01T00:00:00Z"
    assert kept["metadata"]["deletionGracePeriodSeconds"] == 0
    assert cluster.delete("v1", "Pod", "p") is not None  # deleting again changes nothing
    with pytest.raises(Invalid, match="no new finalizers can be added if the object is being deleted"):
        cluster.patch("v1", "Pod", "p", {"metadata": {"finalizers": ["a.io/x", "a.io/y", "a.io/z"]}}, "merge")
    cluster.patch("v1", "Pod", "p", {"metadata": {"finalizers": ["a.io/y"]}}, "merge", actor="ctrl")
    assert _names(cluster, "v1", "Pod") == ["p"]
    cluster.patch(
        "v1",
        "Pod",
        "p",
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a.io/y"]}},
        "strategic",
        actor="ctrl",
    )
    assert _names(cluster, "v1", "Pod") == []
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "MODIFIED", "DELETED"]
    assert events[-1].actor == "ctrl" and not events[-1].object["metadata"]["finalizers"]


def _tree(
    cluster: Cluster, build: Any, *, block: bool | None = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    d = cluster.create(build.deployment("d"))
    rs = cluster.create(build.owned(build.replicaset("rs"), d, block=block))
    for i in range(2):
        cluster.create(build.owned(build.pod(f"p{i}"), rs, block=block))
    return d, rs


def test_background_deletion_collects_dependents_recursively(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    _tree(cluster, build)
    events.clear()
    assert cluster.delete("apps/v1", "Deployment", "d") is None
    assert build.summary(events) == [
        ("DELETED", "Deployment", "d", "scenario"),
        ("DELETED", "ReplicaSet", "rs", "garbage-collector"),
        ("DELETED", "Pod", "p0", "garbage-collector"),
        ("DELETED", "Pod", "p1", "garbage-collector"),
    ]


def test_foreground_deletion_waits_for_blocking_dependents(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    _tree(cluster, build)
    events.clear()
    assert cluster.delete("apps/v1", "Deployment", "d", propagation_policy="Foreground") is None
    assert build.summary(events) == [
        ("MODIFIED", "Deployment", "d", "scenario"),
        ("MODIFIED", "ReplicaSet", "rs", "garbage-collector"),
        ("DELETED", "Pod", "p0", "garbage-collector"),
        ("DELETED", "Pod", "p1", "garbage-collector"),
        ("DELETED", "ReplicaSet", "rs", "garbage-collector"),
        ("DELETED", "Deployment", "d", "garbage-collector"),
    ]
    assert events[0].object["metadata"]["finalizers"] == ["foregroundDeletion"]


def test_foreground_owner_stays_while_a_blocking_dependent_has_finalizers(
    cluster: Cluster, build: Any
) -> None:
    rs = cluster.create(build.replicaset("rs"))
    stuck = build.owned(build.pod("stuck"), rs, block=True)
    stuck["metadata"]["finalizers"] = ["a.io/hold"]
    cluster.create(stuck)
    cluster.create(build.owned(build.pod("free"), rs, block=False))
    remaining = cluster.delete("apps/v1", "ReplicaSet", "rs", propagation_policy="Foreground")
    assert remaining is not None and remaining["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert _names(cluster, "v1", "Pod") == ["stuck"]
    cluster.patch("v1", "Pod", "stuck", {"metadata": {"finalizers": None}}, "merge")
    assert _names(cluster, "apps/v1", "ReplicaSet") == []


def test_foreground_owner_does_not_wait_for_non_blocking_dependents(cluster: Cluster, build: Any) -> None:
    rs = cluster.create(build.replicaset("rs"))
    held = build.owned(build.pod("held"), rs, block=False)
    held["metadata"]["finalizers"] = ["a.io/hold"]
    cluster.create(held)
    assert cluster.delete("apps/v1", "ReplicaSet", "rs", propagation_policy="Foreground") is None
    assert cluster.get("v1", "Pod", "held")["metadata"]["deletionTimestamp"]


def test_orphan_deletion_strips_owner_references(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    _tree(cluster, build)
    events.clear()
    cluster.delete("apps/v1", "ReplicaSet", "rs", propagation_policy="Orphan")
    assert _names(cluster, "v1", "Pod") == ["p0", "p1"]
    assert all("ownerReferences" not in p["metadata"] for p in cluster.list("v1", "Pod"))
    assert build.summary(events) == [
        ("MODIFIED", "Pod", "p0", "garbage-collector"),
        ("MODIFIED", "Pod", "p1", "garbage-collector"),
        ("DELETED", "ReplicaSet", "rs", "scenario"),
    ]


def _job(name: str) -> dict[str, Any]:
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": {"template": template}}


def test_jobs_and_replication_controllers_orphan_by_default(cluster: Cluster, build: Any) -> None:
    job = cluster.create(_job("j"))
    cluster.create(build.owned(build.pod("jp"), job))
    cluster.delete("batch/v1", "Job", "j")
    assert _names(cluster, "v1", "Pod") == ["jp"]
    job = cluster.create(_job("j2"))
    cluster.create(build.owned(build.pod("jp2"), job))
    cluster.delete("batch/v1", "Job", "j2", propagation_policy="Background")
    assert _names(cluster, "v1", "Pod") == ["jp"]


def test_dependents_with_another_owner_survive(cluster: Cluster, build: Any) -> None:
    a = cluster.create(build.replicaset("a"))
    b = cluster.create(build.replicaset("b"))
    shared = build.owned(build.owned(build.pod("shared"), a), b, controller=False)
    cluster.create(shared)
    cluster.delete("apps/v1", "ReplicaSet", "a")
    refs = cluster.get("v1", "Pod", "shared")["metadata"]["ownerReferences"]
    assert [r["name"] for r in refs] == ["b"]


def test_namespace_deletion_deletes_its_contents(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    cluster.create(build.pod("b", "team"))
    cluster.create(build.pod("a", "team"))
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team"}})
    cluster.create(build.pod("other"))
    events.clear()
    assert cluster.delete("v1", "Namespace", "team") is None
    assert build.summary(events) == [
        ("MODIFIED", "Namespace", "team", "scenario"),
        ("DELETED", "ConfigMap", "c", "namespace-controller"),
        ("DELETED", "Pod", "a", "namespace-controller"),
        ("DELETED", "Pod", "b", "namespace-controller"),
        ("DELETED", "Namespace", "team", "namespace-controller"),
    ]
    assert events[0].object["status"]["phase"] == "Terminating"
    assert _names(cluster, "v1", "Pod") == ["other"]


def test_namespace_waits_for_objects_with_finalizers(cluster: Cluster, build: Any) -> None:
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    cluster.create(
        {**build.pod("p", "team"), "metadata": {"name": "p", "namespace": "team", "finalizers": ["a.io/f"]}}
    )
    remaining = cluster.delete("v1", "Namespace", "team")
    assert remaining is not None and remaining["status"]["phase"] == "Terminating"
    cluster.patch("v1", "Pod", "p", {"metadata": {"finalizers": []}}, "merge", namespace="team")
    assert _names(cluster, "v1", "Namespace") == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_system_namespaces_cannot_be_deleted(cluster: Cluster) -> None:
    with pytest.raises(Forbidden) as info:
        cluster.delete("v1", "Namespace", "kube-system")
    assert info.value.message == 'namespaces "kube-system" is forbidden: this namespace may not be deleted'


def test_graceful_pod_deletion(clock: Clock, build: Any) -> None:
    cluster = Cluster(clock)
    cluster.graceful_pod_deletion = True
    cluster.create(build.pod("bound", nodeName="n1", terminationGracePeriodSeconds=20))
    cluster.create(build.pod("pending"))
    assert cluster.delete("v1", "Pod", "pending") is None  # not on a node: immediate
    marked = cluster.delete("v1", "Pod", "bound")
    assert marked is not None
    assert marked["metadata"]["deletionTimestamp"] == "2025-01-01T00:00:20Z"
    assert marked["metadata"]["deletionGracePeriodSeconds"] == 20
    clock.advance(timedelta(seconds=5))
    shorter = cluster.delete("v1", "Pod", "bound", grace_period_seconds=3)
    assert shorter is not None and shorter["metadata"]["deletionTimestamp"] == "2025-01-01T00:00:08Z"
    longer = cluster.delete("v1", "Pod", "bound", grace_period_seconds=60)
    assert longer is not None and longer["metadata"]["deletionGracePeriodSeconds"] == 3
    assert cluster.delete("v1", "Pod", "bound", grace_period_seconds=0) is None
    assert cluster.list("v1", "Pod") == []


def test_graceful_default_period_is_thirty_seconds(clock: Clock, build: Any) -> None:
    cluster = Cluster(clock)
    cluster.graceful_pod_deletion = True
    cluster.create(build.pod("p", nodeName="n1"))
    marked = cluster.delete("v1", "Pod", "p")
    assert marked is not None and marked["metadata"]["deletionGracePeriodSeconds"] == 30


def test_grace_periods_at_int64_limits(clock: Clock, build: Any) -> None:
    cluster = Cluster(clock)
    cluster.graceful_pod_deletion = True
    cluster.create(build.pod("p", nodeName="n1"))
    with pytest.raises(BadRequest) as decoding:  # the DELETE body does not decode
        cluster.delete("v1", "Pod", "p", grace_period_seconds=2**63)
    assert decoding.value.message == (
        "json: cannot unmarshal number 9223372036854775808 into Go struct field DeleteOptions.gracePeriodSeconds "
        "of type int64"
    )
    marked = cluster.delete("v1", "Pod", "p", grace_period_seconds=2**63 - 1)  # beyond year 9999: saturated
    assert marked is not None and marked["metadata"]["deletionTimestamp"] == "9999-12-31T23:59:59Z"


def test_bad_delete_options(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    with pytest.raises(Exception, match="propagationPolicy"):
        cluster.delete("v1", "Pod", "p", propagation_policy="Sideways")
