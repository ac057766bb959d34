"""Simulated time (issue 14): the tick loop, --until, metrics by hand, frozen usage and submitters.

In-process runs with the installed scheduler and kubelet; a submitter plugin is registered
through pluggy in the test. Expected figures follow k8s-cluster-simulator's rules (reference
imperator-and-migration.md 2.1-2.4): usage of phase i over executed seconds [t_{i-1}, t_i),
metrics written when more than metricsTick has passed since the last write, node requests
and usage over running and terminating pods.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import attrs
import pytest
from kubesim import hookimpl
from kubesim.api import Scenario, ScenarioPhase, structure
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, Simulator
from kubesim.simtime import (
    FROZEN_AT_ANNOTATION,
    DeleteEvent,
    FreezeUsageEvent,
    SubmitEvent,
    SubmitterEvent,
    TerminateSubmitterEvent,
    Tick,
    UpdateEvent,
)
from kubesim.simtime.formats import format_json
from kubesim.simtime.options import MetricsSink, SimTimeOptions, Until

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
SIM_SPEC = "- seconds: 30\n  resourceUsage: {cpu: 1, memory: 1Gi}\n- seconds: 40\n  resourceUsage: {cpu: 2, memory: 3Gi}\n"


def _pod(name: str, *, cpu: str = "2", sim_spec: str | None = SIM_SPEC) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if sim_spec is not None:
        meta["annotations"] = {"simSpec": sim_spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {
                "requests": {"cpu": cpu, "memory": "4Gi"},
                "limits": {"cpu": str(max(3, int(cpu))), "memory": "4Gi"}}}]}}


def _scenario(*pods: dict[str, Any], simulated: dict[str, Any] | None = None) -> Scenario:
    ops: list[dict[str, Any]] = [{"step": 0, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}}}]
    ops += [{"step": 1, "createOperation": {"object": p}} for p in pods]
    spec: dict[str, Any] = {"operations": ops,
                            "controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}}
    if simulated is not None:
        spec["simulatedTime"] = simulated
    return structure({"apiVersion": API, "kind": "Scenario", "metadata": {"name": "t"}, "spec": spec}, Scenario)


def _run(scenario: Scenario, sim: SimTimeOptions | None = SimTimeOptions(), *plugins: object,
         seed: int = 0) -> Scenario:
    hooks = load_plugins(extra=plugins)
    options = EngineOptions(seed=seed, step_duration=timedelta(seconds=10), simulated_time=sim)
    [result] = Simulator(hooks, options).run([scenario])
    return result


def _metrics(result: Scenario) -> list[dict[str, Any]]:
    assert result.status.scenario_result is not None
    return result.status.scenario_result.metrics or []


def test_ticks_go_on_past_the_last_operation_until_the_pod_finishes() -> None:
    result = _run(_scenario(_pod("job-a")))
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    # bound at step 1 (t=10 s), 70 s of phases: Succeeded at t=80 s, the run ends after step 8
    assert result.status.step_status.step.major == 8
    records = _metrics(result)
    # written when more than metricsTick (= tick, 10 s) has passed since the last write: every 20 s
    assert [r["Clock"] for r in records] == ["2025-01-01T00:00:20Z", "2025-01-01T00:00:40Z",
                                             "2025-01-01T00:01:00Z", "2025-01-01T00:01:20Z"]
    first, second = records[0], records[1]
    assert first["Nodes"]["n1"] == {
        "Allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}, "RunningPodsNum": 1,
        "TerminatingPodsNum": 0, "FailedPodsNum": 0,
        "TotalResourceRequest": {"cpu": "2", "memory": "4Gi"}, "TotalResourceUsage": {"cpu": "1", "memory": "1Gi"}}
    assert first["Pods"]["default/job-a"] == {
        "ResourceRequest": {"cpu": "2", "memory": "4Gi"}, "ResourceLimit": {"cpu": "3", "memory": "4Gi"},
        "ResourceUsage": {"cpu": "1", "memory": "1Gi"}, "BoundAt": "2025-01-01T00:00:10Z", "Node": "n1",
        "ExecutedSeconds": 10, "Priority": 0, "Status": "Ok"}
    # executed 30 s: the first phase covers [0, 30), so the second phase's usage
    assert second["Pods"]["default/job-a"]["ExecutedSeconds"] == 30
    assert second["Nodes"]["n1"]["TotalResourceUsage"] == {"cpu": "2", "memory": "3Gi"}
    # finished pods are left out; the node uses nothing
    assert records[3]["Pods"] == {}
    assert records[3]["Nodes"]["n1"]["RunningPodsNum"] == 0
    assert records[3]["Queue"] == {"PendingPodsNum": 0}
    assert format_json(first).startswith('{"Clock":"2025-01-01T00:00:20Z","Nodes":{"n1":{"Allocatable":')
    # the result's tables: the pod counts until it finishes; node usage over time from the records
    from kubesim.results import analyze

    tables = analyze(result)
    assert [(r["step"], r["pods"]) for r in tables["nodes"].records()][-2:] == [(7, 1), (8, 0)]
    assert [(r["clock"][14:19], r["cpu_usage"], r["memory_usage"]) for r in tables["node_usage"].records()] == [
        ("00:20", 1000, 1 << 30), ("00:40", 2000, 3 << 30), ("01:00", 2000, 3 << 30), ("01:20", 0, 0)]
    assert [r["pending"] for r in tables["queue"].records()] == [0, 0, 0, 0]
    assert [(r["name"], r["executed_seconds"]) for r in tables["pod_metrics"].records()] == [
        ("job-a", 10), ("job-a", 30), ("job-a", 50)]


@pytest.mark.parametrize("sim_spec", ["- seconds: 0\n  resourceUsage: {cpu: 1}\n",
                                      "- seconds: 0\n  resourceUsage: {cpu: 1}\n- seconds: 0\n  resourceUsage: {cpu: 2}\n"])
def test_a_pod_whose_phases_all_last_no_time_finishes_at_the_next_tick(sim_spec: str) -> None:
    # it runs for an instant, as k8s-cluster-simulator's node sees it at its next tick (it used to
    # requeue itself at the same instant until the settle limit failed the step)
    result = _run(_scenario(_pod("blink", sim_spec=sim_spec)))
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    assert result.status.step_status.step.major == 2  # bound at step 1, Succeeded by the next tick


def test_until_a_step_and_until_a_duration() -> None:
    result = _run(_scenario(_pod("job-a")), SimTimeOptions(until=Until(step=3)))
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    assert result.status.step_status.step.major == 3
    result = _run(_scenario(_pod("job-a")), SimTimeOptions(until=Until(after=timedelta(seconds=45))))
    assert result.status.step_status.step.major == 4  # step 5 (50 s) would pass 45 s


def test_work_that_never_ends_fails_at_the_tick_limit() -> None:
    result = _run(_scenario(_pod("huge", cpu="100")), SimTimeOptions(max_ticks=5))
    assert result.status.phase == ScenarioPhase.FAILED
    assert result.status.message == ("simulated time: work left after 5 ticks (1 pending, 0 running and "
                                     "0 terminating pods); stop earlier with --until, or allow more with --max-ticks")


def test_the_scenario_turns_simulated_time_on_with_its_own_tick() -> None:
    scenario = _scenario(_pod("job-a"), simulated={"tick": "20s", "metricsTick": "30s",
                                                   "startClock": "2019-01-01T00:00:00+09:00"})
    result = _run(scenario, None)
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    # bound at step 1 (20 s), done at 90 s: step 5 (100 s) is the first to see it finished
    assert result.status.step_status.step.major == 5
    assert [r["Clock"] for r in _metrics(result)] == ["2019-01-01T00:00:40+09:00", "2019-01-01T00:01:20+09:00"]


class _Plugin:
    """A submitter plugin: submits, updates, freezes, deletes and terminates on given steps."""

    def __init__(self, plans: dict[str, dict[int, list[SubmitterEvent]]]) -> None:
        self.plans = plans
        self.calls: list[tuple[str, int, str | None]] = []

    @hookimpl
    def kubesim_submitters(self, runtime: Any) -> Sequence[Any]:
        plugin = self

        class _Submitter:
            def __init__(self, name: str) -> None:
                self.name = name

            def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
                plugin.calls.append((self.name, tick.step, tick.metrics["Clock"] if tick.metrics else None))
                return plugin.plans[self.name].get(tick.step, [])

        return [_Submitter(name) for name in sorted(self.plans, reverse=True)]


def test_submitters_run_each_tick_in_name_order_until_they_terminate() -> None:
    plugin = _Plugin({
        "b-second": {0: [], 2: [TerminateSubmitterEvent()]},
        "a-first": {1: [SubmitEvent(_pod("job-a"))], 3: [TerminateSubmitterEvent()]},
    })
    result = _run(_scenario(), SimTimeOptions(), plugin)
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    assert [c[:2] for c in plugin.calls] == [("a-first", 0), ("b-second", 0), ("a-first", 1), ("b-second", 1),
                                             ("a-first", 2), ("b-second", 2), ("a-first", 3)]
    # the metrics of the previous tick: none before the first tick ended
    assert [c[2] for c in plugin.calls[:3]] == [None, None, "2025-01-01T00:00:00Z"]
    # the pod the submitter created runs its 70 s from step 1: the run ends at step 8
    assert result.status.step_status.step.major == 8
    assert result.status.scenario_result is not None
    creates = [e for events in result.status.scenario_result.timeline.values() for e in events
               if e.create is not None and e.create.result["kind"] == "Pod"]
    assert [(e.actor, e.step.major) for e in creates] == [("submitter:a-first", 1)]


def test_an_update_replaces_a_pending_pod() -> None:
    plugin = _Plugin({"s": {1: [SubmitEvent(_pod("job-a", cpu="100"))],
                            2: [UpdateEvent("job-a", "default", _pod("job-a", cpu="1"))],
                            3: [TerminateSubmitterEvent()]}})
    result = _run(_scenario(), SimTimeOptions(), plugin)
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    pod = _metrics(result)[1]["Pods"]["default/job-a"]  # t=40 s
    assert (pod["BoundAt"], pod["ResourceRequest"]["cpu"]) == ("2025-01-01T00:00:20Z", "1")


def test_frozen_usage_then_a_delete_keeps_the_usage_while_terminating() -> None:
    plugin = _Plugin({"s": {1: [SubmitEvent(_pod("job-a"))], 4: [FreezeUsageEvent("job-a")],
                            7: [DeleteEvent("job-a")], 8: [TerminateSubmitterEvent()]}})
    result = _run(_scenario(), SimTimeOptions(metrics_tick=timedelta(seconds=5)), plugin)
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    by_clock = {r["Clock"][14:19]: r for r in _metrics(result)}
    # frozen at t=40 s after 30 s executed (phase 2): the phase stays, the executed seconds too
    for t in ("00:50", "01:00"):
        pod = by_clock[t]["Pods"]["default/job-a"]
        assert (pod["ExecutedSeconds"], pod["ResourceUsage"], pod["Status"]) == (30, {"cpu": "2", "memory": "3Gi"}, "Ok")
    # deleted at t=70 s: terminating for the 30 s grace period, usage still frozen
    for t in ("01:10", "01:20", "01:30"):
        node = by_clock[t]["Nodes"]["n1"]
        assert (node["RunningPodsNum"], node["TerminatingPodsNum"]) == (0, 1)
        assert node["TotalResourceUsage"] == {"cpu": "2", "memory": "3Gi"}
        assert by_clock[t]["Pods"]["default/job-a"]["Status"] == "Deleted"
    assert by_clock["01:40"]["Pods"] == {}  # gone at 100 s: the run ends
    assert result.status.step_status.step.major == 10
    assert result.status.scenario_result is not None
    patches = [e.patch.result for events in result.status.scenario_result.timeline.values() for e in events
               if e.patch is not None and e.actor == "submitter:s"]
    assert patches[0]["metadata"]["annotations"][FROZEN_AT_ANNOTATION] == "2025-01-01T00:00:40Z"


def test_metrics_lines_are_byte_identical_across_runs(tmp_path: Path) -> None:
    texts = []
    for i in range(2):
        out = tmp_path / f"m{i}.jsonl"
        plugin = _Plugin({"s": {1: [SubmitEvent(_pod("job-a")), SubmitEvent(_pod("job-b", cpu="1"))],
                                2: [TerminateSubmitterEvent()]}})
        _run(_scenario(_pod("job-c")), SimTimeOptions(metrics=(MetricsSink(str(out)),)), plugin, seed=7)
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    # job-b waits for cpu until job-a and job-c end at 80 s, then runs 70 s: written every 20 s
    assert texts[0].count(b"\n") == 7 and b'"default/job-b"' in texts[0]


def test_a_submitter_submits_pods_only() -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}
    result = _run(_scenario(), SimTimeOptions(), _Plugin({"s": {0: [SubmitEvent(deployment)]}}))
    assert result.status.phase == ScenarioPhase.FAILED
    assert result.status.message == ('submitter "s": event 0 (SubmitEvent): submitters submit pods '
                                     "(apiVersion v1, kind Pod), got apps/v1 Deployment")


def test_a_submitter_that_raises_fails_the_scenario_naming_it() -> None:
    class _Boom(_Plugin):
        @hookimpl
        def kubesim_submitters(self, runtime: Any) -> Sequence[Any]:
            class _S:
                name = "boom"

                def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
                    raise RuntimeError("no jobs file")

            return [_S()]

    result = _run(_scenario(), SimTimeOptions(), _Boom({}))
    assert result.status.phase == ScenarioPhase.FAILED
    assert (result.status.message or "").startswith('submitter "boom" raised RuntimeError: no jobs file')


@pytest.mark.parametrize(("field", "value", "message"), [
    ("tick", "ten", "spec.simulatedTime.tick"),
    ("until", "soon", "spec.simulatedTime.until"),
    ("maxTicks", 0, "spec.simulatedTime.maxTicks: must be 1 or more, got 0"),
])
def test_bad_simulated_time_fields_are_named(field: str, value: Any, message: str) -> None:
    from kubesim.api.validation import validate_scenario

    problems = validate_scenario(_scenario(simulated={field: value}))
    assert any(str(p).startswith(message) for p in problems), problems


def test_a_pod_bound_past_the_nodes_capacity_is_over_capacity() -> None:
    bound = _pod("pinned", cpu="3")
    bound["spec"]["nodeName"] = "n1"  # bound without the scheduler, next to job-a's 2 cpu on a 4-cpu node
    plugin = _Plugin({"s": {2: [SubmitEvent(bound)], 3: [TerminateSubmitterEvent()]}})
    result = _run(_scenario(_pod("job-a")), SimTimeOptions(), plugin)
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    record = _metrics(result)[0]  # t=20 s
    assert record["Nodes"]["n1"]["FailedPodsNum"] == 1
    assert record["Nodes"]["n1"]["TotalResourceRequest"] == {"cpu": "2", "memory": "4Gi"}
    pinned = record["Pods"]["default/pinned"]
    assert (pinned["Status"], pinned["ExecutedSeconds"], pinned["ResourceUsage"]) == ("OverCapacity", 0, {})
    assert result.status.scenario_result is not None
    [rejected] = [e.patch.result["status"] for events in result.status.scenario_result.timeline.values()
                  for e in events if e.patch is not None and e.actor == "kubelet"
                  and e.patch.result["metadata"]["name"] == "pinned"]
    assert (rejected["phase"], rejected["reason"]) == ("Failed", "OutOfcpu")
    assert rejected["message"] == ("Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, "
                                   "used: 2000, capacity: 4000")


class _RandomJobs:
    """Submits one job with a random duration each of the first three ticks, then terminates."""

    name = "random-jobs"

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        if tick.step >= 3:
            return [TerminateSubmitterEvent()]
        seconds = tick.rng.randint(10, 100)
        spec = f"- seconds: {seconds}\n  resourceUsage: {{cpu: 100m}}\n"
        return [SubmitEvent(_pod(f"job-{tick.step}-{seconds}", cpu="1", sim_spec=spec))]


class _RandomPlugin:
    @hookimpl
    def kubesim_submitters(self, runtime: Any) -> Sequence[Any]:
        return [_RandomJobs()]


def _names(seed: int) -> list[str]:
    result = _run(_scenario(), SimTimeOptions(), _RandomPlugin(), seed=seed)
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    return sorted({key for record in _metrics(result) for key in record["Pods"]})


def test_a_submitters_random_numbers_follow_the_seed() -> None:
    first = _names(7)
    assert len(first) == 3
    assert _names(7) == first
    assert _names(8) != first


def test_two_plugins_with_the_same_submitter_name_are_an_error() -> None:
    from kubesim.plugins import PluginError
    from kubesim.controllers import Runtime

    hooks = load_plugins(extra=[_RandomPlugin(), _RandomPlugin()], entry_points=False)
    with pytest.raises(PluginError, match="submitter 'random-jobs' is registered by both"):
        hooks.submitters(Runtime.standalone())


def test_what_the_command_line_gives_wins_over_the_scenario() -> None:
    scenario = _scenario(_pod("job-a"), simulated={"tick": "20s", "until": "3"})
    result = _run(scenario, SimTimeOptions(tick=timedelta(seconds=5), until=Until(step=4)))
    assert result.status.step_status.step.major == 4
    assert [r["Clock"] for r in _metrics(result)] == ["2025-01-01T00:00:10Z", "2025-01-01T00:00:20Z"]


def test_the_tick_limit_holds_while_operations_are_left_too() -> None:
    scenario = _scenario()
    far = structure({"step": 10**6, "doneOperation": {}}, type(scenario.spec.operations[0]))
    scenario = attrs.evolve(scenario, spec=attrs.evolve(scenario.spec, operations=[*scenario.spec.operations, far]))
    result = _run(scenario, SimTimeOptions(max_ticks=3))
    assert result.status.phase == ScenarioPhase.FAILED
    assert (result.status.message or "").startswith("simulated time: work left after 3 ticks (operations for later")
