"""Idle steps are skipped in O(1), with the same result as walking them (scheduler and kubelet)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.api import Scenario, ScenarioPhase, structure
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, Simulator
from kubesim.testing import KubesimRun, run_kubesim

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"


def _scenario(last_step: int, *, pending: bool = False, controllers: list[str] | None = None) -> dict[str, Any]:
    ops: list[dict[str, Any]] = [
        {"step": 0, "createOperation": {"object": {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}}},
        {"step": 1, "createOperation": {"object": {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big" if pending else "small", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {
                "requests": {"cpu": "2" if pending else "100m"}}}]}}}},
        {"step": last_step, "doneOperation": {}},
    ]
    # without a list, every installed controller runs as a PreSimulationController
    spec: dict[str, Any] = {"operations": ops, "controllers": {"simulationControllers": {"enabled": []}}}
    if controllers is not None:
        spec["controllers"] = {"preSimulationControllers": {"enabled": [{"name": n} for n in controllers],
                                                            "disabled": [{"name": "*"}]},
                               "simulationControllers": {"enabled": [{"name": "scheduler"}]}}
    return {"apiVersion": API, "kind": "Scenario", "metadata": {"name": "idle"}, "spec": spec}


def _run(tmp_path: Path, doc: dict[str, Any], *args: str) -> tuple[KubesimRun, dict[str, Any]]:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    run = run_kubesim("run", "s.yaml", "-q", "-o", "r.json", *args, cwd=tmp_path, timeout=120)
    return run, run.result or {}


def test_the_largest_step_runs_in_an_instant(tmp_path: Path) -> None:
    started = time.monotonic()
    proc, result = _run(tmp_path, _scenario(2**31 - 1))
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30  # walking 2**31 steps would take days
    assert result["status"]["phase"] == "Succeeded"
    assert result["status"]["stepStatus"]["step"]["major"] == 2**31 - 1
    assert sorted(result["status"]["scenarioResult"]["timeline"], key=int) == ["0", "1", str(2**31 - 1)]


def test_a_step_past_int32_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(_scenario(2**31)))
    proc = run_kubesim("validate", "s.yaml", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert "spec.operations[2].step: must be at most 2147483647 (MajorStep is an int32), got 2147483648" in proc.stderr


def test_a_step_past_year_9999_is_refused_before_the_run(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(_scenario(100)))
    proc = run_kubesim("run", "s.yaml", "-q", "-o", "r.json", "--step-duration", "1000000h", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == ("error: scenario idle: spec.operations[2].step: step 100 would start after "
                           "9999-12-31T23:59:59Z, the latest time kubesim can represent (see --step-duration)\n")
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("controllers", [["kubelet"], ["replicaset"]])
def test_skipping_gives_the_same_result_as_walking(controllers: list[str]) -> None:
    """A pod's simSpec ends in simulated time (with the kubelet): that step runs, the others are
    skipped; a pending pod is not tried again without a change, skipped or not."""
    doc = _scenario(200, pending=True, controllers=controllers)
    doc["spec"]["operations"].append({"step": 1, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job", "namespace": "default", "annotations": {
            "simSpec": "- seconds: 95\n  resourceUsage: {cpu: 100m}\n"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    hooks = load_plugins()
    results = {}
    for skip in (True, False):
        sim = Simulator(hooks, EngineOptions(skip_idle_steps=skip))
        (scenario,) = sim.run([structure(doc, Scenario)])
        assert scenario.status.phase == ScenarioPhase.SUCCEEDED
        results[skip] = json.dumps(sim.runs[0].to_json(), sort_keys=True)
    # equal but for resourceVersions: each walked step also writes the Scenario's status
    rv = re.compile(r'(resourceVersion\\?": ?\\?")\d+')
    assert rv.sub(r"\1N", results[True]) == rv.sub(r"\1N", results[False])
    timeline = json.loads(results[True])["status"]["scenarioResult"]["timeline"]
    unscheduled = [step for step, events in timeline.items() for e in events if "podUnscheduled" in e]
    # the job's end at step 11 (95 s after step 1) is a change: the pending pod is tried twice again
    assert unscheduled == (["1", "1", "1", "11", "11"] if "kubelet" in controllers else ["1", "1", "1"])
