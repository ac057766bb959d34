"""DeploymentSync against a fake writer: ports of upstream's pkg/controller/deployment tables
(sync_test.go TestScale; rolling_test.go TestDeploymentController_reconcileNewReplicaSet,
_reconcileOldReplicaSets, _cleanupUnhealthyReplicas, _scaleDownOldReplicaSetsForRollingUpdate;
recreate_test.go TestOldPodsRunning)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from kubesim.clock import format_time
from kubesim.cluster import copy_tree
from kubesim_replicaset.deployment.annotations import set_replicas_annotations
from kubesim_replicaset.deployment.rollout import max_surge
from kubesim_replicaset.deployment.sync import DeploymentSync, old_pods_running

NOW = datetime(2016, 5, 20, 3, 0, 0, tzinfo=timezone.utc)
NEW_TS = datetime(2016, 5, 20, 2, 0, 0, tzinfo=timezone.utc)
OLD_TS = datetime(2016, 5, 20, 1, 0, 0, tzinfo=timezone.utc)
OLDER_TS = datetime(2016, 5, 20, 0, 0, 0, tzinfo=timezone.utc)
NO_TS = None


class FakeWrites:
    """Records writes like client-go's fake clientset and returns what was written."""

    def __init__(self, fail: set[str] | None = None) -> None:
        self.actions: list[tuple[str, dict[str, Any]]] = []
        self.fail = fail or set()

    def _record(self, verb: str, obj: dict[str, Any]) -> dict[str, Any]:
        self.actions.append((verb, copy_tree(obj)))
        return copy_tree(obj)

    def create_replicaset(self, rs: dict[str, Any]) -> dict[str, Any]:
        return self._record("create", rs)

    def update_replicaset(self, rs: dict[str, Any]) -> dict[str, Any]:
        return self._record("update", rs)

    def patch_replicaset(self, rs: Any, patch: dict[str, Any]) -> dict[str, Any]:
        return self._record("patch", dict(rs))

    def delete_replicaset(self, rs: Any) -> None:
        self._record("delete", dict(rs))

    def get_replicaset(self, namespace: str, name: str) -> dict[str, Any]:
        raise AssertionError("not expected")

    def update_deployment(self, d: dict[str, Any]) -> dict[str, Any]:
        return self._record("update-deployment", d)

    def update_deployment_status(self, d: dict[str, Any]) -> dict[str, Any]:
        return self._record("update-status", d)

    def updates(self) -> list[dict[str, Any]]:
        return [obj for verb, obj in self.actions if verb == "update"]


def sync(writes: FakeWrites) -> DeploymentSync:
    return DeploymentSync(writes, NOW, format_time(NOW))  # type: ignore[arg-type]


def rs(name: str, replicas: int, selector: dict[str, str] | None, created: datetime | None) -> dict[str, Any]:
    """The `rs` test helper of deployment_controller_test.go."""
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if created is not None:
        meta["creationTimestamp"] = format_time(created)
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"replicas": replicas, "selector": {"matchLabels": selector or {}}, "template": {}}}


def new_deployment(name: str, replicas: int, history: int | None = None, surge: Any = None, unavailable: Any = None,
                   selector: dict[str, str] | None = None) -> dict[str, Any]:
    """The `newDeployment` test helper: RollingUpdate with maxSurge and maxUnavailable 0 unless given."""
    spec: dict[str, Any] = {
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {
            "maxUnavailable": 0 if unavailable is None else unavailable, "maxSurge": 0 if surge is None else surge}},
        "replicas": replicas,
        "selector": {"matchLabels": selector or {}},
        "template": {"metadata": {"labels": selector or {}}, "spec": {"containers": [{"image": "foo/bar"}]}},
    }
    if history is not None:
        spec["revisionHistoryLimit"] = history
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "annotations": {}}, "spec": spec}


def updated_template(replicas: int) -> dict[str, Any]:
    d = new_deployment("foo", replicas, selector={"foo": "bar"})
    d["spec"]["template"]["metadata"]["labels"]["another"] = "label"
    return d


def with_available(r: dict[str, Any], available: int) -> dict[str, Any]:
    r["status"] = {"availableReplicas": available}
    return r


