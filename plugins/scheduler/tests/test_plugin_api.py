"""The stable plugin API: kubesim_scheduler.api's names, the read-only views, NodeColumns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from scheduler_harness import make_node, make_pod

import kubesim_scheduler
from kubesim_scheduler import api
from kubesim_scheduler.framework import Handle, NodeTable, PodInfo
from kubesim_scheduler.framework.waiting_pods import WaitingPod
from kubesim_scheduler.testing import new_framework, register_plugin, register_score_plugin

API_NAMES = [
    "Plugin", "PreEnqueuePlugin", "QueueSortPlugin", "EnqueueExtensions", "PreFilterPlugin",
    "PreFilterExtensions", "FilterPlugin", "BatchFilterPlugin", "PostFilterPlugin", "PreScorePlugin",
    "ScorePlugin", "BatchScorePlugin", "ReservePlugin", "PermitPlugin", "PreBindPlugin", "BindPlugin",
    "PostBindPlugin", "Code", "Status", "CycleState", "StateNotFound", "NodeScore", "MAX_NODE_SCORE",
    "MIN_NODE_SCORE", "PreFilterResult", "BatchFilterResult", "PostFilterResult", "NominatingInfo",
    "NodeInfo", "NodeInfoList", "PodInfo", "Resource", "ImageStateSummary", "WaitingPod", "NodeColumns",
    "LabelColumnView", "Handle",
]


def test_the_api_module_lists_exactly_the_stable_names() -> None:
    assert api.__all__ == API_NAMES
    for name in API_NAMES:
        assert getattr(api, name) is not None


def test_the_package_exports_the_api_and_the_scheduler_entry_point() -> None:
    assert kubesim_scheduler.__all__ == [*API_NAMES, "Scheduler"]
    for name in API_NAMES:
        assert getattr(kubesim_scheduler, name) is getattr(api, name)
    # the runtime stays importable for the package's own modules and its tests
    from kubesim_scheduler import ProfileConfig, in_tree_registry  # noqa: F401


def test_runtime_objects_implement_the_views() -> None:
    table = NodeTable()
    table.add_node(make_node("n1", {"cpu": "2", "memory": "1Gi", "pods": "10"}))
    pod = make_pod("p", node="n1", reqs=[{"cpu": "500m"}])
    pi = PodInfo(pod)
    table.add_pod(pi)
    handle = Handle(table)
    assert isinstance(handle, api.Handle)
    node_info = handle.get_node_info("n1")
    assert isinstance(node_info, api.NodeInfo)
    assert isinstance(pi, api.PodInfo)
    assert isinstance(node_info.requested, api.Resource)
    assert isinstance(WaitingPod(pod, {"P": 1.0}, 0.0), api.WaitingPod)
    assert node_info.requested.milli_cpu == 500 and node_info.allocatable.milli_cpu == 2000
    assert [p.name for p in node_info.pods] == ["p"]


def _fixture() -> tuple[Any, api.NodeColumns]:
    fw = new_framework([register_plugin("NodeResourcesFit")], [
        make_node("a", {"cpu": "4", "memory": "8Gi", "pods": "10", "example.com/gpu": "2"}, labels={"zone": "z1"}),
        make_node("b", {"cpu": "2", "memory": "4Gi", "pods": "5"}, labels={"zone": "z2", "disk": "ssd"}),
    ], [make_pod("p1", node="a", reqs=[{"cpu": "1", "example.com/gpu": "1"}]), make_pod("p2", node="a", reqs=[None])])
    return fw, fw.handle.node_columns


def test_node_columns_give_names_resources_and_labels_per_row() -> None:
    fw, cols = _fixture()
    a, b = cols.row_of("a"), cols.row_of("b")
    assert a is not None and b is not None and cols.row_of("missing") is None
    assert sorted(cols.names[cols.rows].tolist()) == ["a", "b"]
    rows = np.array([a, b])
    assert cols.allocatable("cpu")[rows].tolist() == [4000, 2000]
    assert cols.allocatable("memory")[rows].tolist() == [8 * 2**30, 4 * 2**30]
    assert cols.allocatable("pods")[rows].tolist() == [10, 5]
    assert cols.allocatable("example.com/gpu")[rows].tolist() == [2, 0]
    assert cols.allocatable("example.com/never-seen")[rows].tolist() == [0, 0]
    assert cols.requested("cpu")[rows].tolist() == [1000, 0]
    assert cols.requested("example.com/gpu")[rows].tolist() == [1, 0]
    assert cols.requested("pods")[rows].tolist() == [2, 0]
    # the container without requests counts 100m / 200Mi in the non-zero sums
    assert cols.non_zero_requested("cpu")[rows].tolist() == [1100, 0]
    zone = cols.label("zone")
    assert [zone.values[c] for c in zone.codes[rows]] == ["z1", "z2"]
    disk = cols.label("disk")
    assert disk.codes[rows].tolist() == [-1, disk.values.index("ssd")]
    assert cols.label("nowhere").codes[rows].tolist() == [-1, -1]
    assert dict(cols.labels(b)) == {"zone": "z2", "disk": "ssd"}


def test_node_columns_follow_changes_and_refuse_writes() -> None:
    fw, cols = _fixture()
    a = cols.row_of("a")
    before = cols.generation
    fw.add_pod(make_pod("p3", node="a", reqs=[{"cpu": "2"}]))
    assert cols.generation > before
    assert cols.requested("cpu")[a] == 3000
    with pytest.raises(ValueError, match="read-only"):
        cols.requested("cpu")[a] = 0
    with pytest.raises(ValueError, match="read-only"):
        cols.label("zone").codes[a] = 5
    with pytest.raises(TypeError):
        cols.labels(a)["zone"] = "z9"  # type: ignore[index]
    with pytest.raises(ValueError, match="non_zero_requested: resource 'pods': expected one of cpu, memory"):
        cols.non_zero_requested("pods")
    fw.add_node(make_node("a", {"cpu": "4", "memory": "8Gi", "pods": "10"}, labels={"zone": "z3"}))
    zone = cols.label("zone")
    assert zone.values[zone.codes[a]] == "z3"


class _CacheReader(api.ScorePlugin):
    """Keeps its memo in pod_info.cache under its name and reads every key as a string."""

    name = "CacheReader"

    def score(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> int:
        pi = self.handle.pod_info(pod)
        pi.cache.setdefault(self.name, len(node_info.pods))
        return sum(1 for key in pi.cache if key.startswith(self.name))


def test_pod_info_cache_holds_only_plugin_keys() -> None:
    # framework/pod_info.py used to memoise score requests in `cache` under a tuple key: a
    # plugin treating cache keys as the plugin names they are documented to be crashed
    fw = new_framework(
        [register_plugin("NodeResourcesFit"), register_plugin("NodeResourcesBalancedAllocation"),
         register_score_plugin(_CacheReader)],
        [make_node("n", {"cpu": "4", "memory": "8Gi", "pods": "10"})],
    )
    pod = make_pod("p", reqs=[{"cpu": "1"}])
    pi = fw.handle.pod_info(pod)
    assert pi.cache == {}
    pi_real = fw.framework.handle.pod_info(pod)
    assert isinstance(pi_real, PodInfo)
    assert pi_real.score_request("cpu", False) == 1000 and pi_real.score_request("memory", False) == 200 * 2**20
    assert all(isinstance(k, str) for k in pi.cache)
    scores = fw.score(pod)
    assert not isinstance(scores, api.Status), scores
    assert scores["n"]["CacheReader"].raw == 1
