"""Hypothesis strategies for valid KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) documents.

Valid as kube-scheduler v1.34 validates them (pkg/scheduler/apis/config/validation:
validation.go and validation_pluginargs.go): profiles with distinct scheduler names and the
same queueSort, score weights in 1..100, plugin args within their bounds,
percentageOfNodesToScore in 0..100.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

__all__ = ["scheduler_configs"]

Obj = dict[str, Any]

SCORE_PLUGINS = ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
                 "NodeResourcesBalancedAllocation", "ImageLocality")
FILTER_PLUGINS = ("NodeUnschedulable", "NodePorts", "TaintToleration", "NodeAffinity", "PodTopologySpread",
                  "InterPodAffinity", "VolumeRestrictions", "VolumeZone")
RESOURCES = ("cpu", "memory")


def _resources(draw: st.DrawFn) -> list[Obj]:
    names = draw(st.lists(st.sampled_from(RESOURCES), unique=True, min_size=1, max_size=2))
    return [{"name": n, "weight": draw(st.integers(1, 100))} for n in names]


def _scoring_strategy(draw: st.DrawFn) -> Obj:
    kind = draw(st.sampled_from(("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")))
    strategy: Obj = {"type": kind, "resources": _resources(draw)}
    if kind == "RequestedToCapacityRatio":
        utilizations = draw(st.lists(st.integers(0, 100), unique=True, min_size=1, max_size=4))
        strategy["requestedToCapacityRatio"] = {"shape": [
            {"utilization": u, "score": draw(st.integers(0, 10))} for u in sorted(utilizations)]}
    return strategy


def _plugin_config(draw: st.DrawFn) -> list[Obj]:
    chosen = draw(st.lists(st.sampled_from(("NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
                                            "DefaultPreemption", "NodeResourcesBalancedAllocation")),
                           unique=True, max_size=3))
    out = []
    for name in chosen:
        if name == "NodeResourcesFit":
            args: Obj = {"scoringStrategy": _scoring_strategy(draw)}
        elif name == "PodTopologySpread":
            if draw(st.booleans()):
                args = {"defaultingType": "System"}
            else:
                args = {"defaultingType": "List", "defaultConstraints": [
                    {"maxSkew": draw(st.integers(1, 5)), "topologyKey": key,
                     "whenUnsatisfiable": draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway")))}
                    for key in draw(st.lists(st.sampled_from(("topology.kubernetes.io/zone", "kubernetes.io/hostname")),
                                             unique=True, max_size=2))]}
        elif name == "InterPodAffinity":
            args = {"hardPodAffinityWeight": draw(st.integers(0, 100))}
        elif name == "DefaultPreemption":
            args = {"minCandidateNodesPercentage": draw(st.integers(1, 100)),
                    "minCandidateNodesAbsolute": draw(st.integers(0, 1000))}
        else:  # validateResources: Balanced Allocation's weights must be 1
            args = {"resources": [{"name": r["name"], "weight": 1} for r in _resources(draw)]}
        out.append({"name": name, "args": args})
    return out


def _plugins(draw: st.DrawFn) -> Obj:
    plugins: Obj = {}
    score_disabled = draw(st.lists(st.sampled_from(SCORE_PLUGINS), unique=True, max_size=3))
    score_enabled = [{"name": n, "weight": draw(st.integers(1, 100))}
                     for n in draw(st.lists(st.sampled_from([p for p in SCORE_PLUGINS if p not in score_disabled]),
                                            unique=True, max_size=3))]
    if draw(st.booleans()):
        score_disabled = ["*"]
    score: Obj = {}
    if score_enabled:
        score["enabled"] = score_enabled
    if score_disabled:
        score["disabled"] = [{"name": n} for n in score_disabled]
    if score:
        plugins["score"] = score
    filters_off = draw(st.lists(st.sampled_from(FILTER_PLUGINS), unique=True, max_size=2))
    if filters_off:
        plugins["filter"] = {"disabled": [{"name": n} for n in filters_off]}
    if draw(st.booleans()):
        plugins["multiPoint"] = {"enabled": [{"name": "NodeResourcesFit", "weight": draw(st.integers(1, 100))}]}
    return plugins


@st.composite
def scheduler_configs(draw: st.DrawFn) -> Obj:
    """A valid configuration with 1..3 profiles (the first is default-scheduler, used by every pod)."""
    profiles = []
    for i in range(draw(st.integers(1, 3))):
        profile: Obj = {"schedulerName": "default-scheduler" if i == 0 else f"scheduler-{i}"}
        plugins = _plugins(draw)
        if plugins:
            profile["plugins"] = plugins
        config = _plugin_config(draw)
        if config:
            profile["pluginConfig"] = config
        if draw(st.booleans()):
            profile["percentageOfNodesToScore"] = draw(st.integers(0, 100))
        profiles.append(profile)
    doc: Obj = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                "profiles": profiles}
    if draw(st.booleans()):
        doc["percentageOfNodesToScore"] = draw(st.integers(0, 100))
    if draw(st.booleans()):
        initial = draw(st.integers(1, 10))
        doc["podInitialBackoffSeconds"] = initial
        doc["podMaxBackoffSeconds"] = draw(st.integers(initial, 60))
    return doc
