"""NodeCost and NodeCostBatch in a framework built with kubesim_scheduler.testing."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from kubesim_custom_score_example import MAX_COST, NodeCost, NodeCostBatch
from kubesim_scheduler.testing import (
    PluginTestFramework,
    Scores,
    default_plugins,
    new_framework,
    register_plugin,
    register_score_plugin,
)

KEY = "example.com/cost"


def node(name: str, cost: str | None, cpu: str = "4", labels: dict[str, str] | None = None) -> dict[str, Any]:
    res = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    all_labels = {"kubernetes.io/hostname": name, **(labels or {})}
    if cost is not None:
        all_labels[KEY] = cost
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": all_labels},
            "status": {"allocatable": dict(res), "capacity": dict(res)}}


def pod(name: str, node_name: str = "", cpu: str = "500m") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": spec}


PLUGINS = {"NodeCost": NodeCost, "NodeCostBatch": NodeCostBatch}


def framework(score: dict[str, int], args: dict[str, Any] | None = None, default_profile: bool = False,
              nodes: Sequence[dict[str, Any]] = ()) -> PluginTestFramework:
    """The plugins in `score` (name -> weight) with NodeResourcesFit, or added to the default profile."""
    base = default_plugins() if default_profile else [register_plugin("NodeResourcesFit")]
    under_test = [register_score_plugin(PLUGINS[name], weight=w, args=args) for name, w in score.items()]
    return new_framework([*base, *under_test], nodes)


def scores(fw: PluginTestFramework, p: dict[str, Any]) -> dict[str, dict[str, Scores]]:
    out = fw.score(p)
    assert isinstance(out, dict), out
    return out


def test_both_interfaces_give_identical_scores_on_random_clusters() -> None:
    rng = random.Random(4)
    for trial in range(30):
        fw = framework({"NodeCost": 1, "NodeCostBatch": 1},
                       {"labelKey": KEY, "defaultCost": rng.choice([0, 7, 100, MAX_COST])})
        names = [f"n{i}" for i in range(rng.randrange(1, 25))]
        for n in names:
            cost = rng.choice([None, "0", "1", "5", "42", "999", "abc", "1e3", str(MAX_COST), str(MAX_COST + 1)])
            fw.add_node(node(n, cost))
        for i in range(rng.randrange(5)):  # a relabelled node: the batch cache must follow
            fw.add_node(node(rng.choice(names), str(rng.randrange(200))))
        got = scores(fw, pod(f"p{trial}"))
        assert sorted(got) == sorted(names)
        for per in got.values():
            assert per["NodeCost"] == per["NodeCostBatch"]


def test_cheapest_node_scores_100_and_the_most_expensive_0() -> None:
    fw = framework({"NodeCost": 2}, nodes=[node(n, c) for n, c in (("a", "30"), ("b", "10"), ("c", None), ("d", "20"))])
    got = {n: per["NodeCost"] for n, per in scores(fw, pod("p")).items()}
    # defaultCost 100 for c; reverse DefaultNormalizeScore: 100 - 100*cost/100; weight 2
    assert got == {"a": (30, 70, 140), "b": (10, 90, 180), "c": (100, 0, 0), "d": (20, 80, 160)}
    assert fw.schedule(pod("p")) == "b"


@pytest.mark.parametrize(("costs", "normalized"), [
    (("0", "0"), [100, 100]),  # nothing costs anything: all best
    (("7", "7"), [0, 0]),  # all as expensive as the most expensive
    (("0", "9"), [100, 0]),
])
def test_normalisation_edges(costs: tuple[str, str], normalized: list[int]) -> None:
    for plugin in ("NodeCost", "NodeCostBatch"):
        fw = framework({plugin: 1}, nodes=[node("x", costs[0]), node("y", costs[1])])
        got = scores(fw, pod("p"))
        assert [got[n][plugin].normalized for n in ("x", "y")] == normalized


def test_placements_follow_the_cost_and_capacity() -> None:
    fw = framework({"NodeCost": 1}, {"defaultCost": 50},
                   nodes=[node("cheap", "1", cpu="1"), node("dear", "40", cpu="8"), node("plain", None, cpu="8")])
    placed = []
    for i in range(3):
        chosen = fw.schedule(pod(f"p{i}", cpu="500m"))
        assert chosen is not None
        fw.add_pod(pod(f"p{i}", node_name=chosen, cpu="500m"))
        placed.append(chosen)
    assert placed == ["cheap", "cheap", "dear"]  # cheap is full after two pods


def test_a_custom_label_key() -> None:
    fw = framework({"NodeCostBatch": 1}, {"labelKey": "team.example/price"},
                   nodes=[node("a", "1", labels={"team.example/price": "9"}), node("b", "9", labels={"team.example/price": "3"})])
    assert fw.schedule(pod("p")) == "b"


def test_added_to_the_default_profile_it_moves_the_pod() -> None:
    # two free nodes: the default plugins prefer the bigger one, NodeCost the cheaper
    for score, expected in (({}, "big"), ({"NodeCost": 1}, "small")):
        fw = framework(score, {"defaultCost": 50}, default_profile=True,
                       nodes=[node("big", "30", cpu="32"), node("small", "10", cpu="4")])
        assert fw.schedule(pod("p", cpu="1")) == expected
        assert ("NodeCost" in scores(fw, pod("p", cpu="1"))["big"]) == bool(score)


@pytest.mark.parametrize(("args", "message"), [
    ({"labelKey": ""}, "labelKey: Invalid value: '': must be a non-empty label key"),
    ({"defaultCost": -1}, "defaultCost: Invalid value: -1: must be an integer from 0 to 1000000000"),
    ({"defaultCost": "5"}, "defaultCost: Invalid value: '5': must be an integer from 0 to 1000000000"),
    ({"defaultCost": True}, "defaultCost: Invalid value: True: must be an integer"),
    ({"cost": 1}, "cost: unknown field (expected one of labelKey, defaultCost)"),
])
def test_bad_args_name_the_field(args: dict[str, Any], message: str) -> None:
    for plugin in (NodeCost, NodeCostBatch):
        with pytest.raises(ValueError) as info:
            framework({plugin.name: 1}, args)
        assert f"initializing plugin {plugin.name!r}: " in str(info.value)
        assert message in str(info.value)
