"""The installed `kubesim run` replaying a CSV job trace on two nodes, with and without migration.

tests/data/config.yaml has zone1 (12 cpu) and zone2 (5 cpu), 100G each; jobs a and b (30G
each, cpu 4) land on zone1 and c (5G, cpu 1) on zone2. zone1 is 40 % free, below the 45 %
threshold: the max policy moves a (30 GB) to zone2, with ceil(3.3506 x 30) = 101 s of downtime.
Then zone1 asks again, but zone2 would fall below 50 % free: nothing more moves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesim.plugins import load_plugins
from kubesim.results import analyze, load_results
from kubesim.testing.pytest_plugin import RunKubesim

DATA = Path(__file__).parent / "data"
KEEP = ("scheduler", "kubelet", "pod-migration")


def run(run_kubesim: RunKubesim, *extra: str, output: str = "result.json") -> dict[str, Any]:
    proc = run_kubesim("run", "--kcs-config", DATA / "config.yaml", "--job-trace", DATA / "jobs.csv",
                       "-o", output, "-q", *extra, plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = proc.result
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    return result


def events(result: dict[str, Any], kind: str) -> list[tuple[int, dict[str, Any]]]:
    timeline = result["status"]["scenarioResult"]["timeline"]
    return [(int(step), e) for step, evs in sorted(timeline.items(), key=lambda kv: int(kv[0]))
            for e in evs if kind in e]


def test_migration_moves_the_pod_after_its_downtime(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    result = run(run_kubesim, "--migrate", "--migration-policy", "max", "--metrics", "metrics.jsonl")
    run(run_kubesim, "--migrate", "--migration-policy", "max", output="again.json")
    assert (tmp_path / "result.json").read_bytes() == (tmp_path / "again.json").read_bytes()  # runs repeat
    placed = {e["podScheduled"]["pod"]["metadata"]["name"]: e["podScheduled"]["boundTo"]
              for _, e in events(result, "podScheduled")}
    assert placed == {"a": "zone1", "b": "zone1", "c": "zone2"}
    [(step, migrated)] = events(result, "podMigrated")
    assert step == 3  # 06:02:41 is reached at the tick of 06:03
    assert migrated["actor"] == "submitter:pod-migration"
    assert migrated["podMigrated"] == {
        "pod": "a", "namespace": "default", "sourceNode": "zone1", "targetPod": "ma", "targetNode": "zone2",
        "sizeGb": 30.0, "downtimeSeconds": 101, "startedAt": "2022-05-11T06:01:00Z",
        "finishedAt": "2022-05-11T06:02:41Z"}
    freeze = [e for _, e in events(result, "patch") if e["actor"] == "submitter:pod-migration"
              and "usage-frozen-at" in e["patch"]["operation"]["patch"]]
    assert len(freeze) == 1 and freeze[0]["patch"]["result"]["metadata"]["name"] == "a"
    created = {e["create"]["result"]["metadata"]["name"]: e["create"]["result"] for _, e in events(result, "create")}
    target = created["ma"]
    assert target["spec"]["nodeName"] == "zone2"
    assert target["spec"]["containers"][0]["resources"]["requests"]["memory"] == str(30 * 10**9)
    deleted = [(s, e["delete"]["operation"]["objectMeta"]["name"]) for s, e in events(result, "delete")]
    assert (4, "a") in deleted  # the source terminated with its 30 s grace period
    # during the downtime the frozen source still holds its memory on zone1
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    at = {m["Clock"]: m for m in metrics}
    assert at["2022-05-11T06:02:00Z"]["Nodes"]["zone1"]["TotalResourceUsage"]["memory"] == "60G"
    assert at["2022-05-11T06:04:00Z"]["Nodes"]["zone1"]["TotalResourceUsage"]["memory"] == "30G"
    assert at["2022-05-11T06:04:00Z"]["Pods"]["default/ma"]["Status"] == "Ok"
    # the result tables, as kubesim report and --tables show them
    tables = analyze(load_results(tmp_path / "result.json")[0], hooks=load_plugins())
    assert list(tables["migrations"].records()) == [{
        "step": 3, "pod": "a", "source_node": "zone1", "target_pod": "ma", "target_node": "zone2", "size_gb": 30.0,
        "downtime_seconds": 101, "started_at": "2022-05-11T06:01:00Z", "finished_at": "2022-05-11T06:02:41Z"}]
    assert tables["migrations"].description == "1 migration, 30 GB freed on their source nodes, 101 s of downtime in all."
    assert tables["migrations_by_node"].rows == [("zone1", 1, 30.0, 101, 0, 0.0), ("zone2", 0, 0.0, 0, 1, 30.0)]
    assert at["2022-05-11T06:04:00Z"]["Nodes"]["zone2"]["TotalResourceUsage"]["memory"] == "35G"


def test_without_migration_nothing_moves(run_kubesim: RunKubesim) -> None:
    result = run(run_kubesim)
    assert events(result, "podMigrated") == []
    assert [e["delete"]["operation"]["objectMeta"]["name"] for _, e in events(result, "delete")] == []


def test_a_broken_trace_is_invalid_input(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_text('[{"Name": "a", "Memory": [1, "x", 3], "Time": [0, 1, 2]}]')
    proc = run_kubesim("run", "--kcs-config", DATA / "config.yaml", "--job-trace", "trace.json", plugins=KEEP)
    assert proc.returncode == 2
    assert "error: trace.json: [0].Memory[1]: expected bytes (an integer), got 'x'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_simulation_controller_migrates_simspec_pods_of_a_scenario(run_kubesim: RunKubesim) -> None:
    # tests/data/scenario.yaml: the same pods as jobs.csv, created by operations; pod-migration is
    # listed after the scheduler, so it runs right after the pods are bound, with that moment's metrics
    proc = run_kubesim("run", DATA / "scenario.yaml", "--migration-policy", "max", "-o", "result.json", "-q",
                       plugins=KEEP)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = proc.result
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    [(step, migrated)] = events(result, "podMigrated")
    assert (step, migrated["actor"]) == (2, "pod-migration")
    assert migrated["podMigrated"] == {
        "pod": "a", "namespace": "default", "sourceNode": "zone1", "targetPod": "ma", "targetNode": "zone2",
        "sizeGb": 30.0, "downtimeSeconds": 101, "startedAt": "2022-05-11T06:00:00Z",
        "finishedAt": "2022-05-11T06:01:41Z"}
    created = {e["create"]["result"]["metadata"]["name"]: e["create"]["result"] for _, e in events(result, "create")}
    target = created["ma"]
    assert target["metadata"]["labels"] == {"app": "job"}  # the rest of the source pod is kept
    assert target["spec"]["nodeName"] == "zone2"
    assert target["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "4"}
    # the remaining phases of a (it had executed 0 s): 360 s at 30G, then 540 s at 50G
    assert target["metadata"]["annotations"]["simSpec"].split("- seconds: ")[1:] == [
        "0\n  resourceUsage:\n    cpu: 4\n    memory: 30000000000\n\n",
        "360\n  resourceUsage:\n    cpu: 4\n    memory: 30000000000\n\n",
        "540\n  resourceUsage:\n    cpu: 4\n    memory: 50000000000\n"]


def test_installed_but_unlisted_it_lets_idle_steps_be_skipped(run_kubesim: RunKubesim, tmp_path: Path) -> None:
    # every installed controller runs as a PreSimulationController unless listed; the migration
    # controller does nothing there, so it must not wake every step (2**31 steps would take days)
    (tmp_path / "s.yaml").write_text(json.dumps({
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "idle"},
        "spec": {"operations": [{"step": 2**31 - 1, "doneOperation": {}}],
                 "controllers": {"simulationControllers": {"enabled": []}}}}))
    proc = run_kubesim("run", "s.yaml", "-q", "-o", "r.json", plugins=KEEP, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.result["status"]["stepStatus"]["step"]["major"] == 2**31 - 1



def test_listed_it_runs_at_every_step(monkeypatch: pytest.MonkeyPatch) -> None:
    from kubesim.api import Scenario, structure
    from kubesim.scenario import Simulator
    from kubesim_pod_migration.simulation_controller import MigrationSimulationController

    ran: list[int] = []
    original = MigrationSimulationController.run_once

    def run_once(self: MigrationSimulationController) -> bool:
        if self._enabled() and self._done_at != self.runtime.clock.now():
            ran.append(self.runtime.recorder.step.major)
        return original(self)

    monkeypatch.setattr(MigrationSimulationController, "run_once", run_once)
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "listed"},
           "spec": {"operations": [{"step": 5, "doneOperation": {}}],
                    "controllers": {"simulationControllers": {"enabled": [{"name": "pod-migration"}]}}}}
    Simulator(load_plugins()).run([structure(doc, Scenario)])
    assert ran == [0, 1, 2, 3, 4, 5]  # its policies read the usage history: no step is skipped