# name: (deployment, oldDeployment, newRS, oldRSs, expectedNew, expectedOld, wasntUpdated, desiredAnnotations)
SCALE = {
    "normal scaling event: 10 -> 12": (new_deployment("foo", 12), new_deployment("foo", 10),
                                        rs("foo-v1", 10, None, NEW_TS), [], 12, [], set(), {}),
    "normal scaling event: 10 -> 5": (new_deployment("foo", 5), new_deployment("foo", 10),
                                       rs("foo-v1", 10, None, NEW_TS), [], 5, [], set(), {}),
    "proportional scaling: 5 -> 10": (new_deployment("foo", 10), new_deployment("foo", 5),
                                       rs("foo-v2", 2, None, NEW_TS), [rs("foo-v1", 3, None, OLD_TS)], 4, [6], set(), {}),
    "proportional scaling: 5 -> 3": (new_deployment("foo", 3), new_deployment("foo", 5),
                                      rs("foo-v2", 2, None, NEW_TS), [rs("foo-v1", 3, None, OLD_TS)], 1, [2], set(), {}),
    "proportional scaling: 9 -> 4": (new_deployment("foo", 4), new_deployment("foo", 9),
                                      rs("foo-v2", 8, None, NEW_TS), [rs("foo-v1", 1, None, OLD_TS)], 4, [0], set(), {}),
    "proportional scaling: 7 -> 10": (new_deployment("foo", 10), new_deployment("foo", 7),
                                       rs("foo-v3", 2, None, NEW_TS),
                                       [rs("foo-v2", 3, None, OLD_TS), rs("foo-v1", 2, None, OLDER_TS)], 3, [4, 3],
                                       set(), {}),
    "proportional scaling: 13 -> 8": (new_deployment("foo", 8), new_deployment("foo", 13),
                                       rs("foo-v3", 2, None, NEW_TS),
                                       [rs("foo-v2", 8, None, OLD_TS), rs("foo-v1", 3, None, OLDER_TS)], 1, [5, 2],
                                       set(), {}),
    "leftover distribution: 3 -> 4": (new_deployment("foo", 4), new_deployment("foo", 3),
                                       rs("foo-v3", 1, None, NEW_TS),
                                       [rs("foo-v2", 1, None, OLD_TS), rs("foo-v1", 1, None, OLDER_TS)], 2, [1, 1],
                                       set(), {}),
    "leftover distribution: 3 -> 2": (new_deployment("foo", 2), new_deployment("foo", 3),
                                       rs("foo-v3", 1, None, NEW_TS),
                                       [rs("foo-v2", 1, None, OLD_TS), rs("foo-v1", 1, None, OLDER_TS)], 1, [1, 0],
                                       set(), {}),
    "proportional scaling (no new rs): 4 -> 5": (new_deployment("foo", 5), new_deployment("foo", 4), None,
                                                  [rs("foo-v2", 2, None, OLD_TS), rs("foo-v1", 2, None, OLDER_TS)],
                                                  None, [3, 2], set(), {}),
    "proportional scaling: 6 -> 0": (new_deployment("foo", 0), new_deployment("foo", 6),
                                      rs("foo-v3", 3, None, NEW_TS),
                                      [rs("foo-v2", 2, None, OLD_TS), rs("foo-v1", 1, None, OLDER_TS)], 0, [0, 0],
                                      set(), {}),
    "proportional scaling: 0 -> 6": (new_deployment("foo", 6), new_deployment("foo", 6),
                                      rs("foo-v3", 0, None, NEW_TS),
                                      [rs("foo-v2", 0, None, OLD_TS), rs("foo-v1", 0, None, OLDER_TS)], 6, [0, 0],
                                      {"foo-v2", "foo-v1"}, {}),
    "failed rs update": (new_deployment("foo", 5), new_deployment("foo", 5),
                         rs("foo-v3", 2, None, NEW_TS),
                         [rs("foo-v2", 1, None, OLD_TS), rs("foo-v1", 1, None, OLDER_TS)], 2, [2, 1],
                         {"foo-v3", "foo-v1"}, {"foo-v2": 3}),
    "deployment with surge pods": (new_deployment("foo", 20, surge=2), new_deployment("foo", 10, surge=2),
                                   rs("foo-v2", 6, None, NEW_TS), [rs("foo-v1", 6, None, OLD_TS)], 11, [11], set(), {}),
    "change both surge and size": (new_deployment("foo", 50, surge=6), new_deployment("foo", 10, surge=3),
                                   rs("foo-v2", 5, None, NEW_TS), [rs("foo-v1", 8, None, OLD_TS)], 22, [34], set(), {}),
    "change both size and template": (updated_template(14), new_deployment("foo", 10, selector={"foo": "bar"}), None,
                                      [rs("foo-v2", 7, None, NEW_TS), rs("foo-v1", 3, None, OLD_TS)], None, [10, 4],
                                      set(), {}),
    "saturated but broken new replica set does not affect old pods": (
        new_deployment("foo", 2, surge=1, unavailable=1), new_deployment("foo", 2, surge=1, unavailable=1),
        with_available(rs("foo", 2, None, NEW_TS), 0), [rs("foo-v1", 1, None, OLD_TS)], 2, [1], set(), {}),
}


