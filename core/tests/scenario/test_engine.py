"""The scenario engine through its Python API: result strategies, added operations, failures."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesim import Controller, ControllerWaiter, hookimpl
from kubesim.api import ScenarioOperation, ScenarioPhase, structure
from kubesim.api.loader import load_scenarios
from kubesim.api.operations import CreateOperation, DoneOperation
from kubesim.plugins import Hooks, load_plugins
from kubesim.scenario import EngineOptions, ScenarioRun, Simulator, gate

DATA = Path(__file__).parents[1] / "data"


@pytest.fixture
def testplugin() -> Iterator[types.ModuleType]:
    sys.path.insert(0, str(DATA / "plugins"))
    import kubesim_testplugin

    yield kubesim_testplugin
    sys.path.remove(str(DATA / "plugins"))


def hooks_with(*modules: types.ModuleType) -> Hooks:
    return load_plugins(extra=modules, entry_points=False)


def marker_scenario(with_done: bool = True) -> Any:
    [scenario] = load_scenarios(DATA / "scenarios" / "marker.yaml")
    if not with_done:
        scenario.spec.operations.pop()
    return scenario


@pytest.mark.parametrize(
    ("strategy", "seen"),
    [("AtMovingNextStep", [[], ["0"], ["0", "1"]]), ("OnPause", [[], [], []]), ("OnDone", [[], [], []])],
)
def test_update_results_strategy_controls_the_in_cluster_result(
    testplugin: types.ModuleType, strategy: str, seen: list[list[str]]
) -> None:
    observed: list[list[str]] = []

    def on_step(run: ScenarioRun) -> None:
        obj = run.cluster.get("simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "Scenario", "marker")
        observed.append(sorted(obj.get("status", {}).get("scenarioResult", {}).get("timeline", {})))

    sim = Simulator(hooks_with(testplugin), EngineOptions(update_strategy=strategy), progress=on_step)
    [result] = sim.run([marker_scenario()])
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    assert observed == seen
    final = sim.runs[0].cluster.get("simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "Scenario", "marker")
    assert sorted(final["status"]["scenarioResult"]["timeline"]) == ["0", "1", "2"]
    assert final["status"]["phase"] == "Succeeded"


def test_on_done_leaves_a_paused_scenario_without_result(testplugin: types.ModuleType) -> None:
    sim = Simulator(hooks_with(testplugin), EngineOptions(update_strategy="OnDone"))
    [result] = sim.run([marker_scenario(with_done=False)])
    assert result.status.phase == ScenarioPhase.PAUSED
    obj = sim.runs[0].cluster.get("simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "Scenario", "marker")
    assert "scenarioResult" not in obj["status"]
    assert obj["status"]["phase"] == "Paused"


def test_operations_added_to_a_paused_scenario_resume_it(testplugin: types.ModuleType) -> None:
    run = ScenarioRun(marker_scenario(with_done=False), hooks_with(testplugin), EngineOptions())
    run.start()
    assert run.phase == ScenarioPhase.PAUSED
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default", "labels": {"state": "new"}}}
    run.add_operations([
        ScenarioOperation(step=0, id="too-late", create_operation=CreateOperation({**cm, "metadata": {**cm["metadata"], "name": "late"}})),
        ScenarioOperation(step=2, id="add-c", create_operation=CreateOperation(cm)),
        ScenarioOperation(step=3, id="finish", done_operation=DoneOperation()),
    ])
    assert run.phase == ScenarioPhase.SUCCEEDED
    timeline = run.timeline.timeline
    assert [e.id for e in timeline["2"]] == ["add-c", "event-9"]
    assert timeline["2"][1].step.minor == 1 and timeline["2"][1].actor == "marker"
    assert [e.id for e in timeline["3"]] == ["finish"]
    names = [c["metadata"]["name"] for c in run.cluster.list("v1", "ConfigMap")]
    assert "late" not in names and "c" in names
    run.close()


def test_operations_added_while_running_are_picked_up(testplugin: types.ModuleType) -> None:
    """A controller adds an operation to the running scenario by updating the Scenario object."""

    class Adder(Controller):
        name = "adder"
        added = False

        def run_once(self) -> bool:
            if self.added or self.runtime.step_status.step.major != 0:
                return False
            obj = self.client.get("simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "Scenario", "marker")
            obj["spec"]["operations"].append({"id": "from-adder", "step": 1, "createOperation": {"object": {
                "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "added", "namespace": "default"}}}})
            self.client.update(obj)
            self.added = True
            return True

        def waiter(self) -> ControllerWaiter:
            return ControllerWaiter(self.name, lambda: True)

    adder = types.ModuleType("adder_plugin")
    adder.kubesim_controllers = hookimpl(lambda: [Adder])  # type: ignore[attr-defined]
    adder.kubesim_controllers.__name__ = "kubesim_controllers"
    [result] = Simulator(hooks_with(testplugin, adder)).run([marker_scenario()])
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    ids = [e.id for e in result.status.scenario_result.timeline["1"]]
    assert "from-adder" in ids


def crashing_module(kind: str) -> types.ModuleType:
    class Crashy(Controller):
        name = "crashy"

        def run_once(self) -> bool:
            if kind == "crash":
                raise RuntimeError("boom")
            return False

        def waiter(self) -> ControllerWaiter:
            return ControllerWaiter(self.name, lambda: False)

    m = types.ModuleType(f"crashy_{kind}")
    fn = hookimpl(lambda: [Crashy])
    fn.__name__ = "kubesim_controllers"
    m.kubesim_controllers = fn  # type: ignore[attr-defined]
    return m


def scenario_with(sim_controller: str) -> Any:
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "s"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": sim_controller}]}},
                    "operations": [{"step": 0, "doneOperation": {}}]}}
    from kubesim.api import Scenario

    return structure(doc, Scenario)


@pytest.mark.parametrize(
    ("kind", "as_sim", "message"),
    [("crash", True, 'controller "crashy" raised RuntimeError: boom at test_engine.py:{raise_line}'),
     ("stuck", True, "SimulationController 'crashy' has nothing to do but its waiter is not satisfied"),
     ("stuck", False, "PreSimulationController 'crashy' cannot settle: it has nothing left to do but its waiter is not satisfied")],
)
def test_controller_failures_fail_the_scenario_with_a_message(
    testplugin: types.ModuleType, kind: str, as_sim: bool, message: str
) -> None:
    scenario = scenario_with("crashy" if as_sim else "marker")
    [result] = Simulator(hooks_with(testplugin, crashing_module(kind))).run([scenario])
    assert result.status.phase == ScenarioPhase.FAILED
    raise_line = next(i for i, line in enumerate(open(__file__, encoding="utf-8"), 1)
                      if 'raise RuntimeError("boom")' in line)
    assert result.status.message == message.format(raise_line=raise_line)


def test_external_waiters_are_waited_for(testplugin: types.ModuleType) -> None:
    m = types.ModuleType("external")
    fn = hookimpl(lambda: [ControllerWaiter("outside", lambda: False)])
    fn.__name__ = "kubesim_controller_waiters"
    m.kubesim_controller_waiters = fn  # type: ignore[attr-defined]
    [result] = Simulator(hooks_with(testplugin, m)).run([scenario_with("marker")])
    assert result.status.message == (
        "PreSimulationController 'outside' cannot settle: it has nothing left to do but its waiter is not satisfied")


def test_clock_moves_by_step_duration_per_major_step(testplugin: types.ModuleType) -> None:
    from datetime import timedelta

    sim = Simulator(hooks_with(testplugin), EngineOptions(step_duration=timedelta(minutes=5)))
    [result] = sim.run([marker_scenario()])
    created = {e.create.result["metadata"]["name"]: e.create.result["metadata"]["creationTimestamp"]
               for events in result.status.scenario_result.timeline.values() for e in events if e.create}
    assert created["a"] == "2025-01-01T00:00:00Z"
    assert created["b"] == "2025-01-01T00:05:00Z"


def test_a_patch_operation_may_target_the_status_subresource(testplugin: types.ModuleType) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    ready_false = '{"status": {"conditions": [{"type": "Ready", "status": "False"}]}}'
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "s"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "marker"}]}},
                    "operations": [
                        {"step": 0, "createOperation": {"object": node}},
                        {"step": 1, "patchOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Node"},
                                                       "objectMeta": {"name": "n"}, "patch": ready_false,
                                                       "patchType": "application/merge-patch+json"}},
                        {"step": 2, "patchOperation": {"typeMeta": {"apiVersion": "v1", "kind": "Node"},
                                                       "objectMeta": {"name": "n"}, "patch": ready_false,
                                                       "patchType": "application/merge-patch+json",
                                                       "subresource": "status"}},
                        {"step": 3, "doneOperation": {}}]}}
    from kubesim.api import Scenario

    sim = Simulator(hooks_with(testplugin))
    [result] = sim.run([structure(doc, Scenario)])
    assert result.status.phase == ScenarioPhase.SUCCEEDED, result.status.message
    patched = [e.patch.result for k in ("1", "2") for e in result.status.scenario_result.timeline[k] if e.patch]
    # a main-resource patch leaves the status alone; the status subresource patch changes it
    assert [p["status"]["conditions"][0]["status"] for p in patched] == ["True", "False"]
