"""Ported tables of pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
(v1.34): TestPostFilter, TestDryRunPreemption, TestSelectBestCandidate, TestCustomSelection,
TestCustomOrdering, TestPodEligibleToPreemptOthers, TestPreempt, TestPreEnqueue.

Not ported: the extender cases (extenders are not modelled) and PodGroup/workload-aware
cases (newer than v1.34). The Go tests seed the offset RNG with 4 (offsets 4, 1, 3 for five
nodes); the port injects those offsets.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from kubesim_scheduler.framework import Code, NodeToStatus, Status
from kubesim_scheduler.framework.interface import NominatingInfo
from kubesim_scheduler.plugins.defaultpreemption import Candidate, DefaultPreemption, parse_pdbs
from kubesim_scheduler.plugins.defaultpreemption.podutil import pod_priority, pod_start_time
from preemption_builders import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    ONE_POD,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    Harness,
    epoch,
    node,
    pdb,
    pod,
)

U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
VIOLATING = {"test.kubernetes.io/is-violating-pdb": "violating"}
NON_VIOLATING = {"test.kubernetes.io/is-violating-pdb": "non-violating"}
NODE_RES = {"cpu": "200m", "memory": "400"}
MAX_INT32 = 2**31 - 1


def statuses(explicit: Mapping[str, Code], absent: Code = UU) -> NodeToStatus:
    m = NodeToStatus(absent_status=Status(absent))
    for name, code in explicit.items():
        m.set(name, Status(code))
    return m


def nominated(result: Any) -> str | None:
    """The node name of a PostFilterResult (None for a nil result)."""
    if result is None:
        return None
    info = result.nominating_info
    assert info is not None and info.mode == NominatingInfo.MODE_OVERRIDE
    return info.node_name


# --------------------------------------------------------------------------- TestPostFilter

POST_FILTER_CASES = [
    dict(
        name="pod with higher priority can be made schedulable",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", node="node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={"node1": U},
        want_result="node1", want_status=(Code.SUCCESS, ""),
    ),
    dict(
        name="pod with tied priority is still unschedulable",
        pod=pod("p"),
        pods=[pod("p1", node="node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={"node1": U},
        want_result="",
        want_status=(U, "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."),
    ),
    dict(
        name="preemption should respect filteredNodesStatuses",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", node="node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={"node1": UU},
        want_result="",
        want_status=(U, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ),
    dict(
        name="preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable",
        pod=pod("p", prio=HIGH),
        pods=[pod("p1", node="node1")],
        nodes=[node("node1", ONE_POD)],
        statuses={},
        want_result="",
        want_status=(U, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
    ),
    dict(
        name="pod can be made schedulable on one node",
        pod=pod("p", prio=MID),
        pods=[pod("p1", prio=HIGH, node="node1"), pod("p2", prio=LOW, node="node2")],
        nodes=[node("node1", ONE_POD), node("node2", ONE_POD)],
        statuses={"node1": U, "node2": U},
        want_result="node2", want_status=(Code.SUCCESS, ""),
    ),
    dict(
        name="pod can be made schedulable on minHighestPriority node",
        pod=pod("p", prio=VERY_HIGH),
        pods=[
            pod("p1", labels=NON_VIOLATING, prio=HIGH, node="node1"),
            pod("p2", labels=VIOLATING, prio=LOW, node="node1"),
            pod("p3", labels=VIOLATING, prio=MID, node="node2"),
        ],
        pdbs=[
            pdb(VIOLATING, 0, name="violating-pdb", namespace="default"),
            pdb(NON_VIOLATING, MAX_INT32, name="non-violating-pdb", namespace="default"),
        ],
        nodes=[node("node1", ONE_POD), node("node2", ONE_POD)],
        statuses={"node1": U, "node2": U},
        want_result="node2", want_status=(Code.SUCCESS, ""),
    ),
    dict(
        name="no candidate nodes found, no enough resource after removing low priority pods",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", node="node1"), pod("p2", node="node2")],
        nodes=[node("node1", NODE_RES), node("node2", NODE_RES)],
        statuses={"node1": U, "node2": U},
        want_result="",
        want_status=(U, "preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    ),
    dict(
        name="no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", node="node1", prio=HIGH), pod("p2", node="node2"), pod("p3", node="node3", prio=HIGH)],
        nodes=[node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
        statuses={"node1": U, "node2": U, "node3": U},
        want_result="",
        want_status=(U, "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod."),
    ),
    dict(
        name="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", node="node1"), pod("p2", node="node2")],
        nodes=[node(f"node{i}", NODE_RES) for i in range(1, 5)],
        statuses={"node1": U, "node2": U, "node4": UU},
        want_result="",
        want_status=(U, "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."),
    ),
    dict(
        name="only one node but failed with TestPlugin",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", node="node1")],
        nodes=[node("node1", LARGE, labels={"error": "true"})],
        statuses={"node1": U},
        want_result=None,
        want_status=(Code.ERROR, 'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'),
    ),
    dict(
        name="one failed with TestPlugin and the other pass",
        pod=pod("p", prio=HIGH, req=LARGE),
        pods=[pod("p1", node="node1"), pod("p2", node="node2", req=MEDIUM)],
        nodes=[node("node1", LARGE, labels={"error": "true"}), node("node2", LARGE)],
        statuses={"node1": U, "node2": U},
        want_result="node2", want_status=(Code.SUCCESS, ""),
    ),
]


@pytest.mark.parametrize("case", POST_FILTER_CASES, ids=[c["name"] for c in POST_FILTER_CASES])
def test_post_filter(case: dict[str, Any]) -> None:
    h = Harness(case["nodes"], case["pods"], pre_filter=("NodeResourcesFit", "test-plugin"), pdbs=case.get("pdbs", ()))
    state, pi = h.state_for(case["pod"])
    result, status = h.plugin.post_filter(state, pi.pod, statuses(case["statuses"]))
    code, msg = case["want_status"]
    assert (status.code, status.message()) == (code, msg)
    assert nominated(result) == case["want_result"]


# ---------------------------------------------------------------------- TestDryRunPreemption

def cand(name: str, victims: Sequence[str], violations: int = 0) -> tuple[str, tuple[str, ...], int]:
    return (name, tuple(victims), violations)


DRY_RUN_CASES = [
    dict(name="a pod that does not fit on any node", plugins=("FalseFilter",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH)],
         init_pods=[pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
         expected=[[]], calls=[2]),
    dict(name="a pod that fits with no preemption", plugins=("TrueFilter",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH)],
         init_pods=[pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="a pod that fits on one node with no preemption", plugins=("MatchFilter",),
         nodes=["node1", "node2"], test_pods=[pod("node1", prio=HIGH)],
         init_pods=[pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="a pod that fits on both nodes when lower priority pods are preempted", plugins=("NodeResourcesFit",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1", node="node1", prio=MID, req=LARGE), pod("p2", node="node2", prio=MID, req=LARGE)],
         expected=[[cand("node1", ["p1"]), cand("node2", ["p2"])]], calls=[4]),
    dict(name="a pod that would fit on the nodes, but other pods running are higher priority, no preemption would happen",
         plugins=("NodeResourcesFit",), nodes=["node1", "node2"], test_pods=[pod("p", prio=LOW, req=LARGE)],
         init_pods=[pod("p1", node="node1", prio=MID, req=LARGE), pod("p2", node="node2", prio=MID, req=LARGE)],
         expected=[[]], calls=[0]),
    dict(name="medium priority pod is preempted, but lower priority one stays as it is small", plugins=("NodeResourcesFit",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1.1", node="node1", prio=LOW, req=SMALL), pod("p1.2", node="node1", prio=MID, req=LARGE),
                    pod("p2", node="node2", prio=MID, req=LARGE)],
         expected=[[cand("node1", ["p1.2"]), cand("node2", ["p2"])]], calls=[5]),
    dict(name="mixed priority pods are preempted", plugins=("NodeResourcesFit",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1.1", node="node1", prio=MID, req=SMALL), pod("p1.2", node="node1", prio=LOW, req=SMALL),
                    pod("p1.3", node="node1", prio=MID, req=MEDIUM), pod("p1.4", node="node1", prio=HIGH, req=SMALL),
                    pod("p2", node="node2", prio=HIGH, req=LARGE)],
         expected=[[cand("node1", ["p1.2", "p1.3"])]], calls=[4]),
    dict(name="mixed priority pods are preempted, pick later StartTime one when priorities are equal", plugins=("NodeResourcesFit",),
         nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1.1", node="node1", prio=LOW, req=SMALL, start=epoch(5)),
                    pod("p1.2", node="node1", prio=LOW, req=SMALL, start=epoch(4)),
                    pod("p1.3", node="node1", prio=MID, req=MEDIUM, start=epoch(3)),
                    pod("p1.4", node="node1", prio=HIGH, req=SMALL, start=epoch(2)),
                    pod("p2", node="node2", prio=HIGH, req=LARGE, start=epoch(1))],
         expected=[[cand("node1", ["p1.1", "p1.3"])]], calls=[4]),
    dict(name="pod with anti-affinity is preempted", plugins=("NodeResourcesFit", "InterPodAffinity"),
         nodes=["node1", "node2"], test_pods=[pod("p", labels={"foo": ""}, prio=HIGH, req=SMALL)],
         init_pods=[pod("p1.1", node="node1", labels={"foo": ""}, prio=LOW, req=SMALL, anti_affinity_exists=("foo", "hostname")),
                    pod("p1.2", node="node1", prio=MID, req=SMALL), pod("p1.3", node="node1", prio=HIGH, req=SMALL),
                    pod("p2", node="node2", prio=HIGH, req=SMALL)],
         expected=[[cand("node1", ["p1.1"])]], calls=[3]),
    dict(name="preemption to resolve pod topology spread filter failure", plugins=("PodTopologySpread",),
         nodes=["node-a/zone1", "node-b/zone1", "node-x/zone2"],
         test_pods=[pod("p", labels={"foo": ""}, prio=HIGH, spread=[(1, "zone"), (1, "hostname")])],
         init_pods=[pod("pod-a1", node="node-a", labels={"foo": ""}, prio=MID),
                    pod("pod-a2", node="node-a", labels={"foo": ""}, prio=LOW),
                    pod("pod-b1", node="node-b", labels={"foo": ""}, prio=LOW),
                    pod("pod-x1", node="node-x", labels={"foo": ""}, prio=HIGH),
                    pod("pod-x2", node="node-x", labels={"foo": ""}, prio=HIGH)],
         expected=[[cand("node-a", ["pod-a2"]), cand("node-b", ["pod-b1"])]], calls=[5]),
    dict(name="get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
         plugins=("NodeResourcesFit",), nodes=["node1", "node2"], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1", node="node1", prio=MID, req=LARGE), pod("p2", node="node2", prio=MID, req=LARGE)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="preemption with violation of same pdb", plugins=("NodeResourcesFit",),
         nodes=["node1"], test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
         init_pods=[pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
                    pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM)],
         pdbs=[pdb({"app": "foo"}, 1)],
         expected=[[cand("node1", ["p1.1", "p1.2"], 1)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the victim doesn't belong to DisruptedPods",
         plugins=("NodeResourcesFit",), nodes=["node1"], test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
         init_pods=[pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
                    pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM)],
         pdbs=[pdb({"app": "foo"}, 1, disrupted=["p2"])],
         expected=[[cand("node1", ["p1.1", "p1.2"], 1)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to DisruptedPods",
         plugins=("NodeResourcesFit",), nodes=["node1"], test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
         init_pods=[pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
                    pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM)],
         pdbs=[pdb({"app": "foo"}, 1, disrupted=["p1.2"])],
         expected=[[cand("node1", ["p1.1", "p1.2"], 0)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the victim which belongs to DisruptedPods is treated as 'nonViolating'",
         plugins=("NodeResourcesFit",), nodes=["node1"], test_pods=[pod("p", prio=HIGH, req=VERY_LARGE)],
         init_pods=[pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
                    pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
                    pod("p1.3", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM)],
         pdbs=[pdb({"app": "foo"}, 1, disrupted=["p1.3"])],
         expected=[[cand("node1", ["p1.1", "p1.2", "p1.3"], 1)]], calls=[4]),
    dict(name="all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
         args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}, plugins=("NodeResourcesFit",),
         nodes=[f"node{i}" for i in range(1, 6)], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod(f"p{i}", node=f"node{i}", prio=MID, req=LARGE) for i in range(1, 6)],
         # cycle=0 => offset=4 => node5 (yes), node1 (yes)
         expected=[[cand("node1", ["p1"]), cand("node5", ["p5"])]], calls=[4]),
    dict(name="some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
         args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}, plugins=("NodeResourcesFit",),
         nodes=[f"node{i}" for i in range(1, 6)], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1", node="node1", prio=MID, req=LARGE), pod("p2", node="node2", prio=VERY_HIGH, req=LARGE),
                    pod("p3", node="node3", prio=MID, req=LARGE), pod("p4", node="node4", prio=MID, req=LARGE),
                    pod("p5", node="node5", prio=VERY_HIGH, req=LARGE)],
         # cycle=0 => offset=4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
         expected=[[cand("node1", ["p1"]), cand("node3", ["p3"])]], calls=[4]),
    dict(name="preemption offset across multiple scheduling cycles and wrap around",
         args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}, plugins=("NodeResourcesFit",),
         nodes=[f"node{i}" for i in range(1, 6)],
         test_pods=[pod(f"tp{i}", prio=HIGH, req=LARGE) for i in range(1, 4)],
         init_pods=[pod(f"p{i}", node=f"node{i}", prio=MID, req=LARGE) for i in range(1, 6)],
         expected=[
             [cand("node1", ["p1"]), cand("node5", ["p5"])],  # cycle=0 => offset=4
             [cand("node2", ["p2"]), cand("node3", ["p3"])],  # cycle=1 => offset=1
             [cand("node4", ["p4"]), cand("node5", ["p5"])],  # cycle=2 => offset=3
         ], calls=[4, 4, 4]),
    dict(name="preemption looks past numCandidates until a non-PDB violating node is found",
         args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2}, plugins=("NodeResourcesFit",),
         nodes=[f"node{i}" for i in range(1, 6)], test_pods=[pod("p", prio=HIGH, req=LARGE)],
         init_pods=[pod("p1", node="node1", labels={"app": "foo"}, prio=MID, req=LARGE),
                    pod("p2", node="node2", labels={"app": "foo"}, prio=MID, req=LARGE),
                    pod("p3", node="node3", prio=MID, req=LARGE), pod("p4", node="node4", prio=MID, req=LARGE),
                    pod("p5", node="node5", labels={"app": "foo"}, prio=MID, req=LARGE)],
         pdbs=[pdb({"app": "foo"}, 0)],
         # cycle=0 => offset=4 => node5 (yes, pdb), node1 (yes, pdb), node2 (no, pdb), node3 (yes)
         expected=[[cand("node1", ["p1"], 1), cand("node3", ["p3"]), cand("node5", ["p5"], 1)]], calls=[8]),
]


def summarize(candidates: Sequence[Candidate]) -> list[tuple[str, tuple[str, ...], int]]:
    out = [(c.name, tuple(sorted(p.name for p in c.victims.pods)), c.victims.num_pdb_violations) for c in candidates]
    return sorted(out)


@pytest.mark.parametrize("case", DRY_RUN_CASES, ids=[c["name"] for c in DRY_RUN_CASES])
def test_dry_run_preemption(case: dict[str, Any]) -> None:
    plugins = case["plugins"]
    pre = tuple(p for p in plugins if p in ("NodeResourcesFit", "InterPodAffinity", "PodTopologySpread"))
    h = Harness([node(n, topology=True) for n in case["nodes"]], case["init_pods"], pre_filter=pre,
                filter=("FakeFilter", *plugins), args=case.get("args"), pdbs=case.get("pdbs", ()))
    fake = h.fake()
    fake.codes = {n: case.get("fake_rc", Code.SUCCESS) for n in case["nodes"]}
    offsets = iter([4, 1, 3])  # rand.New(rand.NewSource(4)).Int31n(5), three cycles
    if len(case["nodes"]) == 5:
        h.plugin.offset_rand = lambda n: next(offsets)
    pdbs = parse_pdbs(h.pdbs)
    rows = h.rows_by_name()
    for cycle, test_pod in enumerate(case["test_pods"]):
        state, pi = h.state_for(test_pod)
        before = fake.num_called
        offset, num = h.plugin.get_offset_and_num_candidates(len(rows))
        got, _statuses, _errs = h.plugin.evaluator.dry_run_preemption(state, pi, rows, pdbs, offset, num)
        assert fake.num_called - before == case["calls"][cycle], f"cycle {cycle}: filter calls"
        assert summarize(got) == sorted(case["expected"][cycle]), f"cycle {cycle}"


def test_dry_run_leaves_the_node_table_unchanged() -> None:
    """The what-if edits of SelectVictimsOnNode are undone (pods, order, requests)."""
    init = [pod("p1.1", node="node1", prio=LOW, req=SMALL), pod("p1.2", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=MID, req=LARGE)]
    h = Harness([node("node1"), node("node2")], init)
    t = h.table
    before = {t.row_names[r]: (list(t.pods[r]), int(t.req_cpu[r]), int(t.pod_count[r])) for r in t.order.tolist()}
    state, pi = h.state_for(pod("p", prio=HIGH, req=LARGE))
    rows = h.rows_by_name()
    got, _, _ = h.plugin.evaluator.dry_run_preemption(state, pi, rows, [], 0, 2)
    assert summarize(got) == [cand("node1", ["p1.2"]), cand("node2", ["p2"])]
    after = {t.row_names[r]: (list(t.pods[r]), int(t.req_cpu[r]), int(t.pod_count[r])) for r in t.order.tolist()}
    assert after == before


@pytest.mark.parametrize("seed", range(12))
def test_no_victims_shortcut_gives_the_full_dry_run_answer(seed: int) -> None:
    """Rows without a lower-priority pod are answered without SelectVictimsOnNode: the same
    candidates, statuses and messages as the full dry run, on random clusters and priorities."""
    rng = random.Random(seed)
    names = [f"node{i}" for i in range(6)]
    prios = (NEG, LOW, LOW + 1, MID)  # adjacent priorities: the boundary of "lower"
    init = [pod(f"p{i}", node=rng.choice(names), prio=rng.choice(prios), req=rng.choice((SMALL, MEDIUM)),
                start=epoch(i)) for i in range(rng.randrange(4, 14))]
    answers = []
    for shortcut in (True, False):
        h = Harness([node(n) for n in names], init)
        if not shortcut:
            h.plugin.no_victims_check = lambda: None  # type: ignore[method-assign]
        state, pi = h.state_for(pod("preemptor", prio=rng.choice(prios) if shortcut else answers[0][0],
                                    req=VERY_LARGE))
        got, statuses, errs = h.plugin.evaluator.dry_run_preemption(state, pi, h.rows_by_name(), [], 0, 6)
        answers.append((pi.priority, summarize(got), sorted((n, s.code, s.message()) for n, s in statuses.items()),
                        [e.message() for e in errs]))
    assert answers[0] == answers[1]


def test_no_victims_shortcut_is_off_when_victim_selection_is_replaced() -> None:
    """A subclass or an instance that replaces the victim selection gets the full dry run."""
    h = Harness([node("node1")])
    assert h.plugin.no_victims_check() is not None
    h.plugin.select_victims_on_node = lambda *a: ([], 0, None)  # type: ignore[method-assign]
    assert h.plugin.no_victims_check() is None

    class Eager(DefaultPreemption):
        def is_preemption_allowed(self, node_info: Any, victim: Any, preemptor: Mapping[str, Any]) -> bool:
            return True

    eager = Eager(None, Harness([node("node1")]).plugin.handle)
    assert eager.no_victims_check() is None


# ------------------------------------------------------------------- TestSelectBestCandidate

def _t0(name: str, n: str, prio: int, req: Mapping[str, str], start: str = epoch(0)) -> dict[str, Any]:
    return pod(name, node=n, prio=prio, req=req, start=start)


SELECT_BEST_CASES = [
    dict(name="a pod that fits on both nodes when lower priority pods are preempted",
         nodes=["node1", "node2"], pod=pod("p", prio=HIGH, req=LARGE),
         pods=[_t0("p1", "node1", MID, LARGE), _t0("p2", "node2", MID, LARGE)], expected=["node1", "node2"]),
    dict(name="node with min highest priority pod is picked", nodes=["node1", "node2", "node3"],
         pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, MEDIUM), _t0("p1.2", "node1", MID, LARGE),
               _t0("p2.1", "node2", MID, MEDIUM), _t0("p2.2", "node2", LOW, MEDIUM),
               _t0("p3.1", "node3", LOW, MEDIUM), _t0("p3.2", "node3", LOW, MEDIUM)], expected=["node3"]),
    dict(name="when highest priorities are the same, minimum sum of priorities is picked", nodes=["node1", "node2", "node3"],
         pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, MEDIUM), _t0("p1.2", "node1", MID, LARGE),
               _t0("p2.1", "node2", MID, LARGE), _t0("p2.2", "node2", LOW, MEDIUM),
               _t0("p3.1", "node3", MID, MEDIUM), _t0("p3.2", "node3", MID, MEDIUM)], expected=["node2"]),
    dict(name="when highest priority and sum are the same, minimum number of pods is picked", nodes=["node1", "node2", "node3"],
         pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, SMALL), _t0("p1.2", "node1", NEG, SMALL), _t0("p1.3", "node1", MID, SMALL),
               _t0("p1.4", "node1", NEG, SMALL), _t0("p2.1", "node2", MID, LARGE), _t0("p2.2", "node2", NEG, MEDIUM),
               _t0("p3.1", "node3", MID, MEDIUM), _t0("p3.2", "node3", NEG, SMALL), _t0("p3.3", "node3", LOW, SMALL)],
         expected=["node2"]),
    dict(name="sum of adjusted priorities is considered", nodes=["node1", "node2", "node3"],
         pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, SMALL), _t0("p1.2", "node1", NEG, SMALL), _t0("p1.3", "node1", NEG, SMALL),
               _t0("p2.1", "node2", MID, LARGE), _t0("p2.2", "node2", NEG, MEDIUM),
               _t0("p3.1", "node3", MID, MEDIUM), _t0("p3.2", "node3", NEG, SMALL), _t0("p3.3", "node3", LOW, SMALL)],
         expected=["node2"]),
    dict(name="non-overlapping lowest high priority, sum priorities, and number of pods",
         nodes=["node1", "node2", "node3", "node4"], pod=pod("p", prio=VERY_HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, SMALL), _t0("p1.2", "node1", LOW, SMALL), _t0("p1.3", "node1", LOW, SMALL),
               _t0("p2.1", "node2", HIGH, LARGE),
               _t0("p3.1", "node3", MID, MEDIUM), _t0("p3.2", "node3", LOW, SMALL), _t0("p3.3", "node3", LOW, SMALL),
               _t0("p3.4", "node3", LOW, MEDIUM),
               _t0("p4.1", "node4", MID, MEDIUM), _t0("p4.2", "node4", MID, SMALL), _t0("p4.3", "node4", MID, SMALL),
               _t0("p4.4", "node4", NEG, SMALL)], expected=["node1"]),
    dict(name="same priority, same number of victims, different start time for each node's pod",
         nodes=["node1", "node2", "node3"], pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, MEDIUM, epoch(2)), _t0("p1.2", "node1", MID, MEDIUM, epoch(2)),
               _t0("p2.1", "node2", MID, MEDIUM, epoch(3)), _t0("p2.2", "node2", MID, MEDIUM, epoch(3)),
               _t0("p3.1", "node3", MID, MEDIUM, epoch(1)), _t0("p3.2", "node3", MID, MEDIUM, epoch(1))],
         expected=["node2"]),
    dict(name="same priority, same number of victims, different start time for all pods",
         nodes=["node1", "node2", "node3"], pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", MID, MEDIUM, epoch(4)), _t0("p1.2", "node1", MID, MEDIUM, epoch(2)),
               _t0("p2.1", "node2", MID, MEDIUM, epoch(5)), _t0("p2.2", "node2", MID, MEDIUM, epoch(1)),
               _t0("p3.1", "node3", MID, MEDIUM, epoch(3)), _t0("p3.2", "node3", MID, MEDIUM, epoch(6))],
         expected=["node3"]),
    dict(name="different priority, same number of victims, different start time for all pods",
         nodes=["node1", "node2", "node3"], pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[_t0("p1.1", "node1", LOW, MEDIUM, epoch(4)), _t0("p1.2", "node1", MID, MEDIUM, epoch(2)),
               _t0("p2.1", "node2", MID, MEDIUM, epoch(6)), _t0("p2.2", "node2", LOW, MEDIUM, epoch(1)),
               _t0("p3.1", "node3", LOW, MEDIUM, epoch(3)), _t0("p3.2", "node3", MID, MEDIUM, epoch(5))],
         expected=["node2"]),
]


@pytest.mark.parametrize("case", SELECT_BEST_CASES, ids=[c["name"] for c in SELECT_BEST_CASES])
def test_select_best_candidate(case: dict[str, Any]) -> None:
    h = Harness([node(n) for n in case["nodes"]], case["pods"])
    state, pi = h.state_for(case["pod"])
    rows = h.table.order.tolist()
    offset, num = h.plugin.get_offset_and_num_candidates(len(rows))
    candidates, _, _ = h.plugin.evaluator.dry_run_preemption(state, pi, rows, [], offset, num)
    best = h.plugin.evaluator.select_candidate(candidates)
    assert best is not None and best.name in case["expected"]


# ------------------------------------------------------ TestCustomSelection / TestCustomOrdering

def _label_eligible(key: str, val: str) -> Any:
    return lambda _ni, victim, _preemptor: victim.labels.get(key) == val


def _node_eligible(name: str) -> Any:
    return lambda ni, _victim, _preemptor: ni.name == name


def _preemptor_at_least(minimum: int) -> Any:
    return lambda _ni, _victim, preemptor: pod_priority(preemptor) >= minimum


def _victim_at_most(maximum: int) -> Any:
    return lambda _ni, victim, _preemptor: victim.priority <= maximum


_V4 = [_t0("v1", "node1", MID, LARGE), _t0("v2", "node2", MID, LARGE), _t0("v3", "node3", LOW, LARGE), _t0("v4", "node4", LOW, LARGE)]
for _p, _l in zip(_V4, ("no", "yes", "yes", None)):
    if _l:
        _p["metadata"]["labels"] = {"preemptible": _l}
_N1 = [("v1", HIGH), ("v2", MID), ("v3", LOW)]
_V3 = [_t0("v1", "node1", HIGH, LARGE), _t0("v2", "node2", MID, LARGE), _t0("v3", "node3", LOW, LARGE)]

CUSTOM_SELECTION_CASES = [
    dict(name="filter for matching pod label: high priority", eligible=_label_eligible("preemptible", "yes"),
         nodes=4, pod=pod("p1", prio=HIGH, req=LARGE), pods=_V4, expected={"node2": ["v2"], "node3": ["v3"]}),
    dict(name="filter for matching pod label: mid priority", eligible=_label_eligible("preemptible", "yes"),
         nodes=4, pod=pod("p2", prio=MID, req=LARGE), pods=_V4, expected={"node3": ["v3"]}),
    dict(name="filter for matching pod label: low priority", eligible=_label_eligible("preemptible", "yes"),
         nodes=4, pod=pod("p3", prio=LOW, req=LARGE), pods=_V4, expected={}),
    dict(name="filter for matching victim node: high priority", eligible=_node_eligible("node1"), nodes=3,
         pod=pod("p3", prio=HIGH, req=LARGE),
         pods=[_t0("v1", "node1", HIGH, MEDIUM), _t0("v2", "node1", MID, SMALL), _t0("v3", "node1", LOW, SMALL),
               _t0("v4", "node2", MID, LARGE), _t0("v5", "node3", LOW, LARGE)], expected={"node1": ["v2", "v3"]}),
    dict(name="filter for matching victim node: mid priority", eligible=_node_eligible("node1"), nodes=3,
         pod=pod("p3", prio=MID, req=LARGE),
         pods=[_t0("v1", "node1", HIGH, SMALL), _t0("v2", "node1", MID, SMALL), _t0("v3", "node1", LOW, SMALL),
               _t0("v4", "node2", MID, LARGE), _t0("v5", "node3", LOW, LARGE)], expected={"node1": ["v3"]}),
    dict(name="filter for matching victim node: low priority", eligible=_node_eligible("node1"), nodes=3,
         pod=pod("p3", prio=LOW, req=LARGE),
         pods=[_t0("v1", "node1", HIGH, SMALL), _t0("v2", "node1", MID, SMALL), _t0("v3", "node1", LOW, SMALL),
               _t0("v4", "node2", MID, LARGE), _t0("v5", "node3", LOW, LARGE)], expected={}),
    dict(name="only pods at or above specified priority can preempted: high priority", eligible=_preemptor_at_least(HIGH),
         nodes=3, pod=pod("p1", prio=HIGH, req=LARGE), pods=_V3, expected={"node2": ["v2"], "node3": ["v3"]}),
    dict(name="only pods at or above specified priority can preempted: mid priority", eligible=_preemptor_at_least(HIGH),
         nodes=3, pod=pod("p2", prio=MID, req=LARGE), pods=_V3, expected={}),
    dict(name="only pods at or below specified priority can be preempted: high priority", eligible=_victim_at_most(MID),
         nodes=3, pod=pod("p1", prio=HIGH, req=LARGE), pods=_V3, expected={"node2": ["v2"], "node3": ["v3"]}),
]


@pytest.mark.parametrize("case", CUSTOM_SELECTION_CASES, ids=[c["name"] for c in CUSTOM_SELECTION_CASES])
def test_custom_selection(case: dict[str, Any]) -> None:
    h = Harness([node(f"node{i}") for i in range(1, case["nodes"] + 1)], case["pods"])
    state, pi = h.state_for(case["pod"])
    h.plugin.is_eligible_pod = case["eligible"]
    rows = h.table.order.tolist()
    offset, num = h.plugin.get_offset_and_num_candidates(len(rows))
    candidates, _, _ = h.plugin.evaluator.dry_run_preemption(state, pi, rows, [], offset, num)
    assert len(candidates) == len(case["expected"])
    while candidates:
        selected = h.plugin.evaluator.select_candidate(candidates)
        assert selected is not None and selected.name in case["expected"]
        assert [p.name for p in selected.victims.pods] == case["expected"][selected.name]
        candidates = [c for c in candidates if c.name != selected.name]


def _by_oldest_start(p1: Mapping[str, Any], p2: Mapping[str, Any]) -> bool:
    return pod_start_time(p1, 0) < pod_start_time(p2, 0)


def _by_name(p1: Mapping[str, Any], p2: Mapping[str, Any]) -> bool:
    return str(p1["metadata"]["name"]) < str(p2["metadata"]["name"])


CUSTOM_ORDERING_CASES = [
    dict(name="select newest pods", order=_by_oldest_start, pod=pod("p2", prio=HIGH, req=LARGE),
         pods=[_t0("v1", "node1", LOW, MEDIUM, epoch(2)), _t0("v2", "node1", LOW, MEDIUM, epoch(0)),
               _t0("v3", "node1", MID, MEDIUM, epoch(1))], expected=["v3", "v1"]),
    dict(name="select alphabetically-last pods", order=_by_name, pod=pod("p2", prio=HIGH, req=LARGE),
         pods=[pod("foo", uid="v1", node="node1", prio=LOW, req=MEDIUM, start=epoch(0)),
               pod("bar", uid="v2", node="node1", prio=LOW, req=MEDIUM, start=epoch(0)),
               pod("baz", uid="v3", node="node1", prio=MID, req=MEDIUM, start=epoch(0))], expected=["baz", "foo"]),
]


@pytest.mark.parametrize("case", CUSTOM_ORDERING_CASES, ids=[c["name"] for c in CUSTOM_ORDERING_CASES])
def test_custom_ordering(case: dict[str, Any]) -> None:
    h = Harness([node("node1")], case["pods"])
    state, pi = h.state_for(case["pod"])
    h.plugin.more_important_pod = case["order"]
    rows = h.table.order.tolist()
    offset, num = h.plugin.get_offset_and_num_candidates(len(rows))
    candidates, _, _ = h.plugin.evaluator.dry_run_preemption(state, pi, rows, [], offset, num)
    assert len(candidates) == 1
    assert [p.name for p in candidates[0].victims.pods] == case["expected"]


# -------------------------------------------------------------- TestPodEligibleToPreemptOthers

_PREEMPTED = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}

ELIGIBLE_CASES = [
    dict(name="Pod with nominated node", pod=pod("p_with_nominated_node", uid="p", prio=HIGH, nominated="node1"),
         pods=[pod("p1", prio=LOW, node="node1", terminating=True)], nodes=["node1"],
         status=Status(UU, "node(s) had untolerated taint"), expected=True),
    dict(name="Pod without nominated node", pod=pod("p_without_nominated_node", uid="p", prio=HIGH),
         pods=[], nodes=[], status=None, expected=True),
    dict(name="Pod with 'PreemptNever' preemption policy", pod=pod("p_with_preempt_never_policy", uid="p", prio=HIGH, policy="Never"),
         pods=[], nodes=[], status=None, expected=False),
    dict(name="preemption victim pod terminating, as indicated by the dedicated DisruptionTarget condition",
         pod=pod("p_with_nominated_node", uid="p", prio=HIGH, nominated="node1"),
         pods=[pod("p1", prio=LOW, node="node1", terminating=True, conditions=[_PREEMPTED])], nodes=["node1"],
         status=None, expected=False),
    dict(name="non-victim Pods terminating", pod=pod("p_with_nominated_node", uid="p", prio=HIGH, nominated="node1"),
         pods=[pod("p1", prio=LOW, node="node1", terminating=True)], nodes=["node1"], status=None, expected=True),
]


@pytest.mark.parametrize("case", ELIGIBLE_CASES, ids=[c["name"] for c in ELIGIBLE_CASES])
def test_pod_eligible_to_preempt_others(case: dict[str, Any]) -> None:
    h = Harness([node(n, {}) for n in case["nodes"]], case["pods"], pre_filter=(), filter=())
    got, _msg = h.plugin.pod_eligible_to_preempt_others(case["pod"], case["status"])
    assert got == case["expected"]


def test_pod_eligible_reasons() -> None:
    h = Harness([], [], pre_filter=(), filter=())
    assert h.plugin.pod_eligible_to_preempt_others(pod("p", policy="Never"), None) == (
        False, "not eligible due to preemptionPolicy=Never.")


# ------------------------------------------------------------------------------ TestPreempt

PREEMPT_CASES = [
    dict(name="basic preemption logic",
         pod=pod("p", prio=HIGH, req=VERY_LARGE, policy="PreemptLowerPriority"),
         pods=[pod("p1.1", node="node1", prio=LOW, req=SMALL), pod("p1.2", node="node1", prio=LOW, req=SMALL),
               pod("p2.1", node="node2", prio=HIGH, req=LARGE), pod("p3.1", node="node3", prio=MID, req=MEDIUM)],
         nodes=["node1", "node2", "node3"], plugin="NodeResourcesFit", want="node1", expected=["p1.1", "p1.2"]),
    dict(name="preemption for topology spread constraints",
         pod=pod("p", labels={"foo": ""}, prio=HIGH, spread=[(1, "zone"), (1, "hostname")]),
         pods=[pod("p-a1", node="node-a", labels={"foo": ""}, prio=HIGH),
               pod("p-a2", node="node-a", labels={"foo": ""}, prio=HIGH),
               pod("p-b1", node="node-b", labels={"foo": ""}, prio=LOW),
               pod("p-x1", node="node-x", labels={"foo": ""}, prio=HIGH),
               pod("p-x2", node="node-x", labels={"foo": ""}, prio=HIGH)],
         nodes=["node-a/zone1", "node-b/zone1", "node-x/zone2"], plugin="PodTopologySpread",
         want="node-b", expected=["p-b1"]),
    dict(name="no preempting in pod",
         pod=pod("p", prio=HIGH, req=VERY_LARGE, policy="Never"),
         pods=[pod("p1.1", node="node1", prio=LOW, req=SMALL), pod("p1.2", node="node1", prio=LOW, req=SMALL),
               pod("p2.1", node="node2", prio=HIGH, req=LARGE), pod("p3.1", node="node3", prio=MID, req=MEDIUM)],
         nodes=["node1", "node2", "node3"], plugin="NodeResourcesFit", want=None, expected=[]),
    dict(name="PreemptionPolicy is nil",
         pod=pod("p", prio=HIGH, req=VERY_LARGE),
         pods=[pod("p1.1", node="node1", prio=LOW, req=SMALL), pod("p1.2", node="node1", prio=LOW, req=SMALL),
               pod("p2.1", node="node2", prio=HIGH, req=LARGE), pod("p3.1", node="node3", prio=MID, req=MEDIUM)],
         nodes=["node1", "node2", "node3"], plugin="NodeResourcesFit", want="node1", expected=["p1.1", "p1.2"]),
]


@pytest.mark.parametrize("async_preemption", [True, False])
@pytest.mark.parametrize("case", PREEMPT_CASES, ids=[c["name"] for c in PREEMPT_CASES])
def test_preempt(case: dict[str, Any], async_preemption: bool) -> None:
    plugin = case["plugin"]
    h = Harness([node(n, topology=True) for n in case["nodes"]], case["pods"], pre_filter=(plugin,), filter=(plugin,),
                async_preemption=async_preemption)
    state, pi = h.state_for(case["pod"])
    m = NodeToStatus()
    for n in h.table.order.tolist():
        m.set(h.table.row_names[n], Status(U))
    res, status = h.plugin.evaluator.preempt(state, pi, m)
    assert status.is_success() or status.is_rejected(), status
    assert nominated(res) == case["want"]
    if async_preemption:
        assert h.deleted == []  # evicted once the attempt is over
        h.scheduler.handle.drain_after_cycle()
    assert sorted(h.deleted) == sorted(case["expected"])

    # the victims now terminate (deletionTimestamp, DisruptionTarget): no more preemption
    if case["want"]:
        p = dict(case["pod"])
        p["status"] = {"nominatedNodeName": case["want"]}
        h.scheduler.update_pod(p)
    for name in h.deleted:
        uid = name
        victim = dict(h.scheduler.pods[uid])
        victim["metadata"] = dict(victim["metadata"], deletionTimestamp="2025-01-01T00:00:00Z")
        victim["status"] = {"conditions": [dict(_PREEMPTED)]}
        h.scheduler.update_pod(victim)
    deleted_before = list(h.deleted)
    state, pi = h.state_for(h.scheduler.pods[case["pod"]["metadata"]["uid"]])
    res, status = h.plugin.evaluator.preempt(state, pi, NodeToStatus())
    h.scheduler.handle.drain_after_cycle()
    assert status.is_success() or status.is_rejected(), status
    assert h.deleted == deleted_before


# --------------------------------------------------------------------------- TestPreEnqueue

@pytest.mark.parametrize(
    ("async_preemption", "check", "want"),
    [
        (False, "p", None),
        (True, "p", Status(UU, "waiting for the preemption for this pod to be finished")),
        (True, "p_other", None),
    ],
    ids=["AsyncPreemption disabled, returns nil", "AsyncPreemption enabled, same pod, returns UnschedulableAndUnresolvable",
         "AsyncPreemption enabled, different pod, returns nil"],
)
def test_pre_enqueue(async_preemption: bool, check: str, want: Status | None) -> None:
    h = Harness([node("node1", ONE_POD)], [pod("p1", node="node1")], async_preemption=async_preemption)
    trigger = pod("p", prio=HIGH)
    state, pi = h.state_for(trigger)
    h.plugin.post_filter(state, pi.pod, statuses({"node1": U}))
    got = h.plugin.pre_enqueue(pod(check, prio=HIGH))
    assert got == want
    h.scheduler.handle.drain_after_cycle()
    assert h.plugin.pre_enqueue(pod(check, prio=HIGH)) is None


def test_events_to_register() -> None:
    on = Harness([], async_preemption=True).plugin.events_to_register()
    assert [(e.event.resource, int(e.event.action_type)) for e in on] == [("Pod", 2)]
    assert on[0].hint is not None and int(on[0].hint({}, None, None)) == 0  # QueueSkip
    assert Harness([], async_preemption=False).plugin.events_to_register() == []


def test_args_defaults_and_validation() -> None:
    from kubesim_scheduler.plugins.defaultpreemption import DefaultPreemptionArgs

    a = DefaultPreemptionArgs.from_dict(None)
    assert (a.min_candidate_nodes_percentage, a.min_candidate_nodes_absolute) == (10, 100)
    assert a.num_candidates(5000) == 500 and a.num_candidates(50) == 50 and a.num_candidates(500) == 100
    with pytest.raises(ValueError, match="not in valid range"):
        DefaultPreemptionArgs.from_dict({"minCandidateNodesPercentage": 101})
    with pytest.raises(ValueError, match="cannot be zero at the same time"):
        DefaultPreemptionArgs.from_dict({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0})