@pytest.mark.parametrize("case", list(SCALE))
def test_scale(case: str) -> None:
    d, old_d, new_rs, old_rss, expected_new, expected_old, wasnt_updated, desired = copy_tree(SCALE[case])
    for r in ([new_rs] if new_rs is not None else []) + old_rss:
        want = desired.get(r["metadata"]["name"], old_d["spec"]["replicas"])
        set_replicas_annotations(r, want, want + max_surge(old_d))
    writes = FakeWrites()
    sync(writes).scale(d, new_rs, old_rss)
    sizes = {r["metadata"]["name"]: r["spec"]["replicas"] for r in ([new_rs] if new_rs else []) + old_rss}
    for updated in writes.updates():
        if updated["metadata"]["name"] not in wasnt_updated:
            sizes[updated["metadata"]["name"]] = updated["spec"]["replicas"]
    if expected_new is not None and new_rs is not None:
        assert sizes[new_rs["metadata"]["name"]] == expected_new
    assert [sizes[r["metadata"]["name"]] for r in old_rss] == expected_old


# TestDeploymentController_reconcileNewReplicaSet: (replicas, maxSurge, old, new, scaleExpected, expectedNew)
RECONCILE_NEW = [
    (10, 0, 10, 0, False, None),
    (10, 2, 10, 0, True, 2),
    (10, 2, 5, 0, True, 7),
    (10, 2, 10, 2, False, None),
    (10, 2, 2, 11, True, 10),
]


@pytest.mark.parametrize(("replicas", "surge", "old", "new", "scale_expected", "expected_new"), RECONCILE_NEW)
def test_reconcile_new_replicaset(replicas: int, surge: int, old: int, new: int, scale_expected: bool,
                                  expected_new: int | None) -> None:
    new_rs = rs("foo-v2", new, None, NO_TS)
    old_rs = rs("foo-v2", old, None, NO_TS)
    d = new_deployment("foo", replicas, surge=surge, unavailable=0)
    writes = FakeWrites()
    scaled = sync(writes).reconcile_new_replicaset([new_rs, old_rs], new_rs, d)
    if not scale_expected:
        assert not scaled and writes.actions == []
        return
    assert scaled and len(writes.actions) == 1
    assert writes.updates()[0]["spec"]["replicas"] == expected_new


# TestDeploymentController_reconcileOldReplicaSets:
# (replicas, maxUnavailable, old, new, readyOld, readyNew, scaleExpected, expectedOld)
RECONCILE_OLD = [
    (10, 0, 10, 0, 10, 0, True, 9),
    (10, 2, 10, 0, 10, 0, True, 8),
    (10, 2, 10, 0, 8, 0, True, 8),  # unhealthy replicas of old replica sets cleaned up
    (10, 2, 10, 0, 9, 0, True, 8),  # 1 unhealthy replica cleaned up and 1 ready pod scaled down
    (10, 2, 8, 2, 8, 0, False, 8),  # unavailable new pods do not let old RSs scale down further
]


@pytest.mark.parametrize(("replicas", "unavailable", "old", "new", "ready_old", "ready_new", "scale_expected",
                          "expected_old"), RECONCILE_OLD)
def test_reconcile_old_replicasets(replicas: int, unavailable: int, old: int, new: int, ready_old: int,
                                   ready_new: int, scale_expected: bool, expected_old: int) -> None:
    new_rs = with_available(rs("foo-new", new, {"foo": "new"}, NO_TS), ready_new)
    old_rs = with_available(rs("foo-old", old, {"foo": "old"}, NO_TS), ready_old)
    d = new_deployment("foo", replicas, surge=0, unavailable=unavailable, selector={"foo": "new"})
    writes = FakeWrites()
    scaled = sync(writes).reconcile_old_replicasets([old_rs, new_rs], [old_rs], new_rs, d)
    assert scaled is scale_expected
    final = writes.updates()[-1]["spec"]["replicas"] if writes.updates() else old
    assert final == expected_old


