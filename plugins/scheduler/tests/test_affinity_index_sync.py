"""The pod-to-pod index at scale: replayed table changes, pair counts held as arrays, and
Filter verdicts (with their reasons as data) equal to the per-node Filter.

Differential tests: an index kept up to date by replaying the NodeTable's pod changes must
equal one rebuilt from the table, after random binds, deletions, re-binds and node changes.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from kubesim_scheduler.framework.interface import BatchFilterResult
from kubesim_scheduler.framework.node_table import NodeTable
from kubesim_scheduler.framework.pod_info import PodInfo
from kubesim_scheduler.plugins.interpodaffinity.filtering import (
    VERDICT_OUTCOMES,
    filter_node,
    filter_verdicts,
    pre_filter,
)
from kubesim_scheduler.plugins.interpodaffinity.paircounts import PairCounts
from kubesim_scheduler.plugins.interpodaffinity.podindex import ClusterIndex
from kubesim_scheduler.plugins.interpodaffinity.tablesync import TableIndex

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def node(i: int, zone: str | None = None) -> dict[str, Any]:
    labels = {HOST: f"n{i}", **({ZONE: zone} if zone else {})}
    return {"metadata": {"name": f"n{i}", "labels": labels}, "status": {"allocatable": {"cpu": "4", "pods": "110"}}}


def pod(name: str, group: str, node_name: str = "", anti: bool = True) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if node_name:
        spec["nodeName"] = node_name
    if anti:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"group": group}}, "topologyKey": HOST},
        ]}}
    return {"metadata": {"name": name, "namespace": "default", "uid": name, "labels": {"group": group}}, "spec": spec}


def snapshot(idx: ClusterIndex) -> tuple[Any, ...]:
    """What the plugins read: pods per node, and every group's counts per node name."""
    def per_node(counts: np.ndarray) -> dict[str, int]:
        return {idx.node_names[i]: int(c) for i, c in enumerate(counts[: idx.size].tolist()) if c}

    live = {n for i, n in enumerate(idx.node_names) if idx.node_objs[i] is not None}
    pods = {n: sorted(p.pod["metadata"]["name"] for p in idx.pods_on(n)) for n in live}
    labels = {sig: per_node(g.counts) for sig, g in idx.label_groups.items() if g.total}
    anti = {sig: per_node(g.counts) for sig, g in idx.anti_groups.items() if g.total}
    return pods, labels, anti, sorted(live)


def rebuilt(table: NodeTable) -> ClusterIndex:
    return TableIndex(table).sync()


def test_replayed_changes_equal_a_rebuilt_index() -> None:
    rng = random.Random(7)
    table = NodeTable()
    for i in range(12):
        table.add_node(node(i, f"z{i % 3}"))
    ti = TableIndex(table)
    bound: dict[str, PodInfo] = {}
    counter = 0
    for step in range(400):
        op = rng.random()
        if op < 0.55 or not bound:
            counter += 1
            name = f"p{counter}"
            pi = PodInfo(pod(name, f"g{rng.randrange(4)}", f"n{rng.randrange(14)}", anti=rng.random() < 0.7))
            table.add_pod(pi)  # n12, n13: ghost rows (pods before their node)
            bound[pi.key] = pi
        elif op < 0.8:
            key = rng.choice(sorted(bound))
            table.remove_pod(key)
            del bound[key]
        elif op < 0.9:
            key = rng.choice(sorted(bound))  # re-bind elsewhere with a new object
            old = bound[key]
            pi = PodInfo(pod(old.name, old.labels["group"], f"n{rng.randrange(12)}"))
            table.add_pod(pi)
            bound[key] = pi
        elif op < 0.95:
            i = rng.randrange(14)
            table.add_node(node(i, f"z{rng.randrange(3)}"))  # add, or relabel
        else:
            table.remove_node(f"n{rng.randrange(14)}")
        if rng.random() < 0.3:
            assert snapshot(ti.sync()) == snapshot(rebuilt(table)), f"step {step}"
    assert snapshot(ti.sync()) == snapshot(rebuilt(table))
    assert ti._log == []  # listening: the last syncs replayed


