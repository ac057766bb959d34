"""The built-in tables on the hand-written result of conftest.py, against hand-computed values."""

from __future__ import annotations

from typing import Any

import pytest

from kubesim.api import Scenario
from kubesim.results import ResultTables, analyze, parse_results

GI = 1024**3
MI = 1024**2


@pytest.fixture
def tables(small_result: Scenario) -> ResultTables:
    return analyze(small_result)


def test_table_names_and_scenario(tables: ResultTables) -> None:
    assert list(tables.tables) == ["pods", "nodes", "cluster", "plugins", "filter_reasons"]
    assert tables.scenario == "small"


def test_iterating_gives_every_table(tables: ResultTables) -> None:
    # not the sequence protocol's tables[0], tables[1], ... (KeyError: no table 0)
    assert [t.name for t in tables] == ["pods", "nodes", "cluster", "plugins", "filter_reasons"]
    assert list(tables) == list(tables.tables.values()) and len(tables) == 5
    assert "pods" in tables and "nope" not in tables and 0 not in tables


def test_pods(tables: ResultTables) -> None:
    pods = {r["name"]: r for r in tables["pods"].records()}
    assert list(pods) == ["p1", "p2", "p3"]
    assert pods["p1"] == {
        "namespace": "default", "name": "p1", "uid": "uid-p1", "state": "preempted", "node": "n1",
        "created_step": 1, "created_minor": 0, "bound_step": 1, "bound_minor": 1, "attempts": 1,
        "unschedulable_reasons": None, "message": None, "score": 165, "preempted_by": "default/p4",
        "preempted_step": 3, "preempted_minor": 1, "deleted_step": 3, "priority": 0,
        "cpu_request": 1000, "memory_request": GI,
    }
    p2 = pods["p2"]
    assert (p2["state"], p2["node"], p2["bound_step"], p2["bound_minor"], p2["attempts"]) == ("bound", "n3", 2, 1, 3)
    # the last failed attempt was at summary detail: reason counts, no plugin
    assert p2["unschedulable_reasons"] == "Insufficient cpu (2)"
    assert p2["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    assert p2["score"] is None  # one feasible node: nothing was scored
    assert (p2["cpu_request"], p2["memory_request"]) == (3500, 2 * GI)
    p3 = pods["p3"]
    assert (p3["state"], p3["node"], p3["attempts"], p3["bound_step"], p3["created_step"]) == ("bound", "n1", 0, None, 3)


def test_nodes_per_step(tables: ResultTables) -> None:
    nodes = tables["nodes"]
    assert [(r["step"], r["node"]) for r in nodes.records()] == [
        (0, "n1"), (0, "n2"), (1, "n1"), (1, "n2"), (2, "n1"), (2, "n2"), (2, "n3"),
        (3, "n1"), (3, "n2"), (3, "n3"), (4, "n1"), (4, "n2"), (4, "n3"), (5, "n1"), (5, "n2"), (5, "n3"),
    ]
    [n1_1] = nodes.where(step=1, node="n1")
    assert n1_1 == {
        "step": 1, "node": "n1", "unschedulable": False, "pods": 1, "pods_allocatable": 3, "usage_pods": 0,
        "cpu_requested": 1000, "cpu_allocatable": 4000, "cpu_ratio": 0.25, "cpu_usage": None,
        "memory_requested": GI, "memory_allocatable": 8 * GI, "memory_ratio": 0.125, "memory_usage": None,
    }
    [n1_2] = nodes.where(step=2, node="n1")
    assert (n1_2["usage_pods"], n1_2["cpu_usage"], n1_2["memory_usage"]) == (1, 500, 512 * MI)
    [n3_2] = nodes.where(step=2, node="n3")
    assert (n3_2["pods"], n3_2["cpu_requested"], n3_2["cpu_ratio"], n3_2["memory_ratio"]) == (1, 3500, 0.4375, 0.125)
    # step 3: p1 (with usage) gone, p3 (without) arrived; n2 cordoned
    [n1_3] = nodes.where(step=3, node="n1")
    assert (n1_3["pods"], n1_3["cpu_requested"], n1_3["usage_pods"], n1_3["cpu_usage"]) == (1, 1000, 0, None)
    assert [r["unschedulable"] for r in nodes.where(node="n2")] == [False, False, False, True, True, True]


def test_cluster_per_step(tables: ResultTables) -> None:
    rows = list(tables["cluster"].records())
    assert [r["step"] for r in rows] == [0, 1, 2, 3, 4, 5]
    counts = [(r["nodes"], r["pods"], r["bound"], r["pending"], r["scheduled"], r["unschedulable"],
               r["failed_attempts"], r["preempted"], r["deleted"]) for r in rows]
    assert counts == [
        (2, 0, 0, 0, 0, 0, 0, 0, 0),
        (2, 2, 1, 1, 1, 1, 2, 0, 0),
        (3, 2, 2, 0, 1, 0, 0, 0, 0),
        (3, 2, 2, 0, 0, 0, 0, 1, 1),
        (3, 2, 2, 0, 0, 0, 0, 0, 0),
        (3, 2, 2, 0, 0, 0, 0, 0, 0),
    ]
    assert rows[1]["cpu_requested"] == 1000 and rows[1]["cpu_allocatable"] == 6000
    assert rows[1]["cpu_allocation"] == pytest.approx(1 / 6)
    assert rows[1]["memory_allocation"] == pytest.approx(1 / 12)
    assert rows[1]["allocation"] == pytest.approx((1 / 6 + 1 / 12) / 2)
    assert rows[2]["allocation"] == pytest.approx((4500 / 14000 + 3 / 28) / 2)
    # fragmentation: step 1 waits for p2 (3500m), which neither node can hold -> all free capacity stranded;
    # step 2 nothing pending, median pod (1 cpu, 1Gi) fits everywhere; step 3 only cordoned n2 is
    # stranded: its weight 1/7 of 44/56 -> 2/11
    assert [r["fragmentation"] for r in rows[:3]] == [0.0, 1.0, 0.0]
    assert rows[3]["fragmentation"] == pytest.approx(2 / 11)


def test_plugins(tables: ResultTables) -> None:
    plugins = {r["plugin"]: r for r in tables["plugins"].records()}
    assert list(plugins) == ["NodeResourcesBalancedAllocation", "NodeResourcesFit", "TaintToleration"]
    fit = plugins["NodeResourcesFit"]
    # rejections: 2 nodes in the full failed attempt + 2 in the binding attempt; the summary attempt names no plugin
    assert (fit["rejected_nodes"], fit["rejecting_attempts"], fit["scored_nodes"]) == (4, 2, 2)
    assert (fit["score_min"], fit["score_p50"], fit["score_mean"], fit["score_p90"], fit["score_max"]) == (
        50, 50, 62.5, 75, 75)
    # without Fit, n1 has 90 and n2 100: Fit decided p1's placement; without Balanced, n1 still wins 75 to 50
    assert (fit["contested_binds"], fit["decided_winner"], fit["decided_share"]) == (1, 1, 1.0)
    bal = plugins["NodeResourcesBalancedAllocation"]
    assert (bal["rejected_nodes"], bal["score_mean"], bal["final_mean"]) == (0, 95.0, 95.0)
    assert (bal["contested_binds"], bal["decided_winner"], bal["decided_share"]) == (1, 0, 0.0)
    taint = plugins["TaintToleration"]
    assert (taint["rejected_nodes"], taint["scored_nodes"], taint["score_mean"], taint["decided_share"]) == (
        0, 0, None, None)


def test_filter_reasons(tables: ResultTables) -> None:
    assert list(tables["filter_reasons"].records()) == [
        {"reason": "Insufficient cpu", "plugin": "NodeResourcesFit", "nodes": 4, "attempts": 2, "pods": 1,
         "failed_nodes": 2, "failed_attempts": 1},
        {"reason": "Insufficient cpu", "plugin": None, "nodes": 2, "attempts": 1, "pods": 1,
         "failed_nodes": 2, "failed_attempts": 1},
    ]
    # the binding attempt's 2 rejected nodes did not keep the pod pending: counted in nodes only


def test_every_column_is_documented_and_typed(tables: ResultTables) -> None:
    python_types = {"str": str, "int": int, "float": float, "bool": bool}
    for table in tables.tables.values():
        assert table.description
        for i, col in enumerate(table.columns):
            assert col.description, (table.name, col.name)
            for row in table.rows:
                value = row[i]
                assert value is None or type(value) is python_types[col.type] or (
                    col.type == "float" and type(value) is int), (table.name, col.name, value)


def test_without_scheduler_results_the_tables_still_build(small_doc: dict[str, Any]) -> None:
    timeline = small_doc["status"]["scenarioResult"]["timeline"]
    for events in timeline.values():
        events[:] = [e for e in events if not any(k.startswith("pod") for k in e)]
    [result] = parse_results([small_doc])
    tables = analyze(result)
    assert len(tables["plugins"]) == 0 and len(tables["filter_reasons"]) == 0
    # p1 is seen bound only in the kubelet's patch at step 2; p3 is created bound at step 3
    assert [r["pending"] for r in tables["cluster"].records()] == [0, 2, 1, 1, 1, 1]
    assert [(r["name"], r["state"], r["attempts"]) for r in tables["pods"].records()] == [
        ("p1", "deleted", 0), ("p2", "pending", 0), ("p3", "bound", 0)]