# TestDeploymentController_cleanupUnhealthyReplicas: (old, ready, unhealthy, maxCleanup, cleanedExpected)
CLEANUP = [(10, 8, 2, 1, 1), (10, 8, 2, 3, 2), (10, 8, 2, 0, 0), (10, 10, 0, 3, 0)]


@pytest.mark.parametrize(("old", "ready", "unhealthy", "max_cleanup", "expected"), CLEANUP)
def test_cleanup_unhealthy_replicas(old: int, ready: int, unhealthy: int, max_cleanup: int, expected: int) -> None:
    old_rs = with_available(rs("foo-v2", old, None, NO_TS), ready)
    d = new_deployment("foo", 10, surge=2, unavailable=2)
    _, cleaned = sync(FakeWrites()).cleanup_unhealthy_replicas([old_rs], d, max_cleanup)
    assert cleaned == expected


# TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate:
# (replicas, maxUnavailable, readyPods, oldReplicas, scaleExpected, expectedOld)
SCALE_DOWN = [
    (10, 0, 10, 10, True, 9),
    (10, 2, 10, 10, True, 8),
    (10, 2, 8, 10, False, None),
    (10, 2, 10, 0, False, None),
    (10, 2, 1, 10, False, None),
]


@pytest.mark.parametrize(("replicas", "unavailable", "ready", "old", "scale_expected", "expected_old"), SCALE_DOWN)
def test_scale_down_old_replicasets_for_rolling_update(replicas: int, unavailable: int, ready: int, old: int,
                                                       scale_expected: bool, expected_old: int | None) -> None:
    old_rs = with_available(rs("foo-v2", old, None, NO_TS), ready)
    d = new_deployment("foo", replicas, surge=0, unavailable=unavailable, selector={"foo": "bar"})
    writes = FakeWrites()
    scaled = sync(writes).scale_down_old_replicasets_for_rolling_update([old_rs], [old_rs], d)
    if not scale_expected:
        assert scaled == 0
        return
    assert scaled > 0 and len(writes.updates()) == 1
    assert writes.updates()[0]["spec"]["replicas"] == expected_old


def rs_status(name: str, replicas: int, status_replicas: int) -> dict[str, Any]:
    r = rs(name, replicas, None, NO_TS)
    r["status"] = {"replicas": status_replicas}
    return r


def pods(*phases: str) -> list[dict[str, Any]]:
    return [{"status": {"phase": p}} for p in phases]


# TestOldPodsRunning: (name, newRS, oldRSs, podMap, hasOldPodsRunning)
OLD_PODS_RUNNING = [
    ("no old RSs", None, [], {}, False),
    ("old RSs with running pods", None, [rs("some", 0, None, NO_TS), rs("other", 0, None, NO_TS)],
     {"uid-some": pods("Running"), "uid-other": pods("Running")}, True),
    ("old RSs without pods but with non-zero status replicas", None, [rs_status("rs-1", 0, 1)], {}, True),
    ("old RSs without pods or non-zero status replicas", None, [rs_status("rs-1", 0, 0)], {}, False),
    ("old RSs with zero status replicas but pods in terminal state are present", None, [rs_status("rs-1", 0, 0)],
     {"uid-1": pods("Failed", "Succeeded")}, False),
    ("old RSs with zero status replicas but pod in unknown phase present", None, [rs_status("rs-1", 0, 0)],
     {"uid-1": pods("Unknown")}, True),
    ("old RSs with zero status replicas with pending pod present", None, [rs_status("rs-1", 0, 0)],
     {"uid-1": pods("Pending")}, True),
    ("old RSs with zero status replicas with running pod present", None, [rs_status("rs-1", 0, 0)],
     {"uid-1": pods("Running")}, True),
    ("old RSs with zero status replicas but pods in terminal state and pending are present", None,
     [rs_status("rs-1", 0, 0)], {"uid-1": pods("Failed", "Succeeded"), "uid-2": [], "uid-3": pods("Pending")}, True),
    ("pods of the new RS do not count", rs("new", 1, None, NO_TS), [rs_status("rs-1", 0, 0)],
     {"uid-new": pods("Running")}, False),
]


@pytest.mark.parametrize(("name", "new_rs", "old_rss", "pod_map", "expected"), OLD_PODS_RUNNING,
                         ids=[c[0] for c in OLD_PODS_RUNNING])
def test_old_pods_running(name: str, new_rs: Any, old_rss: list[Any], pod_map: dict[str, Any], expected: bool) -> None:
    assert old_pods_running(new_rs, old_rss, pod_map) is expected
