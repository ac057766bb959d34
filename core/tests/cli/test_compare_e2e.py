"""End-to-end: `kubesim compare` through the installed command, with the scheduler plugin.

Scheduler configurations: examples/compare/least-allocated.yaml (the default scoring)
and most-allocated.yaml (bin packing). On the quickstart, packing moves web-1 from the
emptiest node to node-b; on examples/compare/scenario.yaml, spreading four small pods
leaves no room for two big ones, which packing places.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.api.pod_ref import expand_pod_refs
from kubesim.testing import KubesimRun, run_kubesim

pytest.importorskip("kubesim_scheduler", reason="compare runs scenarios with the scheduler plugin")

ROOT = Path(__file__).parents[3]
QUICKSTART = str(ROOT / "examples" / "quickstart" / "scenario.yaml")
SPREAD_OR_PACK = str(ROOT / "examples" / "compare" / "scenario.yaml")
LEAST = str(ROOT / "examples" / "compare" / "least-allocated.yaml")
MOST = str(ROOT / "examples" / "compare" / "most-allocated.yaml")

Run = Callable[..., KubesimRun]


@pytest.fixture
def kubesim(tmp_path: Path) -> Run:
    """`kubesim ARGS` in tmp_path with only the scheduler plugin installed."""

    def run(*args: str) -> KubesimRun:
        return run_kubesim(*args, cwd=tmp_path, plugins=("scheduler",))

    return run


def test_quickstart_most_allocated_moves_web_1(kubesim: Run, tmp_path: Path) -> None:
    proc = kubesim("compare", QUICKSTART, "--scheduler-config", LEAST, "--scheduler-config", MOST, "--json",
                   "--keep-results", "kept")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["a"] == "scenario.yaml with --scheduler-config least-allocated.yaml"
    assert data["b"] == "scenario.yaml with --scheduler-config most-allocated.yaml"
    moved = {p["name"]: (p["node_a"], p["node_b"]) for p in data["pods"] if p["node_a"] != p["node_b"]}
    # LeastAllocated puts web-1 on the emptier node-a; MostAllocated on node-b, the fuller of the two
    assert moved == {"web-1": ("node-a", "node-b")}
    assert data["placementsDiffer"] == 1
    # the same pods end up bound either way
    assert data["metrics"]["unscheduled"] == {"a": 0.0, "b": 0.0, "better": "lower", "worse": False,
                                              "description": "pods pending at the end"}
    assert [s["step"] for s in data["steps"]] == [0, 1, 2, 3, 4]
    web_1 = next(p for p in data["pods"] if p["name"] == "web-1")
    assert web_1["score_delta"] == web_1["score_b"] - web_1["score_a"]
    # the kept results are what `kubesim run` with each configuration writes
    for side, config in (("a", LEAST), ("b", MOST)):
        proc = kubesim("run", QUICKSTART, "--scheduler-config", config, "-o", f"run-{side}.json", "-q")
        assert proc.returncode == 0, proc.stderr
        kept = json.loads((tmp_path / "kept" / f"result-{side}.json").read_text())
        ran = expand_pod_refs(json.loads((tmp_path / f"run-{side}.json").read_text()))
        assert kept["status"] == ran["status"]  # kept in the full form: every podUnscheduled with its pod


def test_compare_two_result_files_and_the_terminal_table(kubesim: Run, tmp_path: Path) -> None:
    for side, config in (("a", LEAST), ("b", MOST)):
        assert kubesim("run", QUICKSTART, "--scheduler-config", config, "-o", f"{side}.json", "-q").returncode == 0
    proc = kubesim("compare", "a.json", "b.json", "-o", "cmp.json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "cmp.json").read_text())
    assert (data["a"], data["b"], data["placementsDiffer"]) == ("a.json", "b.json", 1)
    proc = kubesim("compare", "a.json", "b.json")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for heading in ("Summary", "Per step (A | B)", "Pods placed or scored differently (2; 1 on another node)"):
        assert heading in out
    assert "default/web-1" in out and "node-a" in out
    proc = kubesim("compare", "a.json", "b.json", "-o", "cmp.txt")
    assert proc.returncode == 0 and "default/web-1" in (tmp_path / "cmp.txt").read_text()


def test_fail_if_worse_gates_on_the_chosen_metric(kubesim: Run) -> None:
    # packing (B) places both batch pods, spreading (A) leaves them pending
    better = kubesim("compare", SPREAD_OR_PACK, "--scheduler-config", LEAST, "--scheduler-config", MOST,
                     "--fail-if-worse", "pending", "--fail-if-worse", "unscheduled", "--json")
    assert better.returncode == 0, better.stderr
    data = json.loads(better.stdout)
    assert data["metrics"]["unscheduled"]["a"] == 2.0 and data["metrics"]["unscheduled"]["b"] == 0.0
    assert {p["name"] for p in data["pods"] if p["node_a"] is None} == {"batch-1", "batch-2"}
    worse = kubesim("compare", SPREAD_OR_PACK, "--scheduler-config", MOST, "--scheduler-config", LEAST,
                    "--fail-if-worse", "preemptions", "--fail-if-worse", "pending")
    assert worse.returncode == 1
    assert "B is worse than A on pending: 1 vs 0 (lower is better)" in worse.stderr
    assert "preemptions" not in worse.stderr
    same = kubesim("compare", SPREAD_OR_PACK, "--scheduler-config", MOST, "--scheduler-config", LEAST,
                   "--fail-if-worse", "preemptions")
    assert same.returncode == 0, same.stderr


def test_an_empty_value_leaves_the_option_unset_for_that_run(kubesim: Run) -> None:
    proc = kubesim("compare", QUICKSTART, "--scheduler-config=", "--scheduler-config", MOST, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["a"] == "scenario.yaml with --scheduler-config (default)"
    # the default profile scores like least-allocated.yaml: the same placement change
    assert [(p["name"], p["node_a"], p["node_b"]) for p in data["pods"] if p["node_a"] != p["node_b"]] == [
        ("web-1", "node-a", "node-b")]


def test_one_value_applies_to_both_runs(kubesim: Run) -> None:
    proc = kubesim("compare", QUICKSTART, "--scheduler-config", MOST, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["pods"] == [] and data["a"] == data["b"] == "scenario.yaml"


@pytest.mark.parametrize(("args", "message"), [
    (("--scheduler-config", LEAST, "--scheduler-config", MOST, "--scheduler-config", LEAST),
     "given 3 times; give it once (both runs) or twice (A, then B)"),
    (("--detail", "everything"), "'everything' is not one of"),
    (("--fail-if-worse", "speed"), "'speed' is not one of"),
    (("--step-duration", "100000000h"), 'time: invalid duration "100000000h"'),
    (("--start-time", "9999-12-31T23:59:59Z"), "error: scenario quickstart: spec.operations[9].step: step 4 would "
                                               "start after 9999-12-31T23:59:59Z"),
])
def test_bad_options(kubesim: Run, args: tuple[str, ...], message: str) -> None:
    proc = kubesim("compare", QUICKSTART, *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_inputs(kubesim: Run, tmp_path: Path) -> None:
    assert kubesim("run", QUICKSTART, "-o", "a.json", "-q").returncode == 0
    (tmp_path / "pod.json").write_text(json.dumps({"apiVersion": "v1", "kind": "Pod"}))
    cases = [
        (("a.json", "pod.json"),
         "error: pod.json: kind: expected 'Scenario' (a result written by `kubesim run -o`), got 'Pod'"),
        (("a.json",), "error: a.json is a result: give two result files, or one scenario file to run twice"),
        (("a.json", "a.json", "a.json"), "error: compare takes one scenario file or two result files"),
        (("a.json", "a.json", "--scheduler-config", MOST),
         "error: --scheduler-config can only be used when comparing runs of a scenario file"),
        (("missing.yaml",), "error: missing.yaml: cannot read file"),
    ]
    for args, message in cases:
        proc = kubesim("compare", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.startswith(message), (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_a_failed_run_is_reported_and_exits_1(kubesim: Run, tmp_path: Path) -> None:
    scenario = {
        "apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
        "metadata": {"name": "fails"},
        "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": [
            {"id": "patch-ghost", "step": 1, "patchOperation": {
                "typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "ghost"},
                "patch": '{"metadata": {"labels": {"a": "b"}}}'}},
            {"id": "done", "step": 2, "doneOperation": {}},
        ]},
    }
    (tmp_path / "fails.json").write_text(json.dumps(scenario))
    proc = kubesim("compare", "fails.json", "--allow-unknown-targets", "--json")
    assert proc.returncode == 1
    assert 'error: run A failed: ' in proc.stderr and 'error: run B failed: ' in proc.stderr
    assert "ghost" in proc.stderr and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["pods"] == []  # the comparison of what ran is still printed
