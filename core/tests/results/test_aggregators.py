"""The Aggregator protocol, the one-pass runner and aggregators registered by plugins."""

from __future__ import annotations

import types
from typing import Any

import pytest

from kubesim import hookimpl
from kubesim.api import Scenario
from kubesim.plugins import PluginError, load_plugins
from kubesim.results import (
    Aggregator,
    AggregatorError,
    ClusterState,
    Column,
    Table,
    TimelineEvent,
    aggregate,
    analyze,
)


class BindsPerNode:
    """Counts binds per node and records the pending pods at every step end."""

    name = "binds_per_node"

    def initial(self) -> dict[str, Any]:
        return {"binds": {}, "pending": []}

    def fold(self, acc: dict[str, Any], event: TimelineEvent, state: ClusterState) -> dict[str, Any]:
        if event.kind == "podScheduled" and event.pod_result is not None:
            node = event.pod_result.bound_to
            acc["binds"][node] = acc["binds"].get(node, 0) + 1
        elif event.kind == "stepEnd":
            acc["pending"].append((event.step.major, sorted(p.key for p in state.pending_pods())))
        return acc

    def table(self, acc: dict[str, Any]) -> Table:
        return Table(self.name, (Column("node", "str"), Column("binds", "int")), sorted(acc["binds"].items()))


def test_protocol_and_one_pass(small_result: Scenario) -> None:
    agg = BindsPerNode()
    assert isinstance(agg, Aggregator)
    seen: dict[str, Any] = {}

    class Spy(BindsPerNode):
        def table(self, acc: dict[str, Any]) -> Table:
            seen.update(acc)
            return super().table(acc)

    tables = aggregate(small_result, [Spy()])
    assert list(tables) == ["binds_per_node"]
    assert tables["binds_per_node"].rows == [("n1", 1), ("n3", 1)]
    assert seen["pending"] == [(0, []), (1, ["default/p2"]), (2, []), (3, []), (4, []), (5, [])]
    # the same instance serves a second result with a fresh accumulator
    assert aggregate(small_result, {"again": agg})["again"].rows == [("n1", 1), ("n3", 1)]


def test_plugin_hook_adds_tables(small_result: Scenario) -> None:
    plugin = types.ModuleType("binds_plugin")

    @hookimpl
    def kubesim_result_aggregators() -> dict[str, Any]:
        return {"binds": BindsPerNode()}

    plugin.kubesim_result_aggregators = kubesim_result_aggregators  # type: ignore[attr-defined]
    hooks = load_plugins(extra=[plugin], entry_points=False)
    tables = analyze(small_result, hooks=hooks)
    assert list(tables.tables) == ["pods", "nodes", "cluster", "plugins", "filter_reasons", "binds"]
    assert tables["binds"].rows == [("n1", 1), ("n3", 1)]


def test_plugin_aggregator_cannot_shadow_a_builtin_table(small_result: Scenario) -> None:
    plugin = types.ModuleType("shadow_plugin")

    @hookimpl
    def kubesim_result_aggregators() -> dict[str, Any]:
        return {"pods": BindsPerNode()}

    plugin.kubesim_result_aggregators = kubesim_result_aggregators  # type: ignore[attr-defined]
    with pytest.raises(AggregatorError, match="'pods' clashes with the built-in table"):
        analyze(small_result, hooks=load_plugins(extra=[plugin], entry_points=False))


def test_two_plugins_with_the_same_aggregator_name_conflict() -> None:
    mods = []
    for name in ("one", "two"):
        mod = types.ModuleType(name)

        @hookimpl
        def kubesim_result_aggregators() -> dict[str, Any]:
            return {"same": BindsPerNode()}

        mod.kubesim_result_aggregators = kubesim_result_aggregators  # type: ignore[attr-defined]
        mods.append(mod)
    hooks = load_plugins(extra=mods, entry_points=False)
    with pytest.raises(PluginError, match="result aggregator 'same' is registered by both"):
        hooks.result_aggregators()


def test_malformed_and_failing_aggregators_are_named(small_result: Scenario) -> None:
    class NoTable:
        name = "no_table"

        def initial(self) -> None:
            return None

        def fold(self, acc: None, event: TimelineEvent, state: ClusterState) -> None:
            return None

    with pytest.raises(AggregatorError, match=r"'no_table' .* has no method table"):
        aggregate(small_result, [NoTable()])  # type: ignore[list-item]

    class Boom(BindsPerNode):
        def fold(self, acc: dict[str, Any], event: TimelineEvent, state: ClusterState) -> dict[str, Any]:
            if event.kind == "podPreempted":
                raise ValueError("no preemptions please")
            return acc

    with pytest.raises(AggregatorError) as info:
        aggregate(small_result, {"boom": Boom()})
    raise_line = next(i for i, line in enumerate(open(__file__, encoding="utf-8"), 1)
                      if 'raise ValueError("no preemptions please")' in line)
    assert str(info.value) == ('result aggregator "boom" (fold, on event event-6 at step 3/1) raised '
                               f"ValueError: no preemptions please at test_aggregators.py:{raise_line}")

    class NotATable(BindsPerNode):
        def table(self, acc: dict[str, Any]) -> Table:
            return acc  # type: ignore[return-value]

    with pytest.raises(AggregatorError, match="'nat' returned dict, not a Table"):
        aggregate(small_result, {"nat": NotATable()})


def test_analyze_with_only_custom_aggregators(small_result: Scenario) -> None:
    tables = analyze(small_result, aggregators={"binds": BindsPerNode()}, builtins=False)
    assert list(tables.tables) == ["binds"]
    with pytest.raises(KeyError, match="no table 'pods'"):
        tables["pods"]
