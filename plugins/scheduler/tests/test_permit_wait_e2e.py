"""End-to-end: a gang Permit plugin (loaded with KUBESIM_PLUGINS) holds pods until the gang is whole."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml
from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim
from test_cli_e2e import pod_events

PLUGIN_DIR = Path(__file__).parent / "data" / "permit_wait"


def _pod(name: str, step: int) -> dict[str, Any]:
    return {"id": name, "step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"gang": "g", "gang-size": "3"}},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}}


def _node(name: str) -> dict[str, Any]:
    return {"id": name, "step": 0, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}}}


def _run(tmp_path: Path, operations: list[dict[str, Any]]) -> dict[str, Any]:
    scenario = {
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "gang"},
        "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                 "operations": operations},
    }
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(scenario))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"permit": {"enabled": [{"name": "Gang"}]}}}],
    }))
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN_DIR), os.environ.get("PYTHONPATH")])),
           "KUBESIM_PLUGINS": "kubesim_permit_gang"}
    proc = run_kubesim("run", "s.yaml", "--scheduler-config", "config.yaml", "-o", "result.json",
                       "--export-cluster", "state.yaml", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    assert result["status"]["phase"] == "Succeeded"
    return result


def test_gang_pods_wait_at_permit_and_bind_together(tmp_path: Path) -> None:
    result = _run(tmp_path, [_node("n0"), _node("n1"), _pod("g0", 1), _pod("g1", 1), _pod("g2", 2),
                             {"id": "end", "step": 3, "doneOperation": {}}])
    events = pod_events(result)
    # step 1: g0 and g1 wait at Permit (no attempt recorded, not unschedulable); step 2: g2
    # completes the gang and binds, then the two allowed pods bind in the same step
    assert [(major, kind, name) for major, kind, _step, name, _node in events] == [
        ("2", "podScheduled", "g2"), ("2", "podScheduled", "g0"), ("2", "podScheduled", "g1")]
    assert all(node in ("n0", "n1") for *_rest, node in events)
    scheduled = [e["podScheduled"] for e in result["status"]["scenarioResult"]["timeline"]["2"] if "podScheduled" in e]
    g0 = next(p for p in scheduled if p["pod"]["metadata"]["name"] == "g0")
    assert len(g0["scheduleResult"]) == 1  # the one attempt that waited, then bound
    state = yaml.safe_load((tmp_path / "state.yaml").read_text())
    bound = {o["metadata"]["name"]: o["spec"].get("nodeName") for o in state["items"] if o["kind"] == "Pod"}
    assert set(bound) == {"g0", "g1", "g2"} and all(bound.values())


def test_waiting_pods_time_out_at_a_later_step(tmp_path: Path) -> None:
    """The gang never completes: after 30 simulated seconds (3 steps of 10s) both waiting
    pods fail with upstream's timeout message, are retried and wait again."""
    result = _run(tmp_path, [_node("n0"), _pod("g0", 1), _pod("g1", 1), {"id": "end", "step": 5, "doneOperation": {}}])
    events = pod_events(result)
    assert [(major, kind, name) for major, kind, _step, name, _node in events] == [
        ("4", "podUnscheduled", "g0"), ("4", "podUnscheduled", "g1")]
    step4 = [e["podUnscheduled"] for e in result["status"]["scenarioResult"]["timeline"]["4"] if "podUnscheduled" in e]
    assert [u["scheduleResult"][0]["message"] for u in step4] == [
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Gang."] * 2
