"""Revisions and updates, ported from upstream stateful_set_control_test.go:
TestStatefulSetControl_getSetRevisions, TestStatefulSetControlRollingUpdate,
TestStatefulSetControlOnDeleteUpdate, TestStatefulSetControlLimitsHistory,
TestStatefulSetControlRollback, plus partitions and name collisions."""

from __future__ import annotations

import pytest
from kubesim_statefulset.revisions import HASH_LABEL, new_revision
from statefulset_harness import Sim, burst, monotonic_invariants, new_statefulset


def images(sim: Sim) -> list[str]:
    return [p["spec"]["containers"][0]["image"] for p in sim.pods()]


def set_image(sim: Sim, image: str, **spec) -> None:
    sim.patch_set({"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}, **spec}})


def started(replicas: int, policy: str = "OrderedReady", **spec) -> Sim:
    sim = Sim()
    sts = new_statefulset(replicas, **spec)
    if policy == "Parallel":
        sts = burst(sts)
    else:
        monotonic_invariants(sim)
    sim.cluster.create(sts)
    sim.scale_up()
    return sim


# --- getStatefulSetRevisions ---------------------------------------------------------------------


def test_creates_the_initial_revision():
    sim = started(3)
    (rev,) = sim.revisions()
    assert rev["revision"] == 1
    assert rev["metadata"]["name"] == f"foo-{rev['metadata']['labels'][HASH_LABEL]}"
    assert rev["metadata"]["labels"]["foo"] == "bar"
    assert rev["data"]["spec"]["template"]["$patch"] == "replace"
    status = sim.sts()["status"]
    assert status["currentRevision"] == status["updateRevision"] == rev["metadata"]["name"]


def test_creates_a_revision_on_update_and_not_again_for_the_same_template():
    sim = started(3)
    first = sim.revisions()[0]["metadata"]["name"]
    set_image(sim, "foo")
    sim.settle()
    revs = sim.revisions()
    assert [r["revision"] for r in revs] == [1, 2]
    status = sim.sts()["status"]
    assert status["currentRevision"] == first and status["updateRevision"] == revs[1]["metadata"]["name"]
    sim.patch_set({"spec": {"replicas": 3}})  # no template change: no new revision
    sim.settle()
    assert len(sim.revisions()) == 2


def test_rolls_back_to_an_equal_revision_by_renumbering_it():
    sim = started(3)
    set_image(sim, "foo")
    sim.update_all()
    set_image(sim, "bar")
    sim.update_all()
    set_image(sim, "foo")
    sim.update_all()
    revs = sim.revisions()
    assert len(revs) == 3
    foo = next(r for r in revs if r["data"]["spec"]["template"]["spec"]["containers"][0]["image"] == "foo")
    assert foo["revision"] == 4  # the equal revision became the newest (updateRevision(rev1, 4))
    assert sim.sts()["status"]["updateRevision"] == foo["metadata"]["name"]
    assert images(sim) == ["foo"] * 3


def test_a_name_collision_counts_and_picks_another_name():
    sim = Sim()
    sts = new_statefulset(1)
    created = sim.cluster.create(sts)
    squatter = new_revision(created, 1, 0)  # the name the set would take, with other data
    squatter["data"] = {"spec": {"template": {"$patch": "replace"}}}
    del squatter["metadata"]["ownerReferences"]
    squatter["metadata"]["labels"] = {"other": "app"}
    sim.cluster.create(squatter)
    sim.scale_up()
    status = sim.sts()["status"]
    assert status["collisionCount"] == 1
    assert status["updateRevision"] != squatter["metadata"]["name"]
    assert status["updateRevision"] == new_revision(created, 1, 1)["metadata"]["name"]


# --- RollingUpdate ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("policy", "initial", "replicas"), [
    ("OrderedReady", 3, 3),  # monotonic image update
    ("OrderedReady", 3, 5),  # monotonic image update and scale up
    ("OrderedReady", 5, 3),  # monotonic image update and scale down
    ("Parallel", 3, 3),  # burst image update
    ("Parallel", 3, 5),  # burst image update and scale up
    ("Parallel", 5, 3),  # burst image update and scale down
])
def test_rolling_update_moves_every_pod_to_the_new_template(policy, initial, replicas):
    sim = started(initial, policy)
    set_image(sim, "foo", replicas=replicas)
    sim.update_all()
    assert images(sim) == ["foo"] * replicas
    status = sim.sts()["status"]
    assert status["currentRevision"] == status["updateRevision"]
    assert status["currentReplicas"] == status["updatedReplicas"] == replicas


def test_rolling_update_replaces_the_highest_ordinal_first_one_at_a_time():
    sim = started(3)
    before = len(sim.log)
    set_image(sim, "foo")
    sim.settle()
    assert sim.deleted() == ["foo-2"]
    sim.update_all()
    deleted = [e.object["metadata"]["name"] for e in sim.log[before:]
               if e.type == "DELETED" and e.object["kind"] == "Pod"]
    assert deleted == ["foo-2", "foo-1", "foo-0"]


def test_a_partition_keeps_lower_ordinals_at_the_current_revision():
    sim = started(3, updateStrategy={"type": "RollingUpdate", "rollingUpdate": {"partition": 2}})
    first = sim.sts()["status"]["currentRevision"]
    set_image(sim, "foo")
    for _ in range(5):
        sim.scale_up()
    assert images(sim) == ["nginx", "nginx", "foo"]
    status = sim.sts()["status"]
    assert status["currentRevision"] == first
    assert (status["currentReplicas"], status["updatedReplicas"]) == (2, 1)
    # lower ordinals recreated meanwhile stay at the current revision
    sim.delete_pod("foo-0")
    sim.scale_up()
    assert images(sim) == ["nginx", "nginx", "foo"]
    sim.patch_set({"spec": {"updateStrategy": {"rollingUpdate": {"partition": 0}}}})
    sim.update_all()
    assert images(sim) == ["foo"] * 3


# --- OnDelete ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("policy", "initial", "replicas"), [
    ("OrderedReady", 3, 3), ("OrderedReady", 3, 5), ("OrderedReady", 5, 3),
    ("Parallel", 3, 3), ("Parallel", 3, 5), ("Parallel", 5, 3),
])
def test_on_delete_updates_pods_only_when_they_are_deleted(policy, initial, replicas):
    sim = started(initial, policy, updateStrategy={"type": "OnDelete"})
    set_image(sim, "foo", replicas=replicas)
    sim.scale_up()
    sim.scale_down()
    expected = ["nginx"] * min(initial, replicas) + ["foo"] * max(0, replicas - initial)
    assert images(sim) == expected
    # validateRestart: scaled to 0 and back, every pod has the new template
    sim.patch_set({"spec": {"replicas": 0}})
    sim.scale_down()
    sim.patch_set({"spec": {"replicas": replicas}})
    sim.scale_up()
    assert images(sim) == ["foo"] * replicas


# --- history ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
def test_history_is_limited_to_revision_history_limit(policy):
    sim = started(3, policy, revisionHistoryLimit=2)
    for i in range(10):
        set_image(sim, f"foo-{i}")
        sim.update_all()
        # the extra 2 are the current and update revisions, which are live
        assert len(sim.revisions()) <= 2 + 2
    assert images(sim) == ["foo-9"] * 3
