"""End-to-end: failing scheduler plugins (data/failing_plugins, loaded with KUBESIM_PLUGINS) never
make `kubesim run` hang.

A plugin's Error status (or a score out of [0, 100]) fails the pod's scheduling cycle with
kube-scheduler's message naming the plugin (pkg/scheduler/framework/runtime/framework.go); the
pod backs off, the attempt is recorded and counts toward the step's "tried twice" rule, so the
run ends. A Python exception in a plugin ends the scenario Failed, naming the plugin, the
exception and the plugin's line; the result so far is written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim

PLUGIN_DIR = Path(__file__).parent / "data" / "failing_plugins"
PLUGIN_FILE = PLUGIN_DIR / "kubesim_failing_plugins.py"
ENV = {"PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN_DIR), os.environ.get("PYTHONPATH")])),
       "KUBESIM_PLUGINS": "kubesim_failing_plugins"}


def _node(name: str, step: int) -> dict[str, Any]:
    return {"id": name, "step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}}}


def _pod(name: str, step: int) -> dict[str, Any]:
    return {"id": name, "step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}}


OPERATIONS = [_node("n0", 0), _node("n1", 0), _pod("p0", 1), _pod("p1", 1), _node("n2", 2),
              {"id": "end", "step": 3, "doneOperation": {}}]


def _run(tmp_path: Path, point: str, plugin: str,
         operations: list[dict[str, Any]] = OPERATIONS) -> tuple[Any, dict[str, Any] | None]:
    """Run the scheduler with `plugin` enabled at `point` (none when empty); (process, result)."""
    scenario = {
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "failing"},
        "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                 "operations": operations},
    }
    plugins: dict[str, Any] = {point: {"enabled": [{"name": plugin}]}} if plugin else {}
    if point == "bind":
        plugins["bind"]["disabled"] = [{"name": "DefaultBinder"}]
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(scenario))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
    }))
    proc = run_kubesim("run", "s.yaml", "--scheduler-config", "config.yaml", "-o", "result.json",
                       cwd=tmp_path, env=ENV, timeout=60)
    out = tmp_path / "result.json"
    return proc, (expand_pod_refs(json.loads(out.read_text())) if out.exists() else None)


# upstream: pkg/scheduler/framework/runtime/framework.go (the Run*Plugins error messages)
ERROR_STATUSES = [
    ("preFilter", "ErrorPreFilter", 'running PreFilter plugin "ErrorPreFilter": broken'),
    ("filter", "ErrorFilter", 'running "ErrorFilter" filter plugin: broken'),
    ("preScore", "ErrorPreScore", 'running PreScore plugin "ErrorPreScore": broken'),
    ("score", "ErrorScore", 'running Score plugins: plugin "ErrorScore" failed with: broken'),
    ("score", "ErrorNormalize", 'running Normalize on Score plugins: plugin "ErrorNormalize" failed with: broken'),
    ("score", "ScoreTooHigh", 'applying score defaultWeights on Score plugins: plugin "ScoreTooHigh" returns an '
                              "invalid score 150, it should in the range of [0, 100] after normalizing"),
    ("score", "NormalizedTooLow", 'applying score defaultWeights on Score plugins: plugin "NormalizedTooLow" returns '
                                  "an invalid score -1, it should in the range of [0, 100] after normalizing"),
    ("reserve", "ErrorReserve", 'running Reserve plugin "ErrorReserve": broken'),
    ("permit", "ErrorPermit", 'running Permit plugin "ErrorPermit": broken'),
    ("preBind", "ErrorPreBind", 'running PreBind plugin "ErrorPreBind": broken'),
    ("bind", "ErrorBind", 'running Bind plugin "ErrorBind": broken'),
]


@pytest.mark.parametrize(("point", "plugin", "message"), ERROR_STATUSES, ids=[p for _, p, _ in ERROR_STATUSES])
def test_an_error_status_fails_the_cycle_with_upstreams_message(
        tmp_path: Path, point: str, plugin: str, message: str) -> None:
    proc, result = _run(tmp_path, point, plugin)
    assert proc.returncode == 0, proc.stderr
    assert result is not None and result["status"]["phase"] == "Succeeded"
    timeline = result["status"]["scenarioResult"]["timeline"]
    for step in ("1", "2"):  # step 2 adds a node: every pod is owed two tries again
        attempts = [e["podUnscheduled"] for e in timeline[step] if "podUnscheduled" in e]
        assert sorted(a["pod"]["metadata"]["name"] for a in attempts) == ["p0", "p0", "p1", "p1"]
        assert {r["message"] for a in attempts for r in a["scheduleResult"]} == {message}
        # handleSchedulingFailure: PodScheduled=False with reason SchedulerError for an error
        conditions = [c for a in attempts for c in a["pod"]["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert {(c["status"], c["reason"], c["message"]) for c in conditions} == {("False", "SchedulerError", message)}
    assert not any("podScheduled" in e for events in timeline.values() for e in events)


def _line_of(marker: str) -> int:
    return next(i for i, line in enumerate(PLUGIN_FILE.read_text().splitlines(), 1) if marker in line)


@pytest.mark.parametrize(("point", "plugin", "expected"), [
    ("filter", "CrashFilter",
     """scheduler plugin "CrashFilter" (Filter) raised KeyError: 'x' at kubesim_failing_plugins.py:{CRASH-LOOKUP}"""),
    ("score", "CrashScore",
     'scheduler plugin "CrashScore" (Score) raised ValueError: invalid literal for int() with base 10: '
     "'not a number' at kubesim_failing_plugins.py:{CRASH-SCORE}"),
])
def test_a_plugin_exception_fails_the_scenario_naming_the_plugin_and_line(
        tmp_path: Path, point: str, plugin: str, expected: str) -> None:
    marker = expected[expected.index("{") + 1:expected.index("}")]
    message = expected.replace("{" + marker + "}", str(_line_of(marker)))
    proc, result = _run(tmp_path, point, plugin)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert message in proc.stderr.replace("\\", "")  # the log line's JSON escapes the quotes
    assert result is not None
    assert result["status"]["phase"] == "Failed"
    assert result["status"]["message"] == message
    # the result so far: step 0's nodes and step 1's pods, no attempt of the crashed cycle
    timeline = result["status"]["scenarioResult"]["timeline"]
    assert [e["id"] for e in timeline["0"]] == ["n0", "n1"]
    assert [e["id"] for e in timeline["1"]] == ["p0", "p1"]
    assert result["status"]["stepStatus"]["step"] == {"major": 1, "minor": 0}


def test_an_admission_hook_raising_on_a_binding_fails_the_scenario(tmp_path: Path) -> None:
    # DefaultBinder turns a failed API call into an Error status; a plugin crash goes through
    operations = [_node("n0", 0), _pod("p0", 1), _pod("crash-on-bind", 1),
                  {"id": "end", "step": 2, "doneOperation": {}}]
    proc, result = _run(tmp_path, "", "", operations)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert result is not None and result["status"]["phase"] == "Failed"
    assert result["status"]["message"] == (
        'admission plugin "kubesim_failing_plugins" raised RuntimeError: no binding for you at '
        f"kubesim_failing_plugins.py:{_line_of('CRASH-ADMISSION')}")
    # p0 was bound before: the result holds its podScheduled event
    assert [e.get("podScheduled", {}).get("pod", {}).get("metadata", {}).get("name")
            for e in result["status"]["scenarioResult"]["timeline"]["1"] if "podScheduled" in e] == ["p0"]
