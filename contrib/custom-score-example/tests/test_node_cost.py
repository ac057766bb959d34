"""NodeCost and NodeCostBatch through kubesim's scheduler framework."""

from __future__ import annotations

import random
from typing import Any

import pytest
from kubesim_custom_score_example import MAX_COST, NodeCost, NodeCostBatch
from kubesim_custom_score_example.hooks import kubesim_scheduler_plugins
from kubesim_scheduler import ProfileConfig, Scheduler, in_tree_registry
from kubesim_scheduler.framework import FrameworkError
from kubesim_scheduler.framework.profile_config import DEFAULT_MULTI_POINT

REGISTRY = {**in_tree_registry(), **kubesim_scheduler_plugins()}
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


def scheduler(score: dict[str, int], args: dict[str, Any] | None = None, default_plugins: bool = False) -> Scheduler:
    """A scheduler whose Score plugins are `score` (name -> weight), plus the defaults if asked."""
    multi_point = DEFAULT_MULTI_POINT if default_plugins else (
        ("PrioritySort", None), ("NodeResourcesFit", 1), ("DefaultBinder", None))
    base = ProfileConfig.from_multi_point(multi_point, REGISTRY, skip_unknown=True)
    plugins = dict(base.plugins)
    plugins["score"] = tuple(score) if not default_plugins else (*plugins["score"], *score)
    weights = dict(score) if not default_plugins else {**base.weights, **score}
    plugin_args = {name: args for name in score} if args is not None else {}
    return Scheduler([ProfileConfig(plugins=plugins, weights=weights, plugin_args=plugin_args)],
                     registry=REGISTRY, seed=1)


def test_both_interfaces_give_identical_scores_on_random_clusters() -> None:
    rng = random.Random(4)
    for trial in range(30):
        s = scheduler({"NodeCost": 1, "NodeCostBatch": 1},
                      {"labelKey": KEY, "defaultCost": rng.choice([0, 7, 100, MAX_COST])})
        names = [f"n{i}" for i in range(rng.randrange(1, 25))]
        for n in names:
            cost = rng.choice([None, "0", "1", "5", "42", "999", "abc", "1e3", str(MAX_COST), str(MAX_COST + 1)])
            s.add_node(node(n, cost))
        for i in range(rng.randrange(5)):  # a relabelled node: the batch cache must follow
            s.update_node(node(rng.choice(names), str(rng.randrange(200))))
        attempt = s.evaluate(pod(f"p{trial}"))
        triples = attempt.score_triples()
        assert triples, attempt.message()
        for per in triples.values():
            assert per["NodeCost"] == per["NodeCostBatch"]


def test_cheapest_node_scores_100_and_the_most_expensive_0() -> None:
    s = scheduler({"NodeCost": 2})
    for name, cost in (("a", "30"), ("b", "10"), ("c", None), ("d", "20")):
        s.add_node(node(name, cost))
    a = s.evaluate(pod("p"))
    got = {n: per["NodeCost"] for n, per in a.score_triples().items()}
    # defaultCost 100 for c; reverse DefaultNormalizeScore: 100 - 100*cost/100; weight 2
    assert got == {"a": (30, 70, 140), "b": (10, 90, 180), "c": (100, 0, 0), "d": (20, 80, 160)}
    assert a.node == "b"


@pytest.mark.parametrize(("costs", "normalized"), [
    (("0", "0"), [100, 100]),  # nothing costs anything: all best
    (("7", "7"), [0, 0]),  # all as expensive as the most expensive
    (("0", "9"), [100, 0]),
])
def test_normalisation_edges(costs: tuple[str, str], normalized: list[int]) -> None:
    for plugin in ("NodeCost", "NodeCostBatch"):
        s = scheduler({plugin: 1})
        s.add_node(node("x", costs[0]))
        s.add_node(node("y", costs[1]))
        triples = s.evaluate(pod("p")).score_triples()
        assert [triples[n][plugin][1] for n in ("x", "y")] == normalized


def test_placements_follow_the_cost_and_capacity() -> None:
    s = scheduler({"NodeCost": 1}, {"defaultCost": 50})
    s.add_node(node("cheap", "1", cpu="1"))
    s.add_node(node("dear", "40", cpu="8"))
    s.add_node(node("plain", None, cpu="8"))
    for i in range(3):
        s.add_pod(pod(f"p{i}", cpu="500m"))
    placed = [a.node for a in s.run()]
    assert placed == ["cheap", "cheap", "dear"]  # cheap is full after two pods


def test_a_custom_label_key() -> None:
    s = scheduler({"NodeCostBatch": 1}, {"labelKey": "team.example/price"})
    s.add_node(node("a", "1", labels={"team.example/price": "9"}))
    s.add_node(node("b", "9", labels={"team.example/price": "3"}))
    assert s.evaluate(pod("p")).node == "b"


def test_added_to_the_default_profile_it_moves_the_pod() -> None:
    # two free nodes: the default plugins prefer the bigger one, NodeCost the cheaper
    for score, expected in (({}, "big"), ({"NodeCost": 1}, "small")):
        s = scheduler(score, {"defaultCost": 50}, default_plugins=True)
        s.add_node(node("big", "30", cpu="32"))
        s.add_node(node("small", "10", cpu="4"))
        attempt = s.evaluate(pod("p", cpu="1"))
        assert attempt.node == expected
        assert ("NodeCost" in next(iter(attempt.score_triples().values()))) == bool(score)


@pytest.mark.parametrize(("args", "message"), [
    ({"labelKey": ""}, "labelKey: Invalid value: '': must be a non-empty label key"),
    ({"defaultCost": -1}, "defaultCost: Invalid value: -1: must be an integer from 0 to 1000000000"),
    ({"defaultCost": "5"}, "defaultCost: Invalid value: '5': must be an integer from 0 to 1000000000"),
    ({"defaultCost": True}, "defaultCost: Invalid value: True: must be an integer"),
    ({"cost": 1}, "cost: unknown field (expected one of labelKey, defaultCost)"),
])
def test_bad_args_name_the_field(args: dict[str, Any], message: str) -> None:
    for plugin in (NodeCost, NodeCostBatch):
        with pytest.raises(FrameworkError) as info:
            scheduler({plugin.name: 1}, args)
        assert f"initializing plugin {plugin.name!r}: " in str(info.value)
        assert message in str(info.value)
