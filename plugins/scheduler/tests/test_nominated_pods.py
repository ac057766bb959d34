"""Nominated pods and preemption through the Scheduler: the nominator, filtering with
nominated pods (RunFilterPluginsWithNominatedPods), the nominated node tried first
(evaluateNominatedNode), and whole preemption cycles (victims, nomination, next attempt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from kubesim_scheduler import Scheduler
from kubesim_scheduler.framework import Code, CycleState, NodeInfoList, PodInfo
from kubesim_scheduler.framework.interface import NominatingInfo
from kubesim_scheduler.framework.nominator import Nominator
from preemption_builders import HIGH, LOW, MID, pdb, pod
from scheduler_harness import make_node

CPU1 = {"cpu": "1", "memory": "4Gi", "pods": "10"}


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def cpu_pod(name: str, cpu: str, *, prio: int = 0, node: str = "", **kw: Any) -> dict[str, Any]:
    return pod(name, node=node, prio=prio, req={"cpu": cpu, "memory": "100Mi"}, **kw)


# --------------------------------------------------------------------------------- Nominator

def test_nominator_add_update_delete() -> None:
    pods: dict[str, Mapping[str, Any]] = {}
    nom = Nominator(pods.get)
    a = pod("a", prio=MID)
    pods["a"] = a
    nom.add(PodInfo(a), NominatingInfo("n1", NominatingInfo.MODE_OVERRIDE))
    assert [p.name for p in nom.pods_for_node("n1")] == ["a"] and nom.node_of("a") == "n1"
    # an update with no nominatedNodeName on either side keeps the in-memory nomination
    nom.update(a, PodInfo(dict(a)))
    assert nom.node_of("a") == "n1"
    # an update that sets the field moves it; one that clears it removes it
    moved = {**a, "status": {"nominatedNodeName": "n2"}}
    nom.update(a, PodInfo(moved))
    assert nom.node_of("a") == "n2" and nom.pods_for_node("n1") == []
    cleared = {**a, "status": {}}
    nom.update(moved, PodInfo(cleared))
    assert nom.node_of("a") is None and not nom
    # noop mode uses the pod's own field; override "" stores nothing
    nom.add(PodInfo(moved), None)
    assert nom.node_of("a") == "n2"
    nom.add(PodInfo(moved), NominatingInfo("", NominatingInfo.MODE_OVERRIDE))
    assert nom.node_of("a") is None
    # pods that are gone or already bound are not nominated (the pod lister check)
    nom.add(PodInfo(pod("ghost")), NominatingInfo("n1", NominatingInfo.MODE_OVERRIDE))
    pods["b"] = pod("b", node="n1")
    nom.add(PodInfo(pods["b"]), NominatingInfo("n1", NominatingInfo.MODE_OVERRIDE))
    assert not nom
    nom.add(PodInfo(a), NominatingInfo("n1", NominatingInfo.MODE_OVERRIDE))
    nom.delete("a")
    assert not nom and list(nom.nodes()) == []


def test_queue_nominates_pods_that_arrive_with_a_nominated_node() -> None:
    s = Scheduler()
    s.add_node(make_node("n1", CPU1))
    s.add_pod(cpu_pod("p", "100m", nominated="n1"))
    assert s.queue.nominator.node_of("p") == "n1"
    s.remove_pod("p")
    assert s.queue.nominator.node_of("p") is None


# ------------------------------------------------------------ filtering with nominated pods

def _filter(s: Scheduler, p: Mapping[str, Any], node_name: str) -> Any:
    fw = s.frameworks["default-scheduler"]
    pi = PodInfo(p)
    state = CycleState(pi)
    fw.run_pre_filter(state, pi, NodeInfoList(s.table, s.table.order))
    return fw.run_filter_with_nominated_pods(state, pi, s.table.name_to_row[node_name])


def test_nominated_pods_of_higher_or_equal_priority_count_on_their_node() -> None:
    s = Scheduler()
    s.add_node(make_node("n1", CPU1))
    s.add_pod(cpu_pod("nom", "600m", prio=MID, nominated="n1"))
    assert s.queue.nominator.node_of("nom") == "n1"
    lower = _filter(s, cpu_pod("lower", "600m", prio=LOW), "n1")
    assert lower is not None and lower.code == Code.UNSCHEDULABLE and lower.reasons == ["Insufficient cpu"]
    assert _filter(s, cpu_pod("equal", "600m", prio=MID), "n1") is not None
    assert _filter(s, cpu_pod("higher", "600m", prio=HIGH), "n1") is None
    # the table is as it was
    assert s.table.get("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert s.table.pods[s.table.name_to_row["n1"]] == {}


def test_both_passes_must_succeed() -> None:
    """Pod affinity satisfied only by a nominated pod: the pass without it still rejects."""
    s = Scheduler()
    s.add_node(make_node("n1", CPU1, labels={"hostname": "n1"}))
    s.add_pod(cpu_pod("db", "100m", prio=HIGH, nominated="n1", labels={"app": "db"}))
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "hostname"}]}}
    p = cpu_pod("web", "100m", prio=LOW)
    p["spec"]["affinity"] = aff
    st = _filter(s, p, "n1")
    assert st is not None and st.plugin == "InterPodAffinity"


def test_schedule_avoids_space_held_for_a_nominated_pod() -> None:
    s = Scheduler(detail="all")
    s.add_node(make_node("n1", CPU1))
    s.add_node(make_node("n2", {"cpu": "2", "memory": "4Gi", "pods": "10"}))
    s.add_pod(cpu_pod("used", "1500m", node="n2"))  # n1 is the emptier node
    s.add_pod(cpu_pod("nom", "800m", prio=HIGH, nominated="n1"))
    s.queue.delete("nom")  # keep it out of this test's queue; the nomination stays...
    s.queue.nominator.add(PodInfo(s.pods["nom"]), None)  # ...as the nominator entry
    s.add_pod(cpu_pod("p", "400m", prio=LOW))
    a = s.schedule_one()
    assert a is not None and a.node == "n2" and a.bound
    assert a.filter_results()["n1"]["NodeResourcesFit"] == "Insufficient cpu"


# --------------------------------------------------------------- evaluateNominatedNode

def test_nominated_node_is_tried_first() -> None:
    s = Scheduler(detail="all")
    for n in ("n1", "n2", "n3"):
        s.add_node(make_node(n, CPU1))
    s.add_pod(cpu_pod("busy", "500m", node="n2"))  # n2 scores worst
    s.add_pod(cpu_pod("p", "100m", nominated="n2"))
    a = s.schedule_one()
    assert a is not None and a.node == "n2" and a.bound
    assert a.feasible_nodes() == ["n2"] and a.scores() == {}
    assert s.next_start_node_index == 0
    assert s.queue.nominator.node_of("p") is None  # assumed pods leave the nominator


def test_nominated_node_that_no_longer_fits_falls_back_to_all_nodes() -> None:
    s = Scheduler(detail="all")
    for n in ("n1", "n2"):
        s.add_node(make_node(n, CPU1))
    s.add_pod(cpu_pod("busy", "900m", node="n2"))
    s.add_pod(cpu_pod("p", "500m", nominated="n2"))
    a = s.schedule_one()
    assert a is not None and a.node == "n1"
    assert sorted(a.filter_results()) == ["n1", "n2"]


# --------------------------------------------------------------------- whole preemption

def _cluster(**kw: Any) -> tuple[Scheduler, Clock]:
    clock = Clock()
    s = Scheduler(now=clock, detail="all", **kw)
    for n in ("n1", "n2", "n3"):
        s.add_node(make_node(n, CPU1))
    s.add_pod(cpu_pod("v1", "800m", prio=LOW, node="n1"))
    s.add_pod(cpu_pod("v2a", "400m", prio=LOW, node="n2"))
    s.add_pod(cpu_pod("v2b", "400m", prio=LOW, node="n2"))
    s.add_pod(cpu_pod("keep", "800m", prio=HIGH + 1, node="n3"))
    return s, clock


@pytest.mark.parametrize("async_preemption", [True, False])
def test_high_priority_pod_preempts_and_is_scheduled_next(async_preemption: bool) -> None:
    s, clock = _cluster(feature_gates={"SchedulerAsyncPreemption": async_preemption})
    s.add_pod(cpu_pod("high", "700m", prio=HIGH))
    a = s.schedule_one()
    assert a is not None and a.node is None and a.status is not None and a.status.code == Code.UNSCHEDULABLE
    # no "preemption:" suffix: PostFilter succeeded
    assert a.message() == "0/3 nodes are available: 3 Insufficient cpu."
    assert a.post_filter_status is not None and a.post_filter_status.is_success()
    # n1 (one victim) beats n2 (two victims, same priorities); n3's pod is more important
    assert a.nominated_node == "n1"
    assert [v["metadata"]["name"] for v in a.victims] == ["v1"]
    assert s.preemptions == [("v1", "high", "n1")]
    assert "v1" not in s.pods and s.table.get("n1").requested.milli_cpu == 0  # type: ignore[union-attr]
    assert s.pods["high"]["status"]["nominatedNodeName"] == "n1"
    assert s.queue.nominator.node_of("high") == "n1"
    # the victim's deletion requeued the preemptor (backoffQ), it is not parked
    assert "high" in s.queue.backoff and "high" not in s.queue.unschedulable
    clock.t = 2.0
    b = s.schedule_one()
    assert b is not None and b.node == "n1" and b.bound and b.feasible_nodes() == ["n1"]
    assert s.queue.nominator.node_of("high") is None


def test_preemption_uses_callbacks_and_reports_victims() -> None:
    evicted: list[tuple[str, str, str]] = []
    patched: list[tuple[str, str]] = []
    s, _ = _cluster(
        preempt_pod=lambda v, p, n: evicted.append((v["metadata"]["name"], p["metadata"]["name"], n)),
        patch_nominated_node=lambda p, n: patched.append((p["metadata"]["name"], n)),
    )
    s.add_pod(cpu_pod("high", "700m", prio=HIGH))
    a = s.schedule_one()
    assert a is not None and a.nominated_node == "n1"
    assert evicted == [("v1", "high", "n1")] and patched == [("high", "n1")]
    # nothing was deleted here: the cluster is the callback's business
    assert "v1" in s.pods and s.queue.nominator.node_of("high") == "n1"
    assert "high" in s.queue.unschedulable


def test_pdbs_steer_the_victims() -> None:
    s, _ = _cluster(lister=lambda kind, ns: [pdb({"app": "v1"}, 0, name="protect")] if kind == "PodDisruptionBudget" else [])
    s.pods["v1"]["metadata"]["labels"] = {"app": "v1"}
    s.update_pod(dict(s.pods["v1"]))
    s.add_pod(cpu_pod("high", "700m", prio=HIGH))
    a = s.schedule_one()
    assert a is not None and a.nominated_node == "n2"
    assert sorted(v["metadata"]["name"] for v in a.victims) == ["v2a", "v2b"]


def test_preemption_policy_never_and_nothing_to_preempt() -> None:
    s, _ = _cluster()
    s.add_pod(cpu_pod("never", "700m", prio=HIGH, policy="Never"))
    a = s.schedule_one()
    assert a is not None and a.message() == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate,"
        " preemption: not eligible due to preemptionPolicy=Never.")
    assert a.nominated_node is None and a.victims == [] and s.preemptions == []
    s.add_pod(cpu_pod("low", "700m", prio=LOW))
    b = s.schedule_one()
    assert b is not None and b.message() == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: "
        "3 No preemption victims found for incoming pod.")


def test_higher_priority_pod_may_take_room_freed_for_a_lower_nominated_pod() -> None:
    s, _ = _cluster()
    s.add_pod(cpu_pod("mid", "700m", prio=MID))
    a = s.schedule_one()
    assert a is not None and a.nominated_node == "n1" and "v1" not in s.pods
    s.add_pod(cpu_pod("top", "900m", prio=HIGH))
    b = s.schedule_one()
    assert b is not None and b.node == "n1" and b.bound


def test_lower_priority_nomination_is_cleared_by_a_higher_preemptor() -> None:
    evicted: list[str] = []
    patched: list[tuple[str, str]] = []
    s, _ = _cluster(
        preempt_pod=lambda v, p, n: evicted.append(v["metadata"]["name"]),
        patch_nominated_node=lambda p, n: patched.append((p["metadata"]["name"], n)),
    )
    s.add_pod(cpu_pod("mid", "700m", prio=MID))
    a = s.schedule_one()
    assert a is not None and a.nominated_node == "n1" and evicted == ["v1"]
    # the status patch comes back through the informer: the pod now says n1
    s.update_pod({**s.pods["mid"], "status": {"nominatedNodeName": "n1"}})
    # v1 is still there (the cluster has not deleted it): top preempts on n1 too and
    # clears the lower-priority nomination there
    s.add_pod(cpu_pod("top", "900m", prio=HIGH))
    b = s.schedule_one()
    assert b is not None and b.nominated_node == "n1"
    # async preemption: the eviction work (clearing included) runs after the failure handling
    assert evicted == ["v1", "v1"] and patched == [("mid", "n1"), ("top", "n1"), ("mid", "")]


def test_preemption_is_deterministic() -> None:
    def run() -> list[tuple[str, str, str]]:
        s, clock = _cluster(seed=7)
        for i in range(3):
            s.add_pod(cpu_pod(f"h{i}", "700m", prio=HIGH))
        for _ in range(6):
            clock.t += 2
            s.schedule_one()
        return s.preemptions

    assert run() == run()
