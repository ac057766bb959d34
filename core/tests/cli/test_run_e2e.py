"""End-to-end: the installed `kubesim` command on scenarios driven by a test plugin.

The test plugin (data/plugins/kubesim_testplugin.py) has a SimulationController
"marker" and a PreSimulationController "copier"; the expected timeline and the
trace of step phases below are written by hand from KEP-140's step rules.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from kubesim.testing import KubesimRun

DATA = Path(__file__).parents[1] / "data"
RunKubesim = Callable[..., KubesimRun]

MARKER = DATA / "scenarios" / "marker.yaml"

EXPECTED_TIMELINE = {
    "0": [
        ("operation-0", (0, 0), "scenario", "create", "a"),
        ("event-1", (0, 1), "marker", "patch", "a"),
        ("event-2", (0, 1), "copier", "create", "a-copy"),
        ("event-3", (0, 2), "marker", "patch", "a-copy"),
    ],
    "1": [
        ("operation-1", (1, 0), "scenario", "create", "b"),
        ("event-4", (1, 1), "marker", "patch", "b"),
        ("event-5", (1, 1), "copier", "create", "b-copy"),
        ("event-6", (1, 2), "marker", "patch", "b-copy"),
        ("event-7", (1, 2), "copier", "create", "b-copy-copy"),
        ("event-8", (1, 3), "marker", "patch", "b-copy-copy"),
    ],
    "2": [("operation-2", (2, 0), "scenario", "done", None)],
}

EXPECTED_TRACE = """\
copier reconcile default/a Operating 0.0
marker loop a ControllerRunning 0.0
gate marker ControllerPaused 0.1
copier reconcile default/a ControllerPaused 0.1
copier reconcile default/a-copy ControllerPaused 0.1
marker loop a-copy ControllerRunning 0.1
gate marker ControllerPaused 0.2
copier reconcile default/a-copy ControllerPaused 0.2
copier reconcile default/b Operating 1.0
marker loop b ControllerRunning 1.0
gate marker ControllerPaused 1.1
copier reconcile default/b ControllerPaused 1.1
copier reconcile default/b-copy ControllerPaused 1.1
marker loop b-copy ControllerRunning 1.1
gate marker ControllerPaused 1.2
copier reconcile default/b-copy ControllerPaused 1.2
copier reconcile default/b-copy-copy ControllerPaused 1.2
marker loop b-copy-copy ControllerRunning 1.2
gate marker ControllerPaused 1.3
copier reconcile default/b-copy-copy ControllerPaused 1.3
"""


def summarize(timeline: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for major, events in timeline.items():
        rows = []
        for e in events:
            [kind] = [k for k in ("create", "patch", "delete", "done", "podScheduled") if k in e]
            name = None
            if kind in ("create", "patch"):
                name = e[kind]["result"]["metadata"]["name"]
            rows.append((e["id"], (e["step"]["major"], e["step"]["minor"]), e.get("actor"), kind, name))
        out[major] = rows
    return out


def test_step_machine_and_minor_steps_match_the_kep(kubesim: RunKubesim, tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    proc = kubesim("run", str(MARKER), "-o", "result.json", env={"KUBESIM_TESTPLUGIN_TRACE": str(trace)})
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    status = result["status"]
    assert status["phase"] == "Succeeded"
    assert status["stepStatus"] == {"step": {"major": 2, "minor": 0}, "phase": "Finished",
                                    "runningSimulationController": "marker"}
    assert status["scenarioResult"]["simulatorVersion"].startswith("kubesim/")
    assert summarize(status["scenarioResult"]["timeline"]) == EXPECTED_TIMELINE
    assert trace.read_text() == EXPECTED_TRACE
    patch = status["scenarioResult"]["timeline"]["0"][1]["patch"]["operation"]
    assert patch["patchType"] == "application/merge-patch+json"
    assert json.loads(patch["patch"])["metadata"]["labels"] == {"state": "marked"}


def test_same_inputs_give_byte_identical_results(kubesim: RunKubesim, tmp_path: Path) -> None:
    outputs = []
    for i, hashseed in enumerate(("1", "2")):
        proc = kubesim("run", str(MARKER), "-o", f"r{i}.json", "--export-cluster", f"s{i}.yaml",
                       env={"PYTHONHASHSEED": hashseed})
        assert proc.returncode == 0, proc.stderr
        outputs.append(((tmp_path / f"r{i}.json").read_bytes(), (tmp_path / f"s{i}.yaml").read_bytes()))
    assert outputs[0] == outputs[1]


def test_export_cluster_writes_a_kubectl_list(kubesim: RunKubesim, tmp_path: Path) -> None:
    proc = kubesim("run", str(MARKER), "--export-cluster", "state.yaml", "-q")
    assert proc.returncode == 0, proc.stderr
    listing = yaml.safe_load((tmp_path / "state.yaml").read_text())
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    config_maps = sorted(o["metadata"]["name"] for o in listing["items"] if o["kind"] == "ConfigMap")
    assert config_maps == ["a", "a-copy", "b", "b-copy", "b-copy-copy"]
    namespaces = {o["metadata"]["name"] for o in listing["items"] if o["kind"] == "Namespace"}
    assert {"default", "kube-system"} <= namespaces
    assert all(o["metadata"].get("uid") and o["metadata"].get("resourceVersion") for o in listing["items"])


def test_several_scenarios_run_in_order_and_give_a_list(kubesim: RunKubesim, tmp_path: Path) -> None:
    docs = list(yaml.safe_load_all(MARKER.read_text()))
    second = json.loads(json.dumps(docs[0]))
    second["metadata"]["name"] = "marker-again"
    second["spec"]["operations"] = second["spec"]["operations"][:1]  # no done: ends Paused
    (tmp_path / "two.yaml").write_text(yaml.safe_dump_all([docs[0], second]))
    proc = kubesim("run", "two.yaml", "-o", "result.json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert [(s["metadata"]["name"], s["status"]["phase"]) for s in result] == [
        ("marker", "Succeeded"), ("marker-again", "Paused")]
    # each scenario starts on a clean cluster: the second one's first event is its own create
    assert summarize(result[1]["status"]["scenarioResult"]["timeline"])["0"][0] == (
        "operation-0", (0, 0), "scenario", "create", "a")


def test_runtime_failure_fails_the_scenario_and_keeps_results(kubesim: RunKubesim, tmp_path: Path) -> None:
    doc = yaml.safe_load(MARKER.read_text())
    doc["spec"]["operations"].insert(2, {"id": "bad", "step": 1, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "missing"}}}})
    (tmp_path / "fails.yaml").write_text(yaml.safe_dump(doc))
    proc = kubesim("run", "fails.yaml", "-o", "result.json")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["status"]["phase"] == "Failed"
    assert result["status"]["message"] == 'spec.operations[2] (id bad, step 1): namespaces "missing" not found'
    assert summarize(result["status"]["scenarioResult"]["timeline"])["0"] == EXPECTED_TIMELINE["0"]


def test_plugins_lists_the_test_plugin_with_its_hooks(kubesim: RunKubesim) -> None:
    proc = kubesim("plugins", "--json")
    assert proc.returncode == 0, proc.stderr
    plugins = {p["name"]: p for p in json.loads(proc.stdout)}
    assert plugins["kubesim_testplugin"]["hooks"] == ["kubesim_check_scenario_step_phase", "kubesim_controllers"]
    table = kubesim("plugins")
    assert "kubesim_testplugin" in table.stdout


def test_a_pip_installed_plugin_is_discovered_through_its_entry_point(kubesim: RunKubesim, tmp_path: Path) -> None:
    import sys

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(DATA / "kubesim-hello-plugin")],
        check=True, capture_output=True, text=True, timeout=300,
    )
    env = {"PYTHONPATH": str(target)}
    proc = kubesim("plugins", "--json", env=env, plugins=False)
    assert proc.returncode == 0, proc.stderr
    hello = {p["name"]: p for p in json.loads(proc.stdout)}["hello"]
    assert hello == {"name": "hello", "module": "kubesim_hello.hooks", "distribution": "kubesim-hello-plugin",
                     "version": "1.2.3", "hooks": ["kubesim_admission", "kubesim_custom_resources"]}
    # ... and used: its CRD is known and its admission rule denies an impolite Greeting.
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "greet"}, "spec": {
               "controllers": {"simulationControllers": {"enabled": []}}, "operations": [
               {"step": 0, "createOperation": {"object": {"apiVersion": "hello.example.com/v1", "kind": "Greeting",
                                                          "metadata": {"name": "ok"}, "spec": {"text": "hi please"}}}},
               {"step": 1, "createOperation": {"object": {"apiVersion": "hello.example.com/v1", "kind": "Greeting",
                                                          "metadata": {"name": "rude"}, "spec": {"text": "hi"}}}},
               {"step": 2, "doneOperation": {}}]}}
    (tmp_path / "greet.yaml").write_text(yaml.safe_dump(doc))
    proc = kubesim("run", "greet.yaml", "-o", "out.json", env=env, plugins=False)
    assert proc.returncode == 1, proc.stderr
    status = json.loads((tmp_path / "out.json").read_text())["status"]
    assert status["message"] == ("spec.operations[1] (id operation-1, step 1): admission webhook \"hello\" "
                                 "denied the request: greeting 'hi' must say please")
    shutil.rmtree(target)
