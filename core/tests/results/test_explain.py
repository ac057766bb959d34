"""kubesim.results.explain on hand-written results (see conftest.py for the small result's story)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from kubesim.api import Scenario, ScenarioStep
from kubesim.results.explain import (
    NONE_NOTE,
    SUMMARY_NOTE,
    TIE_RULE,
    PodNotFound,
    explain_pod,
    explain_pods,
    explanation_data,
    pod_names,
)

P2_MESSAGE = "0/2 nodes are available: 2 Insufficient cpu."  # conftest's p2 failures


def score(raw: int, final: int | None = None) -> dict[str, int]:
    return {"rawScore": raw, "normalizedScore": raw, "finalScore": raw if final is None else final}


def test_scheduled_pod_scores_and_why(small_result: Scenario) -> None:
    [p1] = explain_pod(small_result, "p1")
    [attempt] = p1.attempts
    assert (attempt.outcome, attempt.node, attempt.detail, attempt.step) == ("scheduled", "n1", "full", ScenarioStep(1, 0))
    assert [(s.node, s.total) for s in attempt.scores] == [("n1", 165), ("n2", 150)]
    assert attempt.score_plugins == ["NodeResourcesFit", "NodeResourcesBalancedAllocation"]
    assert attempt.scores[0].plugins["NodeResourcesFit"].final_score == 75
    assert attempt.why == "n1 had the highest total score, 165 of 2 scored node(s), 15 ahead of n2 (150)"
    assert attempt.tied == ["n1"]
    assert all(f.passed for f in attempt.filters) and [f.node for f in attempt.filters] == ["n1", "n2"]
    # p1 was later preempted by default/p4 and deleted
    assert (p1.state, p1.node, p1.preempted_by, p1.preempted_at) == ("preempted", "n1", "default/p4", ScenarioStep(3, 1))


def test_failed_attempts_at_full_and_summary_detail(small_result: Scenario) -> None:
    [p2] = explain_pod(small_result, "default/p2")
    assert [(a.number, a.outcome, a.detail) for a in p2.attempts] == [
        (1, "unschedulable", "full"), (2, "unschedulable", "summary"), (3, "scheduled", "full")]
    full, summary, bound = p2.attempts
    assert [(f.node, f.plugin, f.message) for f in full.filters] == [
        ("n1", "NodeResourcesFit", "Insufficient cpu"), ("n2", "NodeResourcesFit", "Insufficient cpu")]
    assert full.filters[0].verdicts == {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"}
    assert (full.message, full.why, full.feasible_nodes, full.notes) == (
        P2_MESSAGE, "no node passed the filters", 0, [])
    # summary: counts only, and a note on what was kept and how to get more
    assert (summary.filters, summary.reasons, summary.candidate_nodes) == ([], {"Insufficient cpu": 2}, 2)
    assert summary.notes == [SUMMARY_NOTE] and "--detail full" in SUMMARY_NOTE
    assert (bound.node, bound.feasible_nodes, bound.scores) == ("n3", 1, [])
    assert bound.why.startswith("n3 was the only node that passed the filters")
    assert (p2.state, p2.node) == ("bound", "n3")


def _preemption_result(build: SimpleNamespace) -> Scenario:
    """low-1 and low-2 fill n1/n2; high preempts low-1 on n1 (nominated), then binds there;
    tie is scheduled with equal totals on a and b; an extender scores too."""
    b = build
    low1, low2 = b.pod("low-1", "3", "1Gi", node_name="n1"), b.pod("low-2", "3", "1Gi", node_name="n2")
    high = b.pod("high", "2", "1Gi", priority=1000)
    nominated = json.loads(json.dumps(high))
    nominated["status"]["nominatedNodeName"] = "n1"
    bound = json.loads(json.dumps(nominated))
    bound["spec"]["nodeName"] = "n1"
    fail = {"step": b.step(1, 1), "allCandidateNodes": ["n1", "n2"], "allFilteredNodes": [],
            "pluginResults": {"filter": {"n1": {"NodeResourcesFit": "Insufficient cpu"},
                                         "n2": {"NodeResourcesFit": "Insufficient cpu"}}},
            "message": "0/2 nodes are available: 2 Insufficient cpu."}
    ok = {"step": b.step(2, 1), "allCandidateNodes": ["n1", "n2"], "allFilteredNodes": ["n1"],
          "pluginResults": {"filter": {"n1": {"NodeResourcesFit": "passed"}}}}
    tie = b.pod("tie", "1", "1Gi")
    tie_bound = json.loads(json.dumps(tie))
    tie_bound["spec"]["nodeName"] = "b"
    scores = {n: {"NodeResourcesFit": score(50), "http://ext:8080/sched": score(5, 50)} for n in ("a", "b", "c")}
    scores["c"]["NodeResourcesFit"] = score(10)
    tie_attempt = {"step": b.step(2, 2), "pluginResults": {"score": scores}, "candidateNodeCount": 5,
                   "filteredNodeCount": 3, "filterReasonCounts": {"node(s) were unschedulable": 2}}
    none_attempt = {"step": b.step(2, 3), "message": "0/5 nodes are available: 5 Too many pods."}
    other = b.pod("tie", "1", "1Gi")
    other["metadata"]["namespace"] = "other"
    return b.result({
        "0": [b.create("low-1", b.step(0), low1), b.create("low-2", b.step(0), low2)],
        "1": [
            b.create("high", b.step(1), high),
            {"id": "e1", "step": b.step(1, 1), "actor": "scheduler", "podPreempted": {
                "pod": low1, "createdAt": b.step(0), "boundTo": "n1", "preemptedBy": "default/high",
                "preemptedAt": b.step(1, 1)}},
            {"id": "e2", "step": b.step(1, 1), "actor": "scheduler", "podUnscheduled": {
                "pod": nominated, "createdAt": b.step(1), "scheduleResult": [fail]}},
            b.delete("e3", b.step(1, 2), "Pod", "low-1", "default", actor="kubelet"),
        ],
        "2": [
            {"id": "e4", "step": b.step(2, 1), "actor": "scheduler", "podScheduled": {
                "pod": bound, "createdAt": b.step(1), "boundTo": "n1", "boundAt": b.step(2, 1),
                "scheduleResult": [ok]}},
            b.create("tie", b.step(2), tie),
            {"id": "e5", "step": b.step(2, 2), "actor": "scheduler", "podScheduled": {
                "pod": tie_bound, "createdAt": b.step(2), "boundTo": "b", "boundAt": b.step(2, 2),
                "scheduleResult": [tie_attempt]}},
            b.create("other-tie", b.step(2), other),
            {"id": "e6", "step": b.step(2, 3), "actor": "scheduler", "podUnscheduled": {
                "pod": other, "createdAt": b.step(2), "scheduleResult": [none_attempt]}},
        ],
    })


def test_preemption_victims_and_nominated_node(build: SimpleNamespace) -> None:
    result = _preemption_result(build)
    [high] = explain_pod(result, "high")
    first, second = high.attempts
    assert [(v.namespace, v.name, v.node) for v in first.victims] == [("default", "low-1", "n1")]
    assert first.nominated_node == "n1"
    assert first.why == ("no node passed the filters; preemption evicted 1 pod(s) of lower priority "
                         "(default/low-1) and nominated node n1")
    assert (second.outcome, second.node, second.victims) == ("scheduled", "n1", [])
    assert second.why.startswith("n1 is the pod's nominated node (status.nominatedNodeName) and passed the filters")
    [low1] = explain_pod(result, "low-1")
    assert (low1.state, low1.preempted_by, low1.attempts) == ("preempted", "default/high", [])


def test_tie_extender_and_none_detail(build: SimpleNamespace) -> None:
    result = _preemption_result(build)
    [tie] = explain_pod(result, "default/tie")
    [attempt] = tie.attempts
    assert [(s.node, s.total) for s in attempt.scores] == [("b", 100), ("a", 100), ("c", 60)]  # chosen first
    assert attempt.tied == ["b", "a"]
    assert attempt.why == f"b tied for the highest total score, 100, with 1 other node(s): {TIE_RULE}"
    assert attempt.extenders == ["http://ext:8080/sched"]
    assert (attempt.detail, attempt.candidate_nodes, attempt.feasible_nodes) == ("summary", 5, 3)
    [other] = explain_pod(result, "other/tie")
    assert (other.attempts[0].outcome, other.attempts[0].detail, other.attempts[0].notes) == (
        "unschedulable", "none", [NONE_NOTE])


def test_unknown_and_ambiguous_names(build: SimpleNamespace, small_result: Scenario) -> None:
    with pytest.raises(PodNotFound) as err:
        explain_pod(small_result, "p9")
    assert err.value.message == "no pod 'p9' in the result (3 pods)"
    assert err.value.close == ["default/p1", "default/p2", "default/p3"]
    with pytest.raises(PodNotFound) as err:
        explain_pod(_preemption_result(build), "tie")
    assert "more than one namespace" in err.value.message and err.value.close == ["default/tie", "other/tie"]
    assert pod_names(small_result) == ["default/p1", "default/p2", "default/p3"]


def test_focus_and_json_are_deterministic(small_result: Scenario) -> None:
    [p2] = explain_pod(small_result, "p2")
    focused = p2.focus(attempt=1, node="n2")
    assert [a.number for a in focused.attempts] == [1] and [f.node for f in focused.attempts[0].filters] == ["n2"]
    data = explanation_data(p2)
    assert data["attempts"][0]["filter"][0] == {
        "node": "n1", "rejectedBy": "NodeResourcesFit", "message": "Insufficient cpu",
        "plugins": {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"}}
    assert data["attempts"][1]["filterReasons"] == {"Insufficient cpu": 2}
    again = explain_pods(small_result)
    assert json.dumps([explanation_data(i) for v in again.values() for i in v]) == json.dumps(
        [explanation_data(i) for v in explain_pods(small_result).values() for i in v])
    assert list(again) == ["default/p1", "default/p2", "default/p3"]
