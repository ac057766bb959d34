"""How the engine publishes results: JSON built once per event, equal to a full conversion."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubesim.api import API_VERSION, ScenarioPhase, ScenarioStep, unstructure
from kubesim.api.loader import load_scenarios
from kubesim.api.operations import CreateOperation, ScenarioOperation
from kubesim.plugins import Hooks, load_plugins
from kubesim.scenario import EngineOptions, ScenarioRun, Simulator, TimelineRecorder, gate

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture
def testplugin() -> Iterator[types.ModuleType]:
    sys.path.insert(0, str(DATA / "plugins"))
    import kubesim_testplugin

    yield kubesim_testplugin
    sys.path.remove(str(DATA / "plugins"))


def hooks_with(*modules: types.ModuleType) -> Hooks:
    return load_plugins(extra=modules, entry_points=False)


@pytest.mark.parametrize("strategy", ["AtMovingNextStep", "OnPause", "OnDone"])
def test_published_status_and_to_json_equal_a_full_conversion(testplugin: types.ModuleType, strategy: str) -> None:
    [scenario] = load_scenarios(DATA / "scenarios" / "marker.yaml")
    sim = Simulator(hooks_with(testplugin), EngineOptions(update_strategy=strategy))
    [result] = sim.run([scenario])
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    run = sim.runs[0]
    full = unstructure(result)
    assert run.to_json() == full
    stored = run.cluster.get(API_VERSION, "Scenario", "marker")
    assert stored["status"] == full["status"]
    assert stored["spec"] == full["spec"]
    assert sum(len(v) for v in full["status"]["scenarioResult"]["timeline"].values()) == run.timeline.event_count() > 3


def test_results_share_the_objects_and_leave_the_scenario_as_given(testplugin: types.ModuleType) -> None:
    [scenario] = load_scenarios(DATA / "scenarios" / "marker.yaml")
    given = unstructure(scenario)
    sim = Simulator(hooks_with(testplugin), EngineOptions())
    [result] = sim.run([scenario])
    run = sim.runs[0]
    assert unstructure(result)["metadata"] == given["metadata"]  # the cluster's uid etc. did not leak in
    objects = [op.get("createOperation", {}).get("object") for op in unstructure(result)["spec"]["operations"]]
    assert objects == [op.get("createOperation", {}).get("object") for op in given["spec"]["operations"]]
    stored = next(o for o in run.cluster.list(API_VERSION, "Scenario"))
    op = result.spec.operations[0].create_operation
    assert op is not None
    # one copy of each operation's object: the spec stored in the cluster and the timeline share it
    assert stored["spec"]["operations"][0]["createOperation"]["object"] is op.object
    first = run.to_json()["status"]["scenarioResult"]["timeline"]["0"][0]
    assert first["create"]["operation"]["object"] is op.object


def test_recorder_json_converts_each_event_once() -> None:
    step = ScenarioStep(0, 0)
    rec = TimelineRecorder(lambda: step)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}
    rec.record(id="a", actor="scenario", create=_create_result(cm))
    first = rec.json()
    rec.record(id="b", actor="scenario", create=_create_result(cm))
    second = rec.json()
    assert [e["id"] for e in first["0"]] == ["a"]
    assert [e["id"] for e in second["0"]] == ["a", "b"]
    assert second["0"][0] is first["0"][0]  # converted once, shared
    assert second["0"] is not first["0"]  # a new list each time: published lists never change
    assert second == {"0": [unstructure(e) for e in rec.timeline["0"]]}


def _create_result(obj: dict) -> object:
    from kubesim.api import CreateOperationResult

    return CreateOperationResult(CreateOperation(obj), obj)


def test_invalid_initial_operations_fail_the_scenario(testplugin: types.ModuleType) -> None:
    [scenario] = load_scenarios(DATA / "scenarios" / "marker.yaml")
    for name in ("x", "y"):  # two operations with one id
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}
        scenario.spec.operations.insert(0, ScenarioOperation(step=0, id="dup", create_operation=CreateOperation(cm)))
    [result] = Simulator(hooks_with(testplugin)).run([scenario])
    assert result.status.phase == ScenarioPhase.FAILED
    assert result.status.message is not None and result.status.message.startswith("invalid operations: ")
    assert 'duplicate id "dup"' in result.status.message


def test_the_stored_spec_is_read_again_only_after_a_write_to_it(testplugin: types.ModuleType) -> None:
    [scenario] = load_scenarios(DATA / "scenarios" / "marker.yaml")
    scenario.spec.operations.pop()  # no done: the run pauses after step 1
    run = ScenarioRun(scenario, hooks_with(testplugin), EngineOptions())
    run.start()
    assert run.phase == ScenarioPhase.PAUSED
    before = run.scenario.spec
    run._operations()
    assert run.scenario.spec is before  # status writes do not count as spec changes
    run.add_operations([ScenarioOperation(step=2, id="more", create_operation=CreateOperation(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}))])
    assert [op.id for op in run.scenario.spec.operations][-1] == "more"
    run.close()


def test_a_pod_retried_unchanged_is_one_object_in_the_timeline() -> None:
    from kubesim.api import PodResult

    step = ScenarioStep(1, 0)
    rec = TimelineRecorder(lambda: step)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}}

    def unscheduled(obj: dict) -> dict:
        event = rec.record_pod("podUnscheduled", PodResult(obj, step), actor="scheduler")
        assert event.pod_unscheduled is not None
        return event.pod_unscheduled.pod

    first = unscheduled(pod)
    assert unscheduled({**pod, "status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}}) is first
    changed = {**pod, "status": {"phase": "Pending"}}
    assert unscheduled(changed) is changed  # a different pod is kept as it is
    rec.record_pod("podScheduled", PodResult(changed, step, bound_to="n1"), actor="scheduler")
    again = dict(changed)
    assert unscheduled(again) is again  # forgotten once scheduled
    written = rec.json()["1"]
    assert written[0]["podUnscheduled"]["pod"] is first
    # the retry names the pod the event before carries (a podRef), the changed pod is written whole
    assert "pod" not in written[1]["podUnscheduled"]
    assert written[1]["podUnscheduled"]["podRef"] == {"name": "p", "namespace": "default", "uid": "",
                                                      "resourceVersion": ""}
    assert written[2]["podUnscheduled"]["pod"] is changed
    unscheduled(changed)
    unscheduled(changed)
    later = rec.json()["1"]
    assert later[5]["podUnscheduled"]["podRef"] is later[6]["podUnscheduled"]["podRef"]  # one per pod, shared


def test_equal_pods_written_differently_are_not_shared() -> None:
    from kubesim.api import PodResult

    step = ScenarioStep(1, 0)
    rec = TimelineRecorder(lambda: step)
    first = {"metadata": {"name": "p", "namespace": "default"}, "spec": {"priority": 1}}
    for other in ({"spec": {"priority": 1}, "metadata": {"name": "p", "namespace": "default"}},  # member order
                  {"metadata": {"name": "p", "namespace": "default"}, "spec": {"priority": 1.0}}):  # 1 vs 1.0
        rec.record_pod("podUnscheduled", PodResult(first, step), actor="scheduler")
        event = rec.record_pod("podUnscheduled", PodResult(other, step), actor="scheduler")
        assert event.pod_unscheduled is not None and event.pod_unscheduled.pod is other


def test_recorder_json_gives_out_a_step_list_again_only_while_it_is_unchanged() -> None:
    step = ScenarioStep(0, 0)
    rec = TimelineRecorder(lambda: step)
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "default"}}
    rec.record(id="a", actor="scenario", create=_create_result(cm))
    first = rec.json()
    step = ScenarioStep(1, 0)
    rec.record(id="b", actor="scenario", create=_create_result(cm))
    second = rec.json()
    assert second["0"] is first["0"]  # step 0 has not changed: the same (never mutated) list
    assert [e["id"] for e in second["1"]] == ["b"]
