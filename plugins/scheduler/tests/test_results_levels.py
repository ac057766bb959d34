"""Attempts as Scenario API results: full and summary levels agree with the attempt's data."""

from __future__ import annotations

from kubesim.api import ScenarioStep
from kubesim_scheduler import Scheduler
from kubesim_scheduler.results import SUMMARY_BEST_NODES, schedule_result
from scheduler_harness import make_node, make_pod


def _scheduler(n: int) -> Scheduler:
    s = Scheduler(seed=3)
    for i in range(n):
        s.add_node(make_node(f"n{i:02d}", {"cpu": str(2 + i % 3), "memory": "8Gi", "pods": "10"},
                             labels={"kubernetes.io/hostname": f"n{i:02d}"}))
    # a node that rejects the pod, so that the summary has a reason to count
    s.add_node(make_node("tiny", {"cpu": "100m", "memory": "8Gi", "pods": "10"}, labels={"kubernetes.io/hostname": "tiny"}))
    return s


def test_full_result_matches_the_attempt() -> None:
    s = _scheduler(6)
    attempt = s.evaluate(make_pod("p", reqs=[{"cpu": "500m", "memory": "1Gi"}]))
    assert attempt.num_feasible_nodes() == len(attempt.feasible_nodes()) == 6
    triples = attempt.score_triples()
    assert {n: {p: (v["rawScore"], v["normalizedScore"], v["finalScore"]) for p, v in per.items()}
            for n, per in attempt.scores().items()} == triples
    result = schedule_result(attempt, ScenarioStep(1, 0), "full")
    assert result.all_filtered_nodes == attempt.feasible_nodes()
    got = {n: {p: (v.raw_score, v.normalized_score, v.final_score) for p, v in per.items()}
           for n, per in result.plugin_results.score.items()}
    assert got == triples
    assert list(result.plugin_results.score) == list(triples)  # node order kept
    assert result.plugin_results.filter["tiny"]["NodeResourcesFit"] == "Insufficient cpu"


def test_summary_counts_and_shares_equal_score_results() -> None:
    s = _scheduler(SUMMARY_BEST_NODES + 5)
    s.detail = SUMMARY_BEST_NODES
    s.add_pod(make_pod("p", reqs=[{"cpu": "500m", "memory": "1Gi"}]))
    attempt = s.schedule_one()
    assert attempt is not None and attempt.node is not None
    result = schedule_result(attempt, ScenarioStep(1, 0), "summary")
    assert result.filtered_node_count == SUMMARY_BEST_NODES + 5 == attempt.num_feasible_nodes()
    assert result.candidate_node_count == SUMMARY_BEST_NODES + 6
    assert result.filter_reason_counts == {"Insufficient cpu": 1}
    assert len(result.plugin_results.score) == SUMMARY_BEST_NODES
    assert result.all_filtered_nodes == [] and result.plugin_results.filter == {}
    # equal (raw, normalized, final) values are one shared frozen object
    values = [v for per in result.plugin_results.score.values() for v in per.values()]
    by_value = {}
    for v in values:
        assert by_value.setdefault((v.raw_score, v.normalized_score, v.final_score), v) is v
    assert len(by_value) < len(values)


def test_best_positions_equal_a_stable_sort() -> None:
    import numpy as np

    from kubesim_scheduler.attempt import best_positions

    rng = np.random.default_rng(7)
    for _ in range(2000):
        size = int(rng.integers(0, 80))
        total = rng.integers(0, int(rng.integers(1, 12)), size).astype(np.int64)
        n = int(rng.integers(1, 15))
        expected = np.argsort(-total, kind="stable")[:n]
        assert best_positions(total, n).tolist() == expected.tolist()


def _mixed_rejections() -> tuple[Scheduler, dict]:
    """Nodes rejected by several plugins: too small, tainted, cordoned, anti-affinity."""
    s = Scheduler(seed=5)
    for i in range(12):
        name = f"m{i:02d}"
        cap = {"cpu": "100m" if i % 4 == 0 else "4", "memory": "8Gi", "pods": "10"}
        taints = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}] if i % 4 == 1 else None
        s.add_node(make_node(name, cap, labels={"kubernetes.io/hostname": name}, taints=taints,
                             unschedulable=i % 4 == 2))
    for i in (3, 7):  # pods that the new pod's anti-affinity avoids
        s.add_pod(make_pod(f"x{i}", node=f"m{i:02d}", reqs=[{"cpu": "100m"}], labels={"app": "x"}))
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    return s, make_pod("p", reqs=[{"cpu": "500m"}], labels={"app": "x"}, affinity=affinity)


def test_reason_counts_and_trimmed_statuses_match_the_full_statuses() -> None:
    s, pod = _mixed_rejections()
    attempt = s.evaluate(pod)
    before = {n: (st.plugin, st.code, st.reasons) for n, st in attempt.filter_statuses().items()}
    assert {p for p, _, _ in before.values()} >= {"NodeResourcesFit", "TaintToleration", "NodeUnschedulable",
                                                 "InterPodAffinity"}
    expected: dict[str, int] = {}
    for _, _, reasons in before.values():
        for r in reasons:
            expected[r] = expected.get(r, 0) + 1
    fresh = s.evaluate(pod)  # counts without statuses built first
    assert fresh.reason_counts() == expected
    fresh.trim(2)
    assert fresh.reason_counts() == expected
    assert {n: (st.plugin, st.code, st.reasons) for n, st in fresh.filter_statuses().items()} == before
    assert list(fresh.filter_statuses()) == list(before)  # same node order
    result = schedule_result(fresh, ScenarioStep(1, 0), "summary")
    assert result.filter_reason_counts == dict(sorted(expected.items()))


def test_summary_keeps_the_selected_node_among_tied_best_nodes() -> None:
    """With more tied best nodes than the summary keeps, the chosen one is still recorded."""
    from kubesim_scheduler import Scheduler

    s = Scheduler(seed=3, detail=2, percentage_of_nodes_to_score=100)
    for i in range(8):
        s.add_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}", "uid": f"n{i}"},
                    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
    s.add_pod({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "p"},
               "spec": {"containers": [{"name": "c", "image": "i"}]}})
    attempt = s.schedule_one()
    assert attempt is not None and attempt.node is not None
    kept = attempt.scores()
    assert len(kept) == 2 and attempt.node in kept


def test_only_plugins_that_normalise_are_asked_to() -> None:
    from kubesim_scheduler import BatchScorePlugin, ScorePlugin, in_tree_registry

    reg = in_tree_registry()
    assert not reg["NodeResourcesFit"].has_normalize()
    assert not reg["NodeResourcesBalancedAllocation"].has_normalize()
    assert reg["TaintToleration"].has_normalize() and reg["InterPodAffinity"].has_normalize()

    class PerNode(ScorePlugin):
        def normalize_score(self, state, pod, scores):  # type: ignore[no-untyped-def]
            return None

    class BatchWithPerNodeNormalize(BatchScorePlugin):
        def normalize_score(self, state, pod, scores):  # type: ignore[no-untyped-def]
            return None

    assert PerNode.has_normalize() and BatchWithPerNodeNormalize.has_normalize()
    assert not ScorePlugin.has_normalize() and not BatchScorePlugin.has_normalize()
