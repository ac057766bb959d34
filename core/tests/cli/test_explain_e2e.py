"""End-to-end: `kubesim explain` through the installed command, on examples/preemption.

The example (see its comments): critical preempts default/batch-2 on node-1 and is bound
there once the victim is gone; too-big never fits and stays pending; batch-1 was bound
among two nodes with equal scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun, run_kubesim

ROOT = Path(__file__).parents[3]
PREEMPTION = ROOT / "examples" / "preemption" / "scenario.yaml"
PLUGINS = {"scheduler", "kubelet"}


def flat(text: str) -> str:
    """The text with every run of whitespace as one space (piped output wraps long lines)."""
    return " ".join(text.split())


def kubesim(cwd: Path, *args: str) -> KubesimRun:
    return run_kubesim(*args, cwd=cwd, plugins=PLUGINS)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example run at full and at summary detail: full.json and summary.json."""
    where = tmp_path_factory.mktemp("explain")
    for detail in ("full", "summary"):
        proc = kubesim(where, "run", str(PREEMPTION), "-o", f"{detail}.json", "--detail", detail, "-q")
        assert proc.returncode == 0, proc.stderr
    return where


def test_preempted_pod_shows_victims_and_nominated_node(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "critical")
    assert proc.returncode == 0, proc.stderr
    out = flat(proc.stdout)
    assert "Pod default/critical" in out and "state: bound on node-1" in out
    assert "Attempt 1: step 2/1, profile default-scheduler, unschedulable" in out
    assert "preemption evicted 1 pod(s) of lower priority (default/batch-2) and nominated node node-1" in out
    victims = out.split("Preemption: victims evicted (nominated node: node-1)")[1]
    assert "default/batch-2 | node-1 | 100" in victims
    assert "node-1 is the pod's nominated node" in out
    # the victim names its preemptor
    victim = kubesim(results, "explain", "full.json", "default/batch-2")
    assert "preempted by default/critical at step 2/1" in flat(victim.stdout)


def test_pending_pod_shows_per_node_filter_reasons(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "too-big", "--attempt", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "state: pending" in flat(out) and "1 attempt(s) shown" in out and "Attempt 2" not in out
    rows = [line for line in out.splitlines() if "| NodeResourcesFit |" in line]
    assert rows == [" node-1 | NodeResourcesFit | Insufficient cpu ", " node-2 | NodeResourcesFit | Insufficient cpu "]
    # piped output is plain: no colour codes, no cut cells
    assert "\x1b[" not in out and "…" not in out


def test_scheduled_pod_shows_scores_and_tie_rule(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "batch-1", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    [attempt] = data["attempts"]
    assert (attempt["outcome"], attempt["node"], attempt["tiedNodes"]) == ("scheduled", "node-2", ["node-2", "node-1"])
    chosen = attempt["scores"][0]
    assert chosen["node"] == "node-2"
    assert chosen["total"] == sum(p["weighted"] for p in chosen["plugins"].values())
    assert chosen["plugins"]["TaintToleration"] == {"raw": 0, "normalized": 100, "weighted": 300}
    text = flat(kubesim(results, "explain", "full.json", "batch-1", "--node", "node-2").stdout)
    assert "reservoir sampling" in text and "node-2 (chosen)" in text and "node-1 (tied)" not in text
    assert kubesim(results, "explain", "full.json", "batch-1", "--json").stdout == proc.stdout  # deterministic


def test_summary_detail_says_what_was_kept(results: Path) -> None:
    proc = kubesim(results, "explain", "summary.json", "too-big")
    assert proc.returncode == 0, proc.stderr
    out = flat(proc.stdout)
    assert "(summary detail; 2 node(s) considered, 0 feasible)" in out
    assert "Filter: rejection reasons (nodes per reason; per-node verdicts not recorded)" in out
    assert "Insufficient cpu | 2" in out
    assert "`kubesim run --detail full` records every node and plugin" in out


def test_bad_pod_name_and_attempt(results: Path) -> None:
    proc = kubesim(results, "explain", "full.json", "batch")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("error: full.json: POD: no pod 'batch' in the result (6 pods); did you mean: "
                           "default/batch-1, default/batch-2, default/batch-3, default/batch-4\n")
    proc = kubesim(results, "explain", "full.json", "critical", "--attempt", "9")
    assert (proc.returncode, proc.stderr) == (
        2, "error: full.json: --attempt: expected 1 to 4, the attempts of default/critical, got 9\n")
    (results / "not-a-result.json").write_text('{"kind": "Pod"}')
    proc = kubesim(results, "explain", "not-a-result.json", "critical")
    assert proc.returncode == 2 and proc.stderr.startswith("error: not-a-result.json: kind: expected 'Scenario'")