def test_a_log_overflow_falls_back_to_comparing_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    import kubesim_scheduler.plugins.interpodaffinity.tablesync as ts

    monkeypatch.setattr(ts, "_LOG_LIMIT", 3)
    table = NodeTable()
    for i in range(3):
        table.add_node(node(i))
    ti = TableIndex(table)
    ti.sync()
    for k in range(10):
        table.add_pod(PodInfo(pod(f"p{k}", "g", f"n{k % 3}")))
    assert ti._log is None
    assert snapshot(ti.sync()) == snapshot(rebuilt(table))
    assert sum(len(v) for v in snapshot(ti.index)[0].values()) == 10


def test_pair_counts_behave_as_the_upstream_map() -> None:
    idx = ClusterIndex([node(0, "a"), node(1, "b"), node(2, "a")])
    dom = idx.domain(ZONE)
    m = PairCounts()
    m.add_domain(ZONE, dom, dom.sums(np.array([1, 0, 2])))
    assert m == {(ZONE, "a"): 3} and bool(m) and len(m) == 1
    assert m.per_slot(idx, ZONE).tolist() == [3, 0, 3]
    m[(ZONE, "b")] = 1
    m[(ZONE, "a")] -= 3  # reaching 0 deletes the pair
    assert m == {(ZONE, "b"): 1}
    m[(ZONE, "c")] = 2  # a value outside the domain: the key becomes plain pairs
    assert m == {(ZONE, "b"): 1, (ZONE, "c"): 2}
    assert m.per_slot(idx, ZONE).tolist() == [0, 1, 0]
    c = m.copy()
    c[(ZONE, "b")] = 5
    assert m[(ZONE, "b")] == 1 and m.topology_keys() == [ZONE]
    del m[(ZONE, "b")]
    del m[(ZONE, "c")]
    assert not m and len(m) == 0 and m == {}
    with pytest.raises(KeyError):
        del m[(ZONE, "b")]


def test_filter_verdicts_equal_the_per_node_filter() -> None:
    rng = random.Random(3)
    nodes = [node(i, f"z{i % 3}") if i % 5 else node(i) for i in range(20)]
    pods = [pod(f"p{k}", f"g{rng.randrange(3)}", f"n{rng.randrange(20)}") for k in range(40)]
    idx = ClusterIndex(nodes, pods)
    for g in ("g0", "g1", "g2", "g9"):
        incoming = pod("new", g)
        incoming["spec"]["affinity"]["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"group": "g1"}}, "topologyKey": ZONE},
        ]}
        state, out = pre_filter(incoming, idx, {})
        assert out is None and state is not None
        verdicts = filter_verdicts(state, idx).tolist()
        want = [filter_node(state, n["metadata"]["labels"]) for n in nodes]
        assert [VERDICT_OUTCOMES[v] for v in verdicts] == want


def test_reason_table_results_agree_with_reasons_per_row() -> None:
    rows = np.array([4, 7, 9, 12], dtype=np.intp)
    ids = np.array([0, 2, 1, 2], dtype=np.int8)
    table = ((), ("a",), ("b", "c"))
    res = BatchFilterResult.from_table(rows, ids, np.array([0, 2, 3], dtype=np.int8), table)
    assert res.codes.tolist() == [0, 3, 2, 3]
    assert [tuple(res.reasons(r)) for r in (7, 9, 12)] == [("b", "c"), ("a",), ("b", "c")]
    mask = BatchFilterResult.from_mask(np.array([True, False]), 2, "x")  # type: ignore[arg-type]
    assert mask.reason_ids is not None and mask.reason_table[int(mask.reason_ids[0])] == ("x",)
