"""End-to-end: a key written twice in a scenario, a patch body or a result file is an error
with its file and field path (exit 2, no traceback), never a silent choice of one value."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

RunKubesim = Callable[..., subprocess.CompletedProcess[str]]

SCENARIO = """\
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: dup}
spec:
  controllers: {simulationControllers: {enabled: [{name: marker}]}}
  operations:
  - step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: a}
        data:
          x: "1"
  - step: 1
    patchOperation:
      typeMeta: {apiVersion: v1, kind: ConfigMap}
      objectMeta: {name: a}
      patch: '{"data": {"x": "2"}}'
  - step: 2
    doneOperation: {}
"""

CASES = {
    "two-steps": (SCENARIO.replace("  - step: 2\n", "  - step: 2\n    step: 3\n"),
                  ["dup.yaml: spec.operations[2].step: duplicate key (lines 20 and 21)"]),
    "in-create-object": (SCENARIO.replace('          x: "1"\n', '          x: "1"\n          x: "3"\n'),
                         ["dup.yaml: spec.operations[0].createOperation.object.data.x: duplicate key (lines 14 and 15)"]),
    "in-a-list-item": (SCENARIO.replace("enabled: [{name: marker}]", "enabled: [{name: marker, name: other}]"),
                       ["dup.yaml: spec.controllers.simulationControllers.enabled[0].name: duplicate key "
                        "(line 5, columns 52 and 66)"]),
    "in-a-patch-body": (SCENARIO.replace('{"data": {"x": "2"}}', '{"data": {"x": "2", "x": "4"}}'),
                        ["dup.yaml: spec.operations[1].patchOperation.patch: data.x: duplicate key"]),
}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_duplicate_key_in_a_scenario(kubesim: RunKubesim, tmp_path: Path, case: str, command: str) -> None:
    text, problems = CASES[case]
    (tmp_path / "dup.yaml").write_text(text)
    proc = kubesim(command, "dup.yaml", "-o", "out.json") if command == "run" else kubesim(command, "dup.yaml")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "".join(f"error: {p}\n" for p in problems)
    assert not (tmp_path / "out.json").exists()


def test_the_scenario_without_duplicates_runs(kubesim: RunKubesim, tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(SCENARIO)
    assert kubesim("validate", "ok.yaml").returncode == 0
    proc = kubesim("run", "ok.yaml", "-o", "out.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out.json").read_text())["status"]["phase"] == "Succeeded"


def test_duplicate_key_in_a_result_file(kubesim: RunKubesim, tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(SCENARIO)
    assert kubesim("run", "ok.yaml", "-o", "result.json").returncode == 0
    text = (tmp_path / "result.json").read_text()
    (tmp_path / "result.json").write_text(text.replace('"kind": "Scenario"', '"kind": "Scenario", "kind": "Scenario"', 1))
    for args in (["report", "result.json"], ["compare", "result.json", "result.json"]):
        proc = kubesim(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "error: result.json: kind: duplicate key\n" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
