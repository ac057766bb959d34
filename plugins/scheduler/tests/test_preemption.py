"""Ported tables of pkg/scheduler/framework/preemption/preemption_test.go (v1.34 semantics):
nodes where preemption might help (NodeToStatus.NodesForStatusCode), DryRunPreemption with
a fake preemption interface, SelectCandidate with a plugin's own score functions,
prepareCandidate / prepareCandidateAsync; plus the helpers of
pkg/scheduler/util (MoreImportantPod, GetEarliestPodStartTime), pickOneNodeForPreemption
and filterPodsWithPDBViolation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from kubesim_scheduler.framework import Code, CycleState, NodeToStatus, PodInfo, Status
from kubesim_scheduler.plugins.defaultpreemption import (
    PDB,
    Candidate,
    Evaluator,
    Victims,
    aggregate_errors,
    earliest_pod_start_time,
    filter_pods_with_pdb_violation,
    more_important_pod,
    parse_pdbs,
    parse_time_ns,
    pick_one_node_for_preemption,
)
from preemption_builders import HIGH, LOW, MID, Harness, epoch, node, pdb, pod

U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


class FakeInterface:
    """preemption_test.go's FakePostFilterPlugin: the first pod of a node is its victim."""

    def __init__(self, handle: Any, num_violating: int = 0) -> None:
        self.handle = handle
        self.num_violating = num_violating
        self.visited: list[str] = []

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def pod_eligible_to_preempt_others(self, pod: Mapping[str, Any], status: Status | None) -> tuple[bool, str]:
        return True, ""

    def select_victims_on_node(self, state: CycleState, pi: PodInfo, row: int, pdbs: Sequence[PDB]) -> tuple[list[PodInfo], int, Status | None]:
        t = self.handle.node_table
        self.visited.append(t.row_names[row])
        pods = list(t.pods[row].values())
        return pods[:1], self.num_violating, None

    def ordered_score_funcs(self, victims: Mapping[str, Victims]) -> None:
        return None


def fake_evaluator(h: Harness, num_violating: int = 0) -> tuple[Evaluator, FakeInterface]:
    iface = FakeInterface(h.fw.handle, num_violating)
    return Evaluator("FakePostFilter", h.fw.handle, iface, async_preemption=False), iface


# ------------------------------------------------------- TestNodesWherePreemptionMightHelp

MIGHT_HELP_CASES = [
    ("No node should be attempted", {"node1": UU, "node2": UU, "node3": UU, "node4": UU}, UU, set()),
    ("Unschedulable nodes are tried, unresolvable ones are not",
     {"node1": U, "node2": UU, "node3": UU}, UU, {"node1"}),
    ("absent nodes take the absent status: UnschedulableAndUnresolvable by default",
     {"node1": UU, "node2": U}, UU, {"node2"}),
    ("absent nodes take the absent status: Unschedulable after a PreFilter rejection",
     {"node1": UU, "node2": U}, U, {"node2", "node3", "node4"}),
    ("UnschedulableAndUnresolvable status should be skipped but Unschedulable should be tried",
     {"node2": UU, "node3": U, "node4": UU}, U, {"node1", "node3"}),
]


@pytest.mark.parametrize(("name", "explicit", "absent", "expected"), MIGHT_HELP_CASES, ids=[c[0] for c in MIGHT_HELP_CASES])
def test_nodes_where_preemption_might_help(name: str, explicit: dict[str, Code], absent: Code, expected: set[str]) -> None:
    h = Harness([node(f"node{i}") for i in range(1, 5)], [pod(f"p{i}", node=f"node{i}", prio=MID) for i in range(1, 5)],
                pre_filter=(), filter=())
    ev, iface = fake_evaluator(h)
    state, pi = h.state_for(pod("p", prio=HIGH))
    m = NodeToStatus(absent_status=Status(absent, "reason"))
    for n, c in explicit.items():
        m.set(n, Status(c, "reason"))
    candidates, _, _ = ev.find_candidates(state, h.table.order, pi, m)
    assert set(iface.visited) == expected
    assert {c.name for c in candidates} == expected


# --------------------------------------------------------------------- TestDryRunPreemption

