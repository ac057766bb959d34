"""Equal parts of a run's objects are stored once, and nothing written changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kubesim.api import ScenarioPhase
from kubesim.api.loader import load_scenarios
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, Simulator
from kubesim.scenario.sharing import SubtreeSharer


def pod(name: str, cpu: Any = "100m", labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if labels is not None:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "pause",
                                     "resources": {"requests": {"cpu": cpu}}}]}}


def test_equal_subtrees_become_one_and_own_metadata_stays() -> None:
    sharer = SubtreeSharer()
    a, b = pod("a", labels={"app": "x"}), pod("b", labels={"app": "x"})
    before = json.dumps([a, b])
    sharer.share_object(a)
    sharer.share_object(b)
    assert json.dumps([a, b]) == before
    assert a["spec"] is b["spec"]
    assert a["metadata"]["labels"] is b["metadata"]["labels"]
    assert a["metadata"] is not b["metadata"] and a["metadata"]["name"] == "a"


def test_repeated_strings_of_objects_are_one() -> None:
    sharer = SubtreeSharer()
    a, b = json.loads(json.dumps(pod("a"))), json.loads(json.dumps(pod("b")))  # a decoder's own strings
    assert a["kind"] is not b["kind"] and a["metadata"]["namespace"] is not b["metadata"]["namespace"]
    sharer.share_object(a)
    sharer.share_object(b)
    assert a["kind"] is b["kind"] and a["apiVersion"] is b["apiVersion"]
    assert a["metadata"]["namespace"] is b["metadata"]["namespace"]
    assert (a["metadata"]["name"], b["metadata"]["name"]) == ("a", "b")


def test_a_spec_that_differs_in_one_part_shares_the_others() -> None:
    sharer = SubtreeSharer()
    a, b = pod("a"), pod("b")
    b["spec"]["containers"].append({"name": "sidecar", "image": "pause"})
    sharer.share_object(a)
    sharer.share_object(b)
    assert a["spec"] is not b["spec"]
    assert a["spec"]["containers"][0] is b["spec"]["containers"][0]


def test_values_equal_to_python_but_written_differently_are_not_shared() -> None:
    sharer = SubtreeSharer()
    trees = [{"n": 1}, {"n": 1.0}, {"n": True}, {"b": 1, "a": 2}, {"a": 2, "b": 1}]
    shared = [sharer.share(t) for t in trees]
    assert [json.dumps(s) for s in shared] == [json.dumps(t) for t in trees]
    assert len({id(s) for s in shared}) == len(trees)
    assert sharer.share({"n": 1}) is shared[0]


def test_the_table_is_bounded() -> None:
    sharer = SubtreeSharer(limit=3)
    kept = [sharer.share({"i": i}) for i in range(10)]
    assert [k["i"] for k in kept] == list(range(10))
    assert sharer.share({"i": 9}) is kept[9]  # the newest are kept
    assert len(sharer._seen) <= 3


def test_loaded_operations_share_and_a_run_writes_the_same(tmp_path: Path) -> None:
    ops = [{"step": 0, "id": f"pod-{i}", "createOperation": {"object": pod(f"p{i}")}} for i in range(3)]
    ops.append({"step": 1, "id": "done", "doneOperation": {}})
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "share"},
           "spec": {"controllers": {"simulationControllers": {"enabled": []}}, "operations": ops}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    [scenario] = load_scenarios(path)
    objects = [op.create_operation.object for op in scenario.spec.operations if op.create_operation is not None]
    assert objects[0]["spec"] is objects[1]["spec"] is objects[2]["spec"]
    assert [o["metadata"]["name"] for o in objects] == ["p0", "p1", "p2"]
    sim = Simulator(load_plugins(entry_points=False), EngineOptions())
    [result] = sim.run([scenario])
    assert result.status.phase == ScenarioPhase.SUCCEEDED
    data = sim.runs[0].to_json()
    created = [e["create"]["result"] for e in data["status"]["scenarioResult"]["timeline"]["0"] if "create" in e]
    assert len(created) == 3 and created[0]["spec"] is created[1]["spec"] is created[2]["spec"]
    assert created[0]["spec"] is not objects[0]["spec"]  # the stored pod is defaulted: its own (shared) copy
    assert [c["metadata"]["name"] for c in created] == ["p0", "p1", "p2"]
    assert data["spec"]["operations"][0]["createOperation"]["object"] == pod("p0")  # as given
    events = [e for e in data["status"]["scenarioResult"]["timeline"]["0"] if "create" in e]
    # the event's operation is the published spec's, not a copy of it
    assert all(e["create"]["operation"] is op["createOperation"] for e, op in zip(events, data["spec"]["operations"]))
