"""NodeResourcesFit RequestedToCapacityRatio scoring and the broken-linear shape function,
ported from upstream's requested_to_capacity_ratio_test.go tables."""

# upstream: pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go

from __future__ import annotations

import numpy as np
import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.plugins.noderesources.resource_allocation import broken_linear

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
TWO_REQ = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]


def cap(cpu: str, mem: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem}


def ext_node(name: str, ext: dict[str, int]) -> dict:
    """upstream makeNode(name, 4000 milli-CPU, 10000Mi, extended resources)."""
    return make_node(name, {"cpu": "4000m", "memory": str(10000 * 1024 * 1024), **{k: str(v) for k, v in ext.items()}})


STRATEGY_CASES = [
    ("nothing scheduled, nothing requested (default - least requested nodes have priority)", make_pod(),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
     [make_pod(node="node1"), make_pod(node="node1")], [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
     make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
     [make_pod(node="node1"), make_pod(node="node1")], [38, 50]),
    ("no resources requested, pods scheduled with resources (default - least requested nodes have priority)", make_pod(),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "5000"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [38, 50]),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want", STRATEGY_CASES, ids=[c[0] for c in STRATEGY_CASES])
def test_requested_to_capacity_ratio_strategy(name, pod, nodes, existing, want):  # type: ignore[no-untyped-def]
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": DEFAULT, "requestedToCapacityRatio": {"shape": SHAPE}}}
    assert PluginHarness("NodeResourcesFit", args, nodes, existing).score(pod) == want


BROKEN_LINEAR = [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize("points,assertions", BROKEN_LINEAR, ids=[f"case_{i}" for i in range(len(BROKEN_LINEAR))])
def test_broken_linear_function(points, assertions):  # type: ignore[no-untyped-def]
    fn = broken_linear(points)
    ps = np.array([p for p, _ in assertions], dtype=np.int64)
    assert fn(ps).tolist() == [e for _, e in assertions]


EXT1 = {"intel.com/foo": 4}
EXT2 = {"intel.com/foo": 8}
SINGLE = [
    ("nothing scheduled, nothing requested", make_pod(), [], [0, 0]),
    ("resources requested, pods scheduled with less resources", make_pod(reqs=[{"intel.com/foo": "2"}]), [make_pod()], [2, 5]),
    ("resources requested, pods scheduled with resources, on node with existing pod running",
     make_pod(reqs=[{"intel.com/foo": "2"}]), [make_pod(node="node2", reqs=[{"intel.com/foo": "2"}])], [2, 10]),
    ("resources requested, pods scheduled with more resources", make_pod(reqs=[{"intel.com/foo": "4"}]), [make_pod()], [5, 10]),
]


@pytest.mark.parametrize("name,pod,existing,want", SINGLE, ids=[c[0] for c in SINGLE])
def test_resource_bin_packing_single_extended(name, pod, existing, want):  # type: ignore[no-untyped-def]
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": [{"name": "intel.com/foo", "weight": 1}],
                                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]}}}
    nodes = [ext_node("node1", EXT2), ext_node("node2", EXT1)]
    assert PluginHarness("NodeResourcesFit", args, nodes, [p for p in existing if p["spec"].get("nodeName")]).score(pod) == want


MEXT1 = {"intel.com/foo": 4, "intel.com/bar": 8}
MEXT2 = {"intel.com/foo": 8, "intel.com/bar": 4}
MPOD1 = {"intel.com/foo": "2", "intel.com/bar": "2"}
MPOD2 = {"intel.com/foo": "4", "intel.com/bar": "2"}
MULTIPLE = [
    ("nothing scheduled, nothing requested", make_pod(), [], [0, 0]),
    ("resources requested, pods scheduled with less resources", make_pod(reqs=[MPOD1]), [], [4, 3]),
    ("resources requested, pods scheduled with resources, on node with existing pod running",
     make_pod(reqs=[MPOD1]), [make_pod(node="node2", reqs=[MPOD2])], [4, 7]),
    ("resources requested, pods scheduled with more resources", make_pod(reqs=[MPOD2]), [], [5, 5]),
]


@pytest.mark.parametrize("name,pod,existing,want", MULTIPLE, ids=[c[0] for c in MULTIPLE])
def test_resource_bin_packing_multiple_extended(name, pod, existing, want):  # type: ignore[no-untyped-def]
    args = {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                "resources": [{"name": "intel.com/foo", "weight": 3}, {"name": "intel.com/bar", "weight": 5}],
                                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]}}}
    nodes = [ext_node("node1", MEXT2), ext_node("node2", MEXT1)]
    assert PluginHarness("NodeResourcesFit", args, nodes, existing).score(pod) == want