@pytest.mark.parametrize(("num_violating", "name"), [(0, "no pdb violation"), (1, "pdb violation on each node")])
def test_dry_run_preemption_fake_interface(num_violating: int, name: str) -> None:
    h = Harness([node("node1"), node("node2")], [pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
                pre_filter=(), filter=())
    ev, _ = fake_evaluator(h, num_violating)
    state, pi = h.state_for(pod("p", prio=HIGH))
    rows = h.rows_by_name()
    got, _, _ = ev.dry_run_preemption(state, pi, rows, [], 0, len(rows))
    assert sorted((c.name, [p.name for p in c.victims.pods], c.victims.num_pdb_violations) for c in got) == [
        ("node1", ["p1"], num_violating), ("node2", ["p2"], num_violating)]


def test_dry_run_preemption_candidate_caps() -> None:
    """Each candidate list holds at most numCandidates; the search stops once a non-violating
    candidate exists and enough were found (candidateList.add / cancel)."""
    h = Harness([node(f"node{i}") for i in range(1, 5)], [pod(f"p{i}", node=f"node{i}", prio=MID) for i in range(1, 5)],
                pre_filter=(), filter=())
    ev, iface = fake_evaluator(h, num_violating=1)
    state, pi = h.state_for(pod("p", prio=HIGH))
    got, _, _ = ev.dry_run_preemption(state, pi, h.rows_by_name(), [], 1, 2)
    assert iface.visited == ["node2", "node3", "node4", "node1"]  # never stops: no non-violating one
    assert [c.name for c in got] == ["node2", "node3"]


def test_dry_run_error_statuses() -> None:
    """A node without victims but a Success status is an error, as upstream."""

    class NoVictims(FakeInterface):
        def select_victims_on_node(self, state: CycleState, pi: PodInfo, row: int, pdbs: Sequence[PDB]) -> tuple[list[PodInfo], int, Status | None]:
            return [], 0, None

    h = Harness([node("node1")], [], pre_filter=(), filter=())
    ev = Evaluator("x", h.fw.handle, NoVictims(h.fw.handle), False)
    state, pi = h.state_for(pod("p", prio=HIGH))
    got, statuses, errs = ev.dry_run_preemption(state, pi, h.rows_by_name(), [], 0, 1)
    assert got == [] and [e.message() for e in errs] == ['expected at least one victim pod on node "node1"']
    assert statuses.get("node1").code == Code.ERROR


# ------------------------------------------------------------------------ TestSelectCandidate

class FakeScoreInterface(FakeInterface):
    """preemption_test.go's FakePreemptionScorePostFilterPlugin: one PDB-violating victim per
    node, and one score function: the fewer containers among the victims, the better."""

    def __init__(self, handle: Any) -> None:
        super().__init__(handle, num_violating=1)

    def ordered_score_funcs(self, victims: Mapping[str, Victims]) -> Any:
        def fewest_containers(node_name: str) -> int:
            return -sum(len((p.pod.get("spec") or {}).get("containers") or ())
                        + len((p.pod.get("spec") or {}).get("initContainers") or ()) for p in victims[node_name].pods)

        return [fewest_containers]


def test_select_candidate_with_the_plugin_score_functions() -> None:
    """TestSelectCandidate: "pod has different number of containers on each node" -> node2."""
    pods = [pod("p1.1", node="node1", prio=MID), pod("p2.1", node="node2", prio=MID), pod("p3.1", node="node3", prio=MID)]
    for p, n in zip(pods, (2, 1, 3)):
        p["spec"]["containers"] = [{"name": f"container{i}", "image": "i"} for i in range(1, n + 1)]
    h = Harness([node(f"node{i}") for i in (1, 2, 3)], pods, pre_filter=(), filter=())
    iface = FakeScoreInterface(h.fw.handle)
    ev = Evaluator("FakePreemptionScorePostFilter", h.fw.handle, iface, async_preemption=False)
    state, pi = h.state_for(pod("p", prio=HIGH, req={"cpu": "500m", "memory": "500"}))
    rows = h.rows_by_name()
    candidates, _, _ = ev.dry_run_preemption(state, pi, rows, [], 0, len(rows))
    best = ev.select_candidate(candidates)
    assert best is not None and best.name == "node2"


def test_aggregate_errors() -> None:
    assert aggregate_errors([Status.from_error("a")]).message() == "a"
    assert aggregate_errors([Status.from_error("a"), Status.from_error("b"), Status.from_error("a")]).message() == "[a, b]"


# ----------------------------------------------------------------------- TestPrepareCandidate

PREPARE_CASES = [
    dict(name="no victims", victims=[], pods=["victim1"], deleted=[], status=None, preempting=False, activated=False),
    dict(name="one victim without condition", victims=["victim1"], pods=["victim1"], deleted=["victim1"],
         status=None, preempting=True, activated=False),
    dict(name="one victim, but victim is already being deleted", victims=["victim1-with-deletion-timestamp"],
         pods=["victim1-with-deletion-timestamp"], deleted=[], status=None, preempting=False, activated=False),
    dict(name="one victim, but victim is already deleted", victims=["not-found-victim"], pods=[], deleted=[],
         status=None, preempting=True, activated=True),
    dict(name="one victim, but pod deletion failed", victims=["fail-victim"], pods=[], deleted=[],
         status="delete pod failed", preempting=True, activated=True),
    dict(name="two victims, the first fails and the second is still deleted (async)", victims=["fail-victim", "victim2"],
         pods=["victim1"], deleted=["victim2"], sync_deleted=[], status="delete pod failed", preempting=True, activated=True),
]


def _victim(name: str) -> PodInfo:
    p = pod(name, node="node1", prio=MID, scheduler_name="default-scheduler")
    if name == "victim1-with-deletion-timestamp":
        p["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return PodInfo(p)


@pytest.mark.parametrize("async_preemption", [True, False])
@pytest.mark.parametrize("case", PREPARE_CASES, ids=[c["name"] for c in PREPARE_CASES])
def test_prepare_candidate(case: dict[str, Any], async_preemption: bool) -> None:
    h = Harness([node("node1")], [_victim(n).pod for n in case["pods"]], async_preemption=async_preemption,
                fail_delete=["fail-victim"], gone=["not-found-victim"])
    activated: list[str] = []
    h.scheduler.handle._activate = activated.extend
    preemptor = pod("preemptor", prio=HIGH, scheduler_name="default-scheduler")
    h.scheduler.add_pod(preemptor)
    c = Candidate("node1", Victims([_victim(n) for n in case["victims"]]))
    ev = h.plugin.evaluator
    if async_preemption:
        ev.prepare_candidate_async(c, preemptor)
        assert ev.preempting == ({"preemptor"} if case["preempting"] else set())
        h.scheduler.handle.drain_after_cycle()
        assert ev.preempting == set()
        assert activated == (["preemptor"] if case["activated"] else [])
        assert h.deleted == case["deleted"]
    else:
        status = ev.prepare_candidate(c, preemptor)
        if case["status"] is None:
            assert status is None
        else:
            assert status is not None and status.code == Code.ERROR and status.message() == case["status"]
        assert h.deleted == case.get("sync_deleted", case["deleted"])
        assert activated == []


def test_prepare_candidate_async_preempts_the_last_victim_last() -> None:
    """TestPrepareCandidateAsyncSetsPreemptingSets: the preemptor leaves `preempting` just
    before its last victim is evicted."""
    h = Harness([node("node1")], [_victim("victim1").pod, _victim("victim2").pod], async_preemption=True)
    ev = h.plugin.evaluator
    seen: list[tuple[str, bool]] = []
    h.scheduler.handle._preempt_pod = lambda v, p, n: seen.append((v["metadata"]["name"], "preemptor" in ev.preempting))
    preemptor = pod("preemptor", prio=HIGH)
    h.scheduler.add_pod(preemptor)
    ev.prepare_candidate_async(Candidate("node1", Victims([_victim("victim1"), _victim("victim2")])), preemptor)
    h.scheduler.handle.drain_after_cycle()
    assert seen == [("victim1", True), ("victim2", False)]


def test_lower_priority_nominated_pods_are_cleared() -> None:
    """prepareCandidate clears status.nominatedNodeName of lower-priority pods nominated there."""
    h = Harness([node("node1", {"pods": "1"})], [pod("v", node="node1", prio=LOW)])
    low = pod("low", prio=MID, nominated="node1")
    higher = pod("higher", prio=HIGH + 1, nominated="node1")
    h.scheduler.add_pod(low)
    h.scheduler.add_pod(higher)
    nom = h.scheduler.queue.nominator
    assert [p.name for p in nom.pods_for_node("node1")] == ["low", "higher"]
    preemptor = pod("preemptor", prio=HIGH)
    h.scheduler.add_pod(preemptor)
    assert h.plugin.evaluator.prepare_candidate(Candidate("node1", Victims([PodInfo(h.scheduler.pods["v"])])), preemptor) is None
    assert "nominatedNodeName" not in h.scheduler.pods["low"].get("status", {})
    assert h.scheduler.pods["higher"]["status"]["nominatedNodeName"] == "node1"
    assert [p.name for p in nom.pods_for_node("node1")] == ["higher"]


# -------------------------------------------------------------------------- util and helpers

def test_more_important_pod_and_start_times() -> None:
    a = pod("a", prio=MID, start=epoch(2))
    b = pod("b", prio=MID, start=epoch(1))
    c = pod("c", prio=HIGH)
    assert more_important_pod(c, a, 0) and not more_important_pod(a, c, 0)
    assert more_important_pod(b, a, 0) and not more_important_pod(a, b, 0)
    # no startTime: "now" for both, neither is more important
    assert not more_important_pod(pod("x"), pod("y"), 5) and not more_important_pod(pod("y"), pod("x"), 5)
    assert earliest_pod_start_time([a, b, pod("lo", prio=LOW, start=epoch(0))]) == 1
    assert earliest_pod_start_time([pod("lo", prio=LOW, start=epoch(0)), a]) == 2
    assert earliest_pod_start_time([]) is None
    assert parse_time_ns("2025-01-01T00:00:00Z") == 1735689600 * 10**9
    assert parse_time_ns("2025-01-01T01:00:00.5+01:00") == 1735689600 * 10**9 + 500_000_000
    assert parse_time_ns("yesterday") is None


def _victims(*prios: int, violations: int = 0, start: str = epoch(0)) -> Victims:
    return Victims([PodInfo(pod(f"v{i}", prio=p, start=start)) for i, p in enumerate(prios)], violations)


PICK_CASES = [
    ("min PDB violations first", {"a": _victims(1, violations=1), "b": _victims(9)}, "b"),
    ("then the lowest highest priority", {"a": _victims(9, 1), "b": _victims(5, 5)}, "b"),
    ("then the smallest sum of priorities", {"a": _victims(5, 5), "b": _victims(5, 1)}, "b"),
    ("negative priorities are shifted: fewer of them win", {"a": _victims(-5, -5, -5), "b": _victims(-5, -5)}, "b"),
    ("then fewest victims", {"a": _victims(0, 0, 0), "b": _victims(0, 0)}, "b"),
    ("then the latest start of the highest-priority victims",
     {"a": _victims(5, start=epoch(1)), "b": _victims(5, start=epoch(3)), "c": _victims(5, start=epoch(2))}, "b"),
    ("then the first candidate", {"x": _victims(5), "y": _victims(5)}, "x"),
    ("no candidate", {}, ""),
]


@pytest.mark.parametrize(("name", "victims", "want"), PICK_CASES, ids=[c[0] for c in PICK_CASES])
def test_pick_one_node_for_preemption(name: str, victims: dict[str, Victims], want: str) -> None:
    assert pick_one_node_for_preemption(victims) == want


def test_filter_pods_with_pdb_violation() -> None:
    pods = [PodInfo(pod(n, labels={"app": "foo"})) for n in ("a", "b", "c")]
    other_ns = PodInfo({**pod("d", labels={"app": "foo"}), "metadata": {"name": "d", "namespace": "x", "labels": {"app": "foo"}}})
    unlabelled = PodInfo(pod("e"))
    pdbs = parse_pdbs([pdb({"app": "foo"}, 1, disrupted=["c"])])
    violating, ok = filter_pods_with_pdb_violation([*pods, other_ns, unlabelled], pdbs)
    assert [p.name for p in violating] == ["b"]
    assert [p.name for p in ok] == ["a", "c", "d", "e"]
    # nil and empty selectors select nothing; invalid selectors are ignored
    odd = parse_pdbs([
        {"metadata": {"name": "nil"}, "spec": {}, "status": {"disruptionsAllowed": 0}},
        {"metadata": {"name": "empty"}, "spec": {"selector": {}}, "status": {"disruptionsAllowed": 0}},
        {"metadata": {"name": "bad"}, "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "Bogus"}]}}},
    ])
    violating, ok = filter_pods_with_pdb_violation(pods, odd)
    assert violating == [] and len(ok) == 3
