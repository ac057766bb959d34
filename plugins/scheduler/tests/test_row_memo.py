"""RowMemo in NodeResourcesFit and BalancedAllocation: memoised results equal direct ones.

A random walk of cluster changes (pods bound and removed, nodes added, resized and
removed, rows reused) interleaved with a few pod shapes; after every change each plugin's
batch result over the live rows (rotated like the scheduler does) must equal a fresh
computation of the same rows.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from kubesim_scheduler import Scheduler
from kubesim_scheduler.framework import CycleState, NodeInfoList, PodInfo
from kubesim_scheduler.plugins.noderesources.row_memo import RowMemo
from scheduler_harness import make_node, make_pod

SHAPES = [
    {"cpu": "500m", "memory": "1Gi"},
    {"cpu": "2", "memory": "256Mi"},
    {"cpu": "100m", "memory": "500Mi", "example.com/gpu": "1"},
]


def _node(name: str, rng: random.Random) -> dict:
    cap = {"cpu": str(rng.choice([1, 2, 4, 8])), "memory": f"{rng.choice([1, 2, 8])}Gi", "pods": str(rng.choice([3, 10]))}
    if rng.random() < 0.3:
        cap["example.com/gpu"] = str(rng.choice([1, 2]))
    return make_node(name, cap)


@pytest.mark.parametrize("strategy", ["LeastAllocated", "MostAllocated"])
def test_memoised_results_equal_direct_ones(strategy: str) -> None:
    rng = random.Random(11)
    s = Scheduler(seed=1)
    fw = s.frameworks["default-scheduler"]
    fit, bal = fw.plugins["NodeResourcesFit"], fw.plugins["NodeResourcesBalancedAllocation"]
    fit.strategy = strategy
    from kubesim_scheduler.plugins.noderesources.resource_allocation import least_allocated, most_allocated

    fit._scorer = least_allocated if strategy == "LeastAllocated" else most_allocated
    t = s.table
    names = [f"n{i}" for i in range(30)]
    for n in names:
        s.add_node(_node(n, rng))
    bound: list[dict] = []
    hits = 0
    for step in range(400):
        action = rng.random()
        live = [n for n in names if n in t.name_to_row and t.nodes[t.name_to_row[n]] is not None]
        if action < 0.45 and live:
            p = make_pod(f"b{step}", node=rng.choice(live), reqs=[rng.choice(SHAPES)])
            s.add_pod(p)
            bound.append(p)
        elif action < 0.6 and bound:
            s.remove_pod(bound.pop(rng.randrange(len(bound))))
        elif action < 0.7 and live:
            s.update_node(_node(rng.choice(live), rng))
        elif action < 0.75 and len(live) > 5:
            s.remove_node(rng.choice(live))
        elif action < 0.8:
            name = f"n{len(names)}"
            names.append(name)
            s.add_node(_node(name, rng))
        shape = SHAPES[0] if rng.random() < 0.7 else rng.choice(SHAPES)
        pi = PodInfo(make_pod(f"p{step}", reqs=[shape]))
        order = t.order
        start = rng.randrange(len(order))
        rows = np.concatenate((order[start:], order[:start]))
        state = CycleState(pi)
        nodes = NodeInfoList(t, rows)
        fit.pre_filter(state, pi.pod, nodes)
        codes = fit.filter_batch(state, pi, rows).codes
        assert codes.tolist() == fit._codes(t, pi.fit_request, rows).tolist()
        fit.pre_score(state, pi.pod, nodes)
        assert fit.score_batch(state, pi, rows).tolist() == fit._scores(fit._pod_requests(pi), rows).tolist()
        if bal.pre_score(state, pi.pod, nodes) is None:
            assert bal.score_batch(state, pi, rows).tolist() == bal._scores(bal._pod_requests(pi), rows).tolist()
        hits += fit._score_memo.key == tuple(fit._pod_requests(pi))
    assert hits > 200  # the memo was actually in use


def test_small_row_sets_are_computed_directly() -> None:
    s = Scheduler(seed=1)
    for i in range(10):
        s.add_node(make_node(f"n{i}", {"cpu": "1", "memory": "1Gi", "pods": "10"}))
    memo = RowMemo(s.table)
    calls: list[int] = []

    def compute(rows: np.ndarray) -> np.ndarray:
        calls.append(len(rows))
        return rows * 2

    assert memo.get("k", np.array([3, 1]), compute).tolist() == [6, 2]
    assert memo.values is None and calls == [2]
    rows = s.table.order
    assert memo.get("k", rows, compute).tolist() == (rows * 2).tolist()
    assert memo.get("k", rows[::-1], compute).tolist() == (rows[::-1] * 2).tolist()
    assert calls == [2, 10]  # nothing changed: served from the memo
    s.add_pod(make_pod("x", node="n4", reqs=[{"cpu": "100m"}]))
    memo.get("k", rows, compute)
    assert calls == [2, 10, 1]  # only the changed row
    memo.get("other", rows, compute)
    assert calls == [2, 10, 1, 10]
