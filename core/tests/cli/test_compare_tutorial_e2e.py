"""The tutorial (docs/tutorial-custom-score-plugin.md) as a test: its commands give what it says.

Runs with the scheduler, the example plugin of contrib/custom-score-example (NodeCost)
and the tutorial's aggregator module (examples/compare/node_cost_table, loaded through
KUBESIM_PLUGINS as the tutorial does).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun, run_kubesim

pytest.importorskip("kubesim_scheduler", reason="the tutorial runs the scheduler plugin")
pytest.importorskip("kubesim_custom_score_example", reason="the tutorial uses contrib/custom-score-example")

ROOT = Path(__file__).parents[3]
TUTORIAL = ROOT / "docs" / "tutorial-custom-score-plugin.md"
NODE_COST = ("contrib/custom-score-example/examples/scenario.yaml", "--scheduler-config=",
             "--scheduler-config", "contrib/custom-score-example/examples/scheduler-config.yaml")
PACK = ("examples/compare/scenario.yaml", "--scheduler-config", "examples/compare/least-allocated.yaml",
        "--scheduler-config", "examples/compare/most-allocated.yaml")
PLUGINS = ("scheduler", "custom-score-example")


def kubesim(*args: str, aggregator: bool = False) -> KubesimRun:
    """`kubesim ARGS` from the repository root, with the tutorial's aggregator module when asked."""
    return run_kubesim(*args, cwd=ROOT, plugins=PLUGINS, env={"COLUMNS": "100"},
                       pythonpath=[ROOT / "examples/compare/node_cost_table"] if aggregator else [],
                       modules=["kubesim_node_cost_table"] if aggregator else [])


def shown_after(marker: str) -> list[str]:
    """The lines of the first ``` block after the command block that ends with `marker`."""
    text = TUTORIAL.read_text()
    block = text.split(marker + "\n```\n\n```\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def test_the_node_cost_comparison_is_the_one_shown(tmp_path: Path) -> None:
    proc = kubesim("compare", *NODE_COST, "--keep-results", str(tmp_path / "tutorial-results"))
    assert proc.returncode == 0, proc.stderr
    assert [line.rstrip() for line in proc.stdout.splitlines()] == shown_after("--keep-results tutorial-results")
    data = json.loads(kubesim("compare", *NODE_COST, "--json").stdout)
    assert {p["name"]: (p["node_a"], p["node_b"]) for p in data["pods"]} == {
        "web-1": ("node-a", "node-b"), "web-2": ("node-a", "node-b"), "web-3": ("node-a", "node-b"),
        "web-4": ("node-a", "node-b"), "web-5": ("node-a", "node-c")}
    assert not any(m["worse"] for m in data["metrics"].values())


def test_the_pack_comparison_is_the_one_shown() -> None:
    proc = kubesim("compare", *PACK)
    assert proc.returncode == 0, proc.stderr
    assert [line.rstrip() for line in proc.stdout.splitlines()] == shown_after(
        "--scheduler-config examples/compare/most-allocated.yaml")


def test_the_gates(tmp_path: Path) -> None:
    gate = ("--fail-if-worse", "pending", "--fail-if-worse", "unscheduled", "--fail-if-worse", "fragmentation")
    passed = kubesim("compare", *NODE_COST, *gate, "-o", str(tmp_path / "comparison.json"))
    assert passed.returncode == 0, passed.stderr
    assert json.loads((tmp_path / "comparison.json").read_text())["placementsDiffer"] == 5
    swapped = kubesim("compare", "examples/compare/scenario.yaml",
                      "--scheduler-config", "examples/compare/most-allocated.yaml",
                      "--scheduler-config", "examples/compare/least-allocated.yaml", "--fail-if-worse", "pending")
    assert swapped.returncode == 1
    assert "B is worse than A on pending: 1 vs 0 (lower is better)" in swapped.stderr


def test_the_reports_and_the_aggregator(tmp_path: Path) -> None:
    results = tmp_path / "tutorial-results"
    assert kubesim("compare", *NODE_COST, "--keep-results", str(results)).returncode == 0
    cost = {}
    for side in ("a", "b"):
        proc = kubesim("report", str(results / f"result-{side}.json"), "-o", str(tmp_path / f"{side}.html"),
                       "--tables", str(tmp_path / side), aggregator=True)
        assert proc.returncode == 0, proc.stderr
        with open(tmp_path / side / "node_cost.csv", newline="") as fh:
            cost[side] = [(int(r["nodes_in_use"]), int(r["cost"])) for r in csv.DictReader(fh)]
        assert "<h3>node_cost</h3>" in (tmp_path / f"{side}.html").read_text()
    # "30 from step 1 on" with the default profile; "10 until step 4 and 30 from step 5" with NodeCost
    assert cost["a"] == [(0, 0)] + [(1, 30)] * 6
    assert cost["b"] == [(0, 0)] + [(1, 10)] * 4 + [(2, 30)] * 2
    with open(tmp_path / "b" / "plugins.csv", newline="") as fh:
        plugins = {r["plugin"]: r for r in csv.DictReader(fh)}
    assert (plugins["NodeCost"]["decided_winner"], plugins["NodeCost"]["contested_binds"]) == ("5", "5")
    assert all(r["decided_winner"] == "0" for name, r in plugins.items() if name != "NodeCost")
    assert (plugins["NodeResourcesFit"]["rejected_nodes"], plugins["NodeResourcesFit"]["rejecting_attempts"]) == (
        "1", "1")
    with open(tmp_path / "a" / "nodes.csv", newline="") as fh:
        node_a = [r for r in csv.DictReader(fh) if r["node"] == "node-a"]
    assert round(float(node_a[-1]["cpu_ratio"]) * 100) == 16  # "fill to 16%"


def test_the_spread_report_numbers(tmp_path: Path) -> None:
    assert kubesim("compare", *PACK, "--keep-results", str(tmp_path / "kept")).returncode == 0
    proc = kubesim("report", str(tmp_path / "kept" / "result-a.json"), "-o", str(tmp_path / "a.html"),
                   "--tables", str(tmp_path / "a"))
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "a" / "filter_reasons.csv", newline="") as fh:
        assert [(r["reason"], r["plugin"], r["nodes"], r["attempts"]) for r in csv.DictReader(fh)] == [
            ("Insufficient cpu", "NodeResourcesFit", "16", "4")]


def test_pictures_exist_and_are_small() -> None:
    pictures = re.findall(r"!\[[^\]]*\]\((images/[^)]+\.png)\)", TUTORIAL.read_text())
    assert len(pictures) == 6
    for picture in pictures:
        path = TUTORIAL.parent / picture
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
        assert path.stat().st_size < 50_000, picture


def test_the_column_reference_matches_the_tables() -> None:
    from kubesim.results import CLUSTER_COLUMNS, FILTER_REASON_COLUMNS, NODE_COLUMNS, PLUGIN_COLUMNS, POD_COLUMNS

    text = TUTORIAL.read_text().split("## Reference: the built-in tables", 1)[1]
    for name, columns in (("pods", POD_COLUMNS), ("nodes", NODE_COLUMNS), ("cluster", CLUSTER_COLUMNS),
                          ("plugins", PLUGIN_COLUMNS), ("filter_reasons", FILTER_REASON_COLUMNS)):
        section = text.split(f"### {name}\n", 1)[1].split("###", 1)[0]
        rows = re.findall(r"^\| `([a-z_0-9]+)` \| (\w+) \| (.+) \|$", section, re.M)
        assert rows == [(c.name, c.type, c.description) for c in columns], name
