"""`kubesim perf` and `kubesim run --profile` end to end, through the installed command.

The example file examples/perf/performance-config.yaml is kubesim's own, in upstream
scheduler_perf's format; its "short" workloads run in a few seconds.
"""

from __future__ import annotations

import json
import pstats
from pathlib import Path
from typing import Any

import pytest
from kubesim.testing import run_kubesim

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "perf" / "performance-config.yaml"
QUICKSTART = ROOT / "examples" / "quickstart" / "scenario.yaml"


def _deterministic(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items if i["labels"]["Metric"] != "SchedulingThroughput"]


def test_perf_example_by_label_and_workload(tmp_path: Path) -> None:
    args = ("perf", str(EXAMPLE), "--label", "short", "--workload", "SchedulingBasic/50Nodes",
            "--workload", "TopologySpreading/30Nodes", "--workload", "SchedulingWithChurn/20Nodes", "--detail", "summary")
    first = run_kubesim(*args, "-o", "a.json", cwd=tmp_path, plugins=("scheduler",), timeout=300)
    assert first.returncode == 0, first.stderr
    second = run_kubesim(*args, "-o", "b.json", "-q", cwd=tmp_path, plugins=("scheduler",), timeout=300)
    assert second.returncode == 0, second.stderr
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert a["version"] == "v1"
    names = sorted({i["labels"]["Name"] for i in a["dataItems"]})
    assert names == ["SchedulingBasic/50Nodes", "SchedulingWithChurn/20Nodes", "TopologySpreading/30Nodes/spread"]
    throughput = [i for i in a["dataItems"] if i["labels"]["Metric"] == "SchedulingThroughput"]
    assert all(i["unit"] == "pods/s" and set(i["data"]) == {"Average", "Perc50", "Perc90", "Perc95", "Perc99"}
               and i["data"]["Average"] > 0 for i in throughput)
    by_name = {(i["labels"]["Metric"], i["labels"]["Name"]): i["data"] for i in a["dataItems"]}
    assert by_name[("Placement", "SchedulingBasic/50Nodes")]["Bound"] == 100
    assert by_name[("SchedulingAttempts", "SchedulingBasic/50Nodes")] == {"Scheduled": 100, "Unschedulable": 0,
                                                                           "Error": 0}
    spread = by_name[("Placement", "TopologySpreading/30Nodes/spread")]
    assert spread["Bound"] == 60 and spread["Pending"] == 0
    # 60 spread pods on 30 nodes of zones a/b/c (10 each), one init pod per node: every node is used
    assert spread["NodesUsed"] == 30
    assert by_name[("Placement", "SchedulingWithChurn/20Nodes")]["Bound"] == 80  # churn and deletes did not stop it
    assert _deterministic(a["dataItems"]) == _deterministic(b["dataItems"])  # same placement, attempts, digest
    assert "SchedulingBasic/50Nodes" in first.stderr  # the summary table


BAD_FILES = {
    "unknown-field": ("- name: X\n  workloadTemplate:\n  - opcode: createPods\n    countt: 3\n  workloads: [{name: w}]\n",
                      "error: bad.yaml: [0].workloadTemplate[0].countt: unknown field"),
    "scheduler-config": (("- name: X\n  schedulerConfigPath: cfg.yaml\n  workloadTemplate: [{opcode: barrier}]\n"
                          "  workloads: [{name: w}]\n"),
                         "error: bad.yaml: [0].schedulerConfigPath: cfg.yaml: percentageOfNodesToScore: Invalid value"),
    "feature-gate": ("- name: X\n  workloadTemplate: [{opcode: barrier}]\n  workloads: [{name: w, featureGates: {Foo: true}}]\n",
                     "error: bad.yaml: [0].workloads[0].featureGates: unrecognized feature gate: Foo"),
    "invalid-object": (("- name: X\n  workloadTemplate:\n  - opcode: createPods\n    count: 30\n"
                        "    podTemplatePath: pod.yaml\n  workloads: [{name: w}]\n"),
                       ("error: bad.yaml: [0].workloadTemplate[0]: Pod namespace-0/x-0: Pod \"x-0\" is invalid: "
                        "spec.containers[0].name: Invalid value: \"Bad_Name\"")),
    "parameter": ("- name: X\n  workloadTemplate: [{opcode: createNodes, countParam: $nodes}]\n  workloads: [{name: w}]\n",
                  "error: bad.yaml: [0].workloadTemplate[0].countParam: parameter nodes is undefined in workload 'w'"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_perf_bad_input_exits_2_naming_the_field(tmp_path: Path, case: str) -> None:
    text, expected = BAD_FILES[case]
    (tmp_path / "bad.yaml").write_text(text)
    (tmp_path / "cfg.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                       "percentageOfNodesToScore: 900\n")
    (tmp_path / "pod.yaml").write_text("kind: Pod\nmetadata: {generateName: x-}\nspec: {containers: [{name: Bad_Name, image: i}]}\n")
    proc = run_kubesim("perf", "bad.yaml", "-o", "out.json", cwd=tmp_path, plugins=("scheduler",), timeout=120)
    assert proc.returncode == 2
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "out.json").exists()
    assert proc.stderr.count("error:") <= 21  # 30 bad pods: the first 20 and "and 10 more problems"


def test_run_profile_writes_pstats_naming_the_scheduler(tmp_path: Path) -> None:
    proc = run_kubesim("run", str(QUICKSTART), "-q", "--profile", "run.prof", "--profile-top", "5",
                       cwd=tmp_path, plugins=("scheduler", "kubelet"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    stats = pstats.Stats(str(tmp_path / "run.prof"))
    functions = {(Path(file).name, name) for file, _, name in stats.stats}  # type: ignore[attr-defined]
    assert ("scheduler.py", "schedule_one") in functions  # the scheduler cycle, kubesim_scheduler/scheduler.py
    assert "cumulative" in proc.stderr
    top = run_kubesim("run", str(QUICKSTART), "-q", "--profile", "top.txt", cwd=tmp_path,
                      plugins=("scheduler", "kubelet"), timeout=300)
    assert top.returncode == 0, top.stderr
    assert "kubesim_scheduler" in (tmp_path / "top.txt").read_text()
