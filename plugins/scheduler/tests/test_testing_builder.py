"""kubesim_scheduler.testing: a framework with just the plugins under test."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from kubesim.plugins.crash import PluginCrashed
from scheduler_harness import make_node, make_pod

from kubesim_scheduler import api
from kubesim_scheduler.testing import (
    Scores,
    default_plugins,
    new_framework,
    register_filter_plugin,
    register_plugin,
    register_plugin_as_extensions,
    register_score_plugin,
)

NODES = [
    make_node("small", {"cpu": "1", "memory": "1Gi", "pods": "10"}, labels={"size": "s"}),
    make_node("big", {"cpu": "8", "memory": "8Gi", "pods": "10"}, labels={"size": "l"}),
]


class BySize(api.PreScorePlugin, api.ScorePlugin):
    """Scores a node by its 'size' label; PreScore skips pods labelled skip=yes."""

    name = "BySize"

    def pre_score(self, state: api.CycleState, pod: Mapping[str, Any], nodes: api.NodeInfoList) -> api.Status | None:
        if (pod.get("metadata") or {}).get("labels", {}).get("skip") == "yes":
            return api.Status(api.Code.SKIP)
        return None

    def score(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> int:
        return {"s": 10, "l": 40}[(node_info.node.get("metadata") or {}).get("labels", {}).get("size", "s")]


class OnlyBig(api.FilterPlugin):
    name = "OnlyBig"

    def filter(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> api.Status | None:
        return None if node_info.name == "big" else api.Status(api.Code.UNSCHEDULABLE, "not big")


class NeedsGate(api.PreFilterPlugin, api.FilterPlugin):
    """PreFilter rejects pods without the label gate=open."""

    name = "NeedsGate"

    def pre_filter(self, state: api.CycleState, pod: Mapping[str, Any],
                   nodes: api.NodeInfoList) -> tuple[api.PreFilterResult | None, api.Status | None]:
        if (pod.get("metadata") or {}).get("labels", {}).get("gate") == "open":
            return api.PreFilterResult({"big"}), None
        return None, api.Status(api.Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "gate closed")

    def filter(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> api.Status | None:
        return None


class OutOfRange(api.ScorePlugin):
    name = "OutOfRange"

    def score(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> int:
        return 150


class Crashes(api.FilterPlugin):
    name = "Crashes"

    def filter(self, state: api.CycleState, pod: Mapping[str, Any], node_info: api.NodeInfo) -> api.Status | None:
        return {"a": None}[node_info.name]


def test_a_plugin_exception_surfaces_naming_the_plugin() -> None:
    fw = new_framework([register_filter_plugin(Crashes)], NODES)
    with pytest.raises(PluginCrashed, match='scheduler plugin "Crashes" \\(Filter\\)') as info:
        fw.filter(make_pod())
    assert isinstance(info.value.error, KeyError)


def test_filter_gives_each_node_its_status_with_the_plugin_name() -> None:
    fw = new_framework([register_filter_plugin("NodeResourcesFit"), register_filter_plugin(OnlyBig)], NODES)
    got = fw.filter(make_pod(reqs=[{"cpu": "2"}]))
    assert list(got) == ["small", "big"]
    # 2 CPUs never fit a 1-CPU node: unresolvable (upstream fit.go, v1.34)
    assert got["small"] == api.Status(api.Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Insufficient cpu", plugin="NodeResourcesFit")
    assert got["big"] is None
    assert fw.filter(make_pod())["small"] == api.Status(api.Code.UNSCHEDULABLE, "not big", plugin="OnlyBig")
    assert fw.schedule(make_pod()) == "big"


def test_a_failed_prefilter_is_every_nodes_status() -> None:
    fw = new_framework([register_filter_plugin(NeedsGate)], NODES)
    result, status = fw.pre_filter(make_pod(labels={"gate": "open"}))
    assert result is not None and result.node_names == {"big"} and status is None
    result, status = fw.pre_filter(make_pod())
    assert result is None and status == api.Status(api.Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "gate closed", plugin="NeedsGate")
    got = fw.filter(make_pod())
    assert got == {"small": status, "big": status}


def test_score_gives_raw_normalized_and_weighted_scores() -> None:
    fw = new_framework([register_score_plugin(BySize, weight=3), register_score_plugin("NodeResourcesFit")], NODES)
    got = fw.score(make_pod(reqs=[{"cpu": "500m", "memory": "512Mi"}]))
    assert not isinstance(got, api.Status)
    assert got["small"]["BySize"] == Scores(10, 10, 30) and got["big"]["BySize"] == Scores(40, 40, 120)
    # LeastAllocated: (1000-500)*100/1000 = 50 and 50 for small; 93 and 93 for big
    assert got["small"]["NodeResourcesFit"] == (50, 50, 50)
    assert got["big"]["NodeResourcesFit"] == (93, 93, 93)
    assert set(fw.score(make_pod(labels={"skip": "yes"}))["big"]) == {"NodeResourcesFit"}  # type: ignore[index]
    assert fw.score(make_pod(), ["big"]).keys() == {"big"}  # type: ignore[union-attr]


def test_an_out_of_range_score_is_an_error_naming_the_plugin() -> None:
    fw = new_framework([register_score_plugin(OutOfRange)], NODES)
    got = fw.score(make_pod())
    assert isinstance(got, api.Status) and got.code == api.Code.ERROR
    assert 'plugin "OutOfRange" returns an invalid score 150' in got.message()


def test_registration_picks_the_extension_points() -> None:
    fw = new_framework([register_plugin_as_extensions("NodeResourcesFit", "filter")], NODES)
    assert fw.framework.plugin_names("filter") == ("NodeResourcesFit",)
    assert not fw.framework.plugin_names("preFilter") and not fw.framework.plugin_names("score")
    fw = new_framework([register_plugin("NodeResourcesFit", args={"scoringStrategy": {"type": "MostAllocated"}})], NODES)
    assert {p: list(fw.framework.plugin_names(p)) for p in ("preFilter", "filter", "preScore", "score")} == {
        p: ["NodeResourcesFit"] for p in ("preFilter", "filter", "preScore", "score")}
    assert isinstance(fw.plugin("NodeResourcesFit"), api.ScorePlugin)
    names = [r.plugin for r in default_plugins()]
    assert names[0] == "SchedulingGates" and "DefaultBinder" in names


def test_bad_registrations_say_what_was_expected() -> None:
    with pytest.raises(ValueError, match="extension point 'Filter': expected one of preEnqueue, queueSort"):
        register_plugin_as_extensions("NodeResourcesFit", "Filter")
    with pytest.raises(ValueError, match="plugin 'NoSuch' is not an in-tree plugin; register its class instead"):
        new_framework([register_plugin("NoSuch")])
    with pytest.raises(ValueError, match="plugin 'BySize': weight 0: expected a positive integer"):
        register_score_plugin(BySize, weight=0)
    with pytest.raises(ValueError, match="plugin 'OnlyBig' is registered twice"):
        new_framework([register_filter_plugin(OnlyBig), register_plugin(OnlyBig)])
    with pytest.raises(ValueError, match="plugin 'OnlyBig' does not implement the score extension point"):
        new_framework([register_plugin_as_extensions(OnlyBig, "score")])
    with pytest.raises(ValueError, match="initializing plugin 'NodeResourcesFit'"):
        new_framework([register_plugin("NodeResourcesFit", args={"scoringStrategy": {"type": "Nope"}})])
    fw = new_framework([register_filter_plugin(OnlyBig)], NODES)
    with pytest.raises(KeyError, match="node 'gone' is not in the fixture"):
        fw.filter(make_pod(), ["gone"])
    with pytest.raises(KeyError, match="plugin 'BySize' is not registered in this framework"):
        fw.plugin("BySize")
