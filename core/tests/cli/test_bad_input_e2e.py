"""End-to-end: broken scenarios give a clear message with file and field path, exit 2, no traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun

RunKubesim = Callable[..., KubesimRun]

HEAD = """apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: broken}
spec:
  controllers: {simulationControllers: {enabled: [{name: marker}]}}
  operations:
  - step: 0
    createOperation:
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
"""

CASES = {
    "yaml-syntax": (HEAD + "  - step: [1\n", "broken.yaml: line 11 column 1: YAML syntax error: "),
    "unknown-field": (HEAD + "  - step: 1\n    doneOperation: {}\n    colour: blue\n",
                      "broken.yaml: spec.operations[1].colour: unknown field"),
    "wrong-type": (HEAD + "  - step: one\n    doneOperation: {}\n",
                   "broken.yaml: spec.operations[1].step: expected an integer, got the string 'one'"),
    "two-operations": (
        HEAD + "  - step: 1\n    doneOperation: {}\n    deleteOperation: {typeMeta: {apiVersion: v1, kind: ConfigMap}, objectMeta: {name: a}}\n",
        "broken.yaml: spec.operations[1]: exactly one of createOperation, patchOperation, deleteOperation, "
        "doneOperation must be set (found deleteOperation, doneOperation)"),
    "no-operation": (HEAD + "  - step: 1\n",
                     "broken.yaml: spec.operations[1]: exactly one of createOperation, patchOperation, "
                     "deleteOperation, doneOperation must be set (found none)"),
    "patch-missing-object": (
        HEAD + "  - step: 1\n    patchOperation: {typeMeta: {apiVersion: v1, kind: ConfigMap}, objectMeta: {name: ghost}, patch: '{}'}\n",
        "broken.yaml: spec.operations[1].patchOperation.objectMeta.name: ConfigMap default/ghost is not created by "
        "any earlier operation"),
    "negative-step": (HEAD + "  - step: -2\n    doneOperation: {}\n",
                      "broken.yaml: spec.operations[1].step: must be 0 or greater, got -2"),
    "missing-object": (HEAD + "  - step: 1\n    createOperation: {}\n",
                       "broken.yaml: spec.operations[1].createOperation.object: required"),
    "unknown-kind": (HEAD.replace("kind: ConfigMap", "kind: ConfigMapp"),
                     'broken.yaml: spec.operations[0].createOperation.object.kind: no matches for kind "ConfigMapp" in version "v1"'),
    "invalid-object": (HEAD.replace("metadata: {name: a}", "metadata: {name: Not_Valid}"),
                       'broken.yaml: spec.operations[0].createOperation.object: ConfigMap "Not_Valid" is invalid: '
                       'metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of'),
    "pod-without-containers": (
        HEAD + "  - step: 1\n    createOperation: {object: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: []}}}\n",
        'broken.yaml: spec.operations[1].createOperation.object: Pod "p" is invalid: spec.containers: Required value'),
    "unknown-controller": (HEAD.replace("name: marker", "name: markr"),
                           "broken.yaml: spec.controllers.simulationControllers.enabled[0].name: unknown controller 'markr'"),
}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_broken_scenario(kubesim: RunKubesim, tmp_path: Path, case: str, command: str) -> None:
    text, expected = CASES[case]
    (tmp_path / "broken.yaml").write_text(text)
    proc = kubesim(command, "broken.yaml", "-o", "out.json") if command == "run" else kubesim(command, "broken.yaml")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"error: {expected}" in proc.stderr, proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_validate_accepts_a_good_scenario(kubesim: RunKubesim, tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(HEAD)
    proc = kubesim("validate", "ok.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "broken: valid (1 operations)\n"


def test_missing_file(kubesim: RunKubesim) -> None:
    proc = kubesim("validate", "nope.yaml")
    assert proc.returncode == 2
    assert proc.stderr == "error: nope.yaml: cannot read file: No such file or directory\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--step-duration", "soon"], 'time: invalid duration "soon" (expected e.g. 10s, 1m30s, 2h; at most 2562047h)'),
     (["--start-time", "yesterday"], "'yesterday' is not an RFC 3339 time"),
     (["--update-results-strategy", "Sometimes"], "'Sometimes' is not one of")],
)
def test_bad_flags_are_usage_errors(kubesim: RunKubesim, tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "ok.yaml").write_text(HEAD)
    proc = kubesim("run", "ok.yaml", *args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_a_broken_plugin_is_reported_without_traceback(kubesim: RunKubesim, tmp_path: Path) -> None:
    proc = kubesim("plugins", env={"KUBESIM_PLUGINS": "kubesim_testplugin,not_a_module_anywhere"})
    assert proc.returncode == 2
    assert "error: KUBESIM_PLUGINS: cannot import plugin module 'not_a_module_anywhere'" in proc.stderr
    assert "Traceback" not in proc.stderr
