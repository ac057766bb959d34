"""End-to-end: the scheduler driven through the installed `kubesim run`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = REPO / "examples" / "quickstart" / "scenario.yaml"


def pod_events(result: dict[str, Any]) -> list[tuple[str, str, tuple[int, int], str | None]]:
    """(major, kind, step, pod name, node) of every scheduler event."""
    out = []
    for major, events in result["status"]["scenarioResult"]["timeline"].items():
        for e in events:
            for kind in ("podScheduled", "podUnscheduled", "podPreempted"):
                if kind in e:
                    out.append((major, kind, (e["step"]["major"], e["step"]["minor"]),
                                e[kind]["pod"]["metadata"]["name"], e[kind].get("boundTo")))
    return out


def test_quickstart_example(tmp_path: Path) -> None:
    proc = run_kubesim("run", str(QUICKSTART), "-o", "result.json", "--export-cluster", "state.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    assert result["status"]["phase"] == "Succeeded"
    events = pod_events(result)
    # step 1: web-1 goes to node-a (LeastAllocated 90 + Balanced 96 beat node-b's 81 + 93;
    # node-c's taint is not tolerated), web-2 to node-a or node-b (a tie: 174 each),
    # batch-big (6 CPU) fits nowhere and is tried twice; step 2: node-d (16 CPU) joins.
    assert events[0] == ("1", "podScheduled", (1, 1), "web-1", "node-a")
    assert events[1][:4] == ("1", "podScheduled", (1, 2), "web-2") and events[1][4] in ("node-a", "node-b")
    assert [e[:2] + e[3:] for e in events[2:4]] == [("1", "podUnscheduled", "batch-big", None)] * 2
    assert events[4] == ("2", "podScheduled", (2, 1), "batch-big", "node-d")
    unscheduled = result["status"]["scenarioResult"]["timeline"]["1"]
    attempt = next(e for e in unscheduled if "podUnscheduled" in e)["podUnscheduled"]["scheduleResult"][0]
    assert attempt["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu.")
    assert attempt["pluginResults"]["filter"]["node-c"] == {
        "NodeUnschedulable": "passed", "NodeName": "passed",
        "TaintToleration": "node(s) had untolerated taint {dedicated: gpu}"}
    # the pod carries the condition kube-scheduler writes on failure
    scheduled = next(e for e in result["status"]["scenarioResult"]["timeline"]["2"] if "podScheduled" in e)
    assert len(scheduled["podScheduled"]["scheduleResult"]) == 3  # both failed tries and the bind
    state = yaml.safe_load((tmp_path / "state.yaml").read_text())
    pods = {o["metadata"]["name"]: o for o in state["items"] if o["kind"] == "Pod"}
    assert set(pods) == {"web-2", "batch-big"}  # web-1 was deleted at step 3
    assert pods["batch-big"]["spec"]["nodeName"] == "node-d"
    conditions = {c["type"]: c for c in pods["batch-big"]["status"]["conditions"]}
    assert conditions["PodScheduled"]["status"] == "True"


def test_same_inputs_give_byte_identical_results(tmp_path: Path) -> None:
    outputs = []
    for i, hashseed in enumerate(("0", "12345")):
        proc = run_kubesim("run", str(QUICKSTART), "-o", f"r{i}.json", "--seed", "7", cwd=tmp_path,
                           env={"PYTHONHASHSEED": hashseed})
        assert proc.returncode == 0, proc.stderr
        outputs.append((tmp_path / f"r{i}.json").read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("detail", ["summary", "none"])
def test_detail_levels(tmp_path: Path, detail: str) -> None:
    proc = run_kubesim("run", str(QUICKSTART), "-o", "result.json", "--detail", detail, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    timeline = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))["status"]["scenarioResult"]["timeline"]
    attempt = next(e for e in timeline["1"] if "podUnscheduled" in e)["podUnscheduled"]["scheduleResult"][0]
    assert attempt["message"].startswith("0/3 nodes are available")
    if detail == "summary":
        assert attempt["candidateNodeCount"] == 3 and attempt["filteredNodeCount"] == 0
        assert attempt["filterReasonCounts"] == {"Insufficient cpu": 2, "node(s) had untolerated taint {dedicated: gpu}": 1}
        assert attempt["allCandidateNodes"] == [] and attempt["pluginResults"]["filter"] == {}
    else:
        assert set(attempt) == {"step", "allCandidateNodes", "allFilteredNodes", "pluginResults", "message"}
        assert attempt["pluginResults"] == {"filter": {}, "score": {}}


def test_a_broken_scheduler_config_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "percentageOfNodesToScore: 140\nprofiles:\n- schedulerName: default-scheduler\n"
        "  plugins:\n    score:\n      enabled: [{name: NoSuchPlugin}]\n")
    proc = run_kubesim("run", str(QUICKSTART), "--scheduler-config", "bad.yaml", "-o", "out.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "bad.yaml: percentageOfNodesToScore: Invalid value: 140: not in valid range [0-100]" in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_profiles_by_scheduler_name(tmp_path: Path) -> None:
    """A second profile (MostAllocated) serves pods that name it; others use the default."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {"schedulerName": "default-scheduler"},
            {"schedulerName": "bin-packing", "pluginConfig": [{"name": "NodeResourcesFit", "args": {
                "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}}}]},
        ]}))
    doc = yaml.safe_load(QUICKSTART.read_text())
    for op in doc["spec"]["operations"]:
        obj = (op.get("createOperation") or {}).get("object", {})
        if obj.get("metadata", {}).get("name") == "web-1":
            obj["spec"]["schedulerName"] = "bin-packing"
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    proc = run_kubesim("run", "s.yaml", "--scheduler-config", "config.yaml", "-o", "result.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    events = pod_events(expand_pod_refs(json.loads((tmp_path / "result.json").read_text())))
    # MostAllocated on cpu: node-b (2 CPU) is fuller after placing 500m (25%) than node-a (12.5%)
    assert events[0] == ("1", "podScheduled", (1, 1), "web-1", "node-b")


def test_preemption_evicts_a_victim_and_binds_the_preemptor(tmp_path: Path) -> None:
    """A priority-1000 pod needs the CPU of a priority-0 pod: DefaultPreemption evicts it."""
    scenario = Path(__file__).parent / "data" / "scenarios" / "preemption.yaml"
    proc = run_kubesim("run", str(scenario), "-o", "result.json", "--export-cluster", "state.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    assert pod_events(result) == [
        ("1", "podScheduled", (1, 1), "low", "node-a"),
        ("2", "podPreempted", (2, 1), "low", "node-a"),
        ("2", "podUnscheduled", (2, 1), "high", None),
        ("2", "podScheduled", (2, 2), "high", "node-a"),
    ]
    step2 = result["status"]["scenarioResult"]["timeline"]["2"]
    preempted = next(e for e in step2 if "podPreempted" in e)["podPreempted"]
    assert preempted["preemptedBy"] == "default/high"
    assert preempted["preemptedAt"] == {"major": 2, "minor": 1}
    target = next(c for c in preempted["pod"]["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert target["reason"] == "PreemptionByScheduler"
    assert target["message"] == "default-scheduler: preempting to accommodate a higher priority pod"
    # the failed attempt that preempted has no preemption suffix (upstream adds none on success)
    failed = next(e for e in step2 if "podUnscheduled" in e)["podUnscheduled"]["scheduleResult"][0]
    assert failed["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    state = yaml.safe_load((tmp_path / "state.yaml").read_text())
    pods = {o["metadata"]["name"]: o["spec"].get("nodeName") for o in state["items"] if o["kind"] == "Pod"}
    assert pods == {"high": "node-a"}


def test_finished_pods_free_their_node(tmp_path: Path) -> None:
    """Like kube-scheduler's pod informer (status.phase!=Succeeded,Failed), a pod that has
    finished no longer counts on its node: the simulated kubelet completes a simSpec pod
    at step 2 and the pod waiting for its CPU is scheduled then."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"},
            "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "10"}}}

    def pod(name: str, **annotations: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "annotations": annotations},
                "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "800m"}}}]}}

    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "finish"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                    "operations": [
                        {"step": 0, "createOperation": {"object": node}},
                        {"step": 1, "createOperation": {"object": pod(
                            "batch", simSpec="- seconds: 5\n  resourceUsage: {cpu: 800m}\n")}},
                        {"step": 1, "createOperation": {"object": pod("waiting")}},
                        {"step": 3, "doneOperation": {}}]}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    proc = run_kubesim("run", "s.yaml", "-o", "result.json", cwd=tmp_path, keep=("scheduler", "kubelet"))
    assert proc.returncode == 0, proc.stderr
    events = pod_events(expand_pod_refs(json.loads((tmp_path / "result.json").read_text())))
    assert events[0] == ("1", "podScheduled", (1, 1), "batch", "node-a")
    assert [e[1] for e in events[1:3]] == ["podUnscheduled", "podUnscheduled"]
    # step 2 (10 s later): the 5-second simSpec pod has Succeeded, its 800m are free again
    assert events[3][:2] == ("2", "podScheduled") and events[3][3:] == ("waiting", "node-a")
