"""Rollout arithmetic and annotations: ports of upstream's
pkg/controller/deployment/util/deployment_util_test.go tables (TestResolveFenceposts,
TestNewRSNewReplicas, TestMaxUnavailable, TestDeploymentComplete, TestDeploymentProgressing,
TestDeploymentTimedOut, TestAnnotationUtils) and controller_utils_test.go TestComputeHash."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from kubesim.clock import format_time
from kubesim.k8s.intorpercent import IntOrPercentError, scaled_value
from kubesim_replicaset.deployment.annotations import (
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    set_new_replicaset_annotations,
)
from kubesim_replicaset.deployment.hashing import compute_hash, equal_ignore_hash, fnv32a, safe_encode_string
from kubesim_replicaset.deployment.rollout import (
    MAX_INT32,
    deployment_complete,
    deployment_progressing,
    deployment_timed_out,
    max_unavailable,
    new_rs_new_replicas,
    resolve_fenceposts,
)

# TestResolveFenceposts: (maxSurge, maxUnavailable, desired, surge, unavailable, error)
FENCEPOSTS = [
    ("0%", "0%", 0, 0, 1, False),
    ("39%", "39%", 10, 4, 3, False),
    ("oops", "39%", 10, 0, 0, True),
    ("55%", "urg", 10, 0, 0, True),
    (None, "39%", 10, 0, 3, False),
    ("39%", None, 10, 4, 0, False),
    (None, None, 10, 0, 1, False),
]


@pytest.mark.parametrize(("surge", "unavailable", "desired", "want_s", "want_u", "error"), FENCEPOSTS)
def test_resolve_fenceposts(surge: Any, unavailable: Any, desired: int, want_s: int, want_u: int, error: bool) -> None:
    if error:
        with pytest.raises(IntOrPercentError):
            resolve_fenceposts(surge, unavailable, desired)
        return
    assert resolve_fenceposts(surge, unavailable, desired) == (want_s, want_u)


@pytest.mark.parametrize(("value", "total", "up", "want"), [
    ("25%", 90, True, 23), ("25%", 90, False, 22), ("25%", 4, True, 1), ("25%", 3, False, 0),
    ("100%", 7, False, 7), (2, 10, True, 2), ("0%", 5, True, 0),
])
def test_scaled_value_rounding(value: Any, total: int, up: bool, want: int) -> None:
    assert scaled_value(value, total, up) == want


def test_scaled_value_errors_read_like_intstr() -> None:
    with pytest.raises(IntOrPercentError, match="string is not a percentage"):
        scaled_value("5", 10, True)
    with pytest.raises(IntOrPercentError, match='invalid value "x%"'):
        scaled_value("x%", 10, True)


def deployment(replicas: int | None, strategy: str = "RollingUpdate", surge: Any = 1,
               unavailable: Any = 1) -> dict[str, Any]:
    spec: dict[str, Any] = {"strategy": {"type": strategy}}
    if replicas is not None:
        spec["replicas"] = replicas
    if strategy == "RollingUpdate":
        spec["strategy"]["rollingUpdate"] = {"maxSurge": surge, "maxUnavailable": unavailable}
    return {"metadata": {"name": "foo"}, "spec": spec, "status": {}}


@pytest.mark.parametrize(("name", "strategy", "dep", "new_rs", "surge", "expected"), [
    ("can not scale up - to newRSReplicas", "RollingUpdate", 1, 5, 1, 5),
    ("scale up - to depReplicas", "RollingUpdate", 6, 2, 10, 6),
    ("recreate - to depReplicas", "Recreate", 3, 1, 1, 3),
])
def test_new_rs_new_replicas(name: str, strategy: str, dep: int, new_rs: int, surge: int, expected: int) -> None:
    d = deployment(dep, strategy, surge=surge, unavailable=1)
    rs5 = {"spec": {"replicas": 5}}
    assert new_rs_new_replicas(d, [rs5], {"spec": {"replicas": new_rs}}) == expected, name


@pytest.mark.parametrize(("name", "d", "expected"), [
    ("maxUnavailable less than replicas", deployment(10, unavailable=5), 5),
    ("maxUnavailable equal replicas", deployment(10, unavailable=10), 10),
    ("maxUnavailable greater than replicas", deployment(5, unavailable=10), 5),
    ("maxUnavailable with replicas is 0", deployment(0, unavailable=10), 0),
    ("maxUnavailable with Recreate deployment strategy", deployment(None, "Recreate"), 0),
    ("maxUnavailable less than replicas with percents", deployment(10, unavailable="50%"), 5),
    ("maxUnavailable equal replicas with percents", deployment(10, unavailable="100%"), 10),
    ("maxUnavailable greater than replicas with percents", deployment(5, unavailable="100%"), 5),
])
def test_max_unavailable(name: str, d: dict[str, Any], expected: int) -> None:
    assert max_unavailable(d) == expected, name


def complete_case(desired: int, current: int, updated: int, available: int, max_unav: int, max_surge: int) -> dict[str, Any]:
    d = deployment(desired, surge=max_surge, unavailable=max_unav)
    d["status"] = {"replicas": current, "updatedReplicas": updated, "availableReplicas": available}
    return d


@pytest.mark.parametrize(("name", "d", "expected"), [
    ("not complete: min but not all pods become available", complete_case(5, 5, 5, 4, 1, 0), False),
    ("not complete: min availability is not honored", complete_case(5, 5, 5, 3, 1, 0), False),
    ("complete", complete_case(5, 5, 5, 5, 0, 0), True),
    ("not complete: all pods are available but not updated", complete_case(5, 5, 4, 5, 0, 0), False),
    ("not complete: still running old pods", complete_case(1, 2, 1, 1, 0, 1), False),
    ("not complete: one replica deployment never comes up", complete_case(1, 2, 1, 1, 1, 1), False),
])
def test_deployment_complete(name: str, d: dict[str, Any], expected: bool) -> None:
    assert deployment_complete(d, d["status"]) is expected, name


def counts(current: int, updated: int, ready: int, available: int) -> dict[str, int]:
    return {"replicas": current, "updatedReplicas": updated, "readyReplicas": ready, "availableReplicas": available}


@pytest.mark.parametrize(("name", "old", "new", "expected"), [
    ("progressing: updated pods", counts(10, 4, 4, 4), counts(10, 6, 4, 4), True),
    ("not progressing", counts(10, 4, 4, 4), counts(10, 4, 4, 4), False),
    ("progressing: old pods removed", counts(10, 4, 6, 6), counts(8, 4, 6, 6), True),
    ("not progressing: less new pods", counts(10, 7, 3, 3), counts(10, 6, 3, 3), False),
    ("progressing: less overall but more new pods", counts(10, 4, 7, 7), counts(8, 8, 5, 5), True),
    ("progressing: more ready pods", counts(10, 10, 9, 8), counts(10, 10, 10, 8), True),
    ("progressing: more available pods", counts(10, 10, 10, 9), counts(10, 10, 10, 10), True),
])
def test_deployment_progressing(name: str, old: dict[str, int], new: dict[str, int], expected: bool) -> None:
    assert deployment_progressing({"status": old}, new) is expected, name


def at(minute: int, second: int) -> datetime:
    return datetime(2016, 1, 1, 0, minute, second, tzinfo=timezone.utc)


def timed(pds: int | None, reason: str, since: datetime | None) -> dict[str, Any]:
    cond: dict[str, Any] = {"type": "Progressing", "status": "True", "reason": reason}
    if since is not None:
        cond["lastUpdateTime"] = format_time(since)
    spec = {} if pds is None else {"progressDeadlineSeconds": pds}
    return {"spec": spec, "status": {"conditions": [cond]}}


@pytest.mark.parametrize(("name", "d", "now", "expected"), [
    ("nil progressDeadlineSeconds specified - no timeout", timed(None, "", at(1, 9)), at(1, 20), False),
    ("infinite progressDeadlineSeconds specified - no timeout", timed(MAX_INT32, "", at(1, 9)), at(1, 20), False),
    ("progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:09 => 11s", timed(10, "", at(1, 9)), at(1, 20), True),
    ("progressDeadlineSeconds: 10s, now - started => 00:01:20 - 00:01:11 => 9s", timed(10, "", at(1, 11)), at(1, 20), False),
    ("previous status was a complete deployment", timed(None, "NewReplicaSetAvailable", None), at(1, 20), False),
])
def test_deployment_timed_out(name: str, d: dict[str, Any], now: datetime, expected: bool) -> None:
    assert deployment_timed_out(d, d["status"], now) is expected, name


def test_annotation_utils_revision_history() -> None:
    """TestAnnotationUtils: revisions 11..20 with a 5-character history limit."""
    d = {"metadata": {"name": "nginx", "annotations": {REVISION_ANNOTATION: "1"}},
         "spec": {"replicas": 1, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}}}
    rs: dict[str, Any] = {"metadata": {"name": "nginx-rs", "annotations": {}}, "spec": {"replicas": 1}}
    for i in range(10, 20):
        nxt = str(i + 1)
        set_new_replicaset_annotations(d, rs, nxt, True, 5)
        if i >= 12:
            assert rs["metadata"]["annotations"][REVISION_HISTORY_ANNOTATION] == f"{i - 1},{i}"
        assert rs["metadata"]["annotations"][REVISION_ANNOTATION] == nxt


def test_copies_deployment_annotations_but_not_its_own() -> None:
    d = {"metadata": {"annotations": {"team": "web", REVISION_ANNOTATION: "7",
                                      "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
         "spec": {"replicas": 3, "strategy": {"type": "Recreate"}}}
    rs: dict[str, Any] = {"metadata": {}}
    assert set_new_replicaset_annotations(d, rs, "2", False)
    assert rs["metadata"]["annotations"] == {
        "team": "web", REVISION_ANNOTATION: "2",
        "deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "3",
    }


def test_compute_hash() -> None:
    """TestComputeHash: different collision counts give different hashes."""
    template: dict[str, Any] = {}
    assert compute_hash(template, 1) != compute_hash(template, 2)
    assert compute_hash(template, None) != compute_hash(template, MAX_INT32)


def test_hash_is_stable_and_ignores_the_hash_label_and_empty_fields() -> None:
    t1 = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i",
                                                                             "resources": {"requests": {"cpu": "1"}}}]}}
    t2 = {"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}, "annotations": {}},
          "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1000m"}}}],
                   "volumes": []}}
    assert equal_ignore_hash(t1, t2)
    assert compute_hash(t1, None) == compute_hash(t2, None)
    t3 = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "j"}]}}
    assert not equal_ignore_hash(t1, t3)
    h = compute_hash(t1, None)
    assert h == compute_hash(dict(t1), None) and set(h) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_fnv32a_and_safe_encode_match_go() -> None:
    # hash/fnv New32a reference values and rand.SafeEncodeString's alphabet mapping
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32a(b"foobar") == 0xBF9CF968
    assert safe_encode_string("0123456789") == "456789bcdf"
