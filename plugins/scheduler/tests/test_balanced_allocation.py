"""NodeResourcesBalancedAllocation, ported from upstream's balanced_allocation_test.go table
(the DRA extended-resource cases are left out: DRA is not modelled)."""

# upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go

from __future__ import annotations

import numpy as np
import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import CycleState, PodInfo


def node(name: str, milli_cpu: int, memory: int, scalar: dict[str, int] | None = None) -> dict:
    return make_node(name, {"cpu": f"{milli_cpu}m", "memory": str(memory), **{k: str(v) for k, v in (scalar or {}).items()}})


def cpu_and_memory_and_gpu(node_name: str = "node1") -> dict:
    return make_pod(node=node_name, reqs=[{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", "nvidia.com/gpu": "3"}])


def cpu_only(node_name: str = "node1") -> dict:
    return make_pod(node=node_name, reqs=[{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}])


def cpu_and_memory(node_name: str = "node2") -> dict:
    return make_pod(node=node_name, reqs=[{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}])


DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_GPU = [*DEFAULT, {"name": "nvidia.com/gpu", "weight": 1}]
GPU8 = {"nvidia.com/gpu": 8}

CASES = [
    ("nothing scheduled, nothing requested, skip in PreScore", make_pod(), [node("node1", 4000, 10000), node("node2", 4000, 10000)],
     [], None, DEFAULT, True),
    ("nothing scheduled, resources requested, differently sized nodes", cpu_and_memory(),
     [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], [87, 100], DEFAULT, True),
    ("resources requested, pods scheduled with resources", cpu_and_memory(),
     [node("node1", 10000, 20000), node("node2", 10000, 20000)], [cpu_only(), cpu_and_memory()], [82, 95], DEFAULT, True),
    ("resources requested, pods scheduled with resources, differently sized nodes", cpu_and_memory(),
     [node("node1", 10000, 20000), node("node2", 10000, 50000)], [cpu_only(), cpu_and_memory()], [82, 80], DEFAULT, True),
    ("requested resources at node capacity", cpu_only(),
     [node("node1", 6000, 10000), node("node2", 6000, 10000)], [cpu_only(), cpu_and_memory()], [50, 75], DEFAULT, True),
    ("include scalar resource on a node for balanced resource allocation", make_pod(reqs=[{"memory": "0", "nvidia.com/gpu": "1"}]),
     [node("node1", 3500, 40000, GPU8), node("node2", 3500, 40000, GPU8)], [cpu_and_memory(), cpu_and_memory_and_gpu()],
     [70, 65], WITH_GPU, True),
    ("node without the scalar resource should skip the scalar resource", cpu_and_memory(),
     [node("node1", 3500, 40000, GPU8), node("node2", 3500, 40000)], [], [63, 63], WITH_GPU, True),
    ("resources requested, pods scheduled with resources if PreScore not called", cpu_and_memory(),
     [node("node1", 10000, 20000), node("node2", 10000, 20000)], [cpu_only(), cpu_and_memory()], [82, 95], DEFAULT, False),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want,resources,run_pre_score", CASES, ids=[c[0] for c in CASES])
def test_balanced_allocation(name, pod, nodes, existing, want, resources, run_pre_score):  # type: ignore[no-untyped-def]
    h = PluginHarness("NodeResourcesBalancedAllocation", {"resources": resources}, nodes, existing)
    if run_pre_score:
        assert h.score(pod) == want
        return
    pl = h.fw.plugin("NodeResourcesBalancedAllocation")
    pi = PodInfo(pod)
    rows = np.array([h.table.name_to_row[n] for n in h.node_names], dtype=np.intp)
    assert pl.score_batch(CycleState(pi), pi, rows).tolist() == want  # type: ignore[union-attr]
