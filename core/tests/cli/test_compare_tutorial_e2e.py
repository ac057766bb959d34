"""The tutorial (docs/tutorial-custom-score-plugin.md) as a test: its commands give what it says.

Runs with the scheduler plugin and the tutorial's example plugin module
(examples/compare/binpack, loaded through KUBESIM_PLUGINS as the tutorial does).
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest.importorskip("kubesim_scheduler", reason="the tutorial runs the scheduler plugin")

ROOT = Path(__file__).parents[3]
TUTORIAL = ROOT / "docs" / "tutorial-custom-score-plugin.md"
KUBESIM = Path(sys.executable).parent / "kubesim"
COMPARE = ("compare", "examples/compare/scenario.yaml",
           "--scheduler-config", "examples/compare/least-allocated.yaml",
           "--scheduler-config", "examples/compare/binpack.yaml")


def kubesim(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`kubesim ARGS` from the repository root with the tutorial's environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBESIM_")}
    env["KUBESIM_DISABLED_PLUGINS"] = ",".join(
        sorted(ep.name for ep in entry_points(group="kubesim") if ep.name != "scheduler"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "examples/compare/binpack"), env.get("PYTHONPATH")]))
    env["KUBESIM_PLUGINS"] = "kubesim_cpu_binpack"
    env["COLUMNS"] = "100"
    return subprocess.run([str(KUBESIM), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_the_comparison_is_the_one_shown(tmp_path: Path) -> None:
    proc = kubesim(*COMPARE, "--keep-results", str(tmp_path / "tutorial-results"))
    assert proc.returncode == 0, proc.stderr
    shown = TUTORIAL.read_text().split("--keep-results tutorial-results\n```\n\n```\n", 1)[1].split("```", 1)[0]
    assert [line.rstrip() for line in proc.stdout.splitlines()] == shown.splitlines()
    data = json.loads(kubesim(*COMPARE, "--json").stdout)
    assert {p["name"]: p["node_b"] for p in data["pods"]} == {
        "web-1": "node-4", "web-2": "node-4", "web-3": "node-4", "web-4": "node-4",
        "batch-1": "node-2", "batch-2": "node-1"}


def test_the_gate(tmp_path: Path) -> None:
    gate = ("--fail-if-worse", "pending", "--fail-if-worse", "unscheduled")
    passed = kubesim(*COMPARE, *gate, "-o", str(tmp_path / "comparison.json"))
    assert passed.returncode == 0, passed.stderr
    assert json.loads((tmp_path / "comparison.json").read_text())["metrics"]["pending"]["worse"] is False
    swapped = kubesim("compare", "examples/compare/scenario.yaml",
                      "--scheduler-config", "examples/compare/binpack.yaml",
                      "--scheduler-config", "examples/compare/least-allocated.yaml", *gate)
    assert swapped.returncode == 1
    assert "B is worse than A on pending: 1 vs 0 (lower is better)" in swapped.stderr


def test_the_reports_and_the_aggregator(tmp_path: Path) -> None:
    results = tmp_path / "tutorial-results"
    assert kubesim(*COMPARE, "--keep-results", str(results)).returncode == 0
    empty = {}
    for side in ("a", "b"):
        proc = kubesim("report", str(results / f"result-{side}.json"), "-o", str(tmp_path / f"{side}.html"),
                       "--tables", str(tmp_path / side))
        assert proc.returncode == 0, proc.stderr
        with open(tmp_path / side / "empty_nodes.csv", newline="") as fh:
            empty[side] = [int(r["empty"]) for r in csv.DictReader(fh)]
        assert "<h3>empty_nodes</h3>" in (tmp_path / f"{side}.html").read_text()
    text = TUTORIAL.read_text()
    assert "step,nodes,empty\n0,4,4\n1,4,3\n2,4,1\n3,4,1\n" in text and empty["b"] == [4, 3, 1, 1]
    assert "it is 4, 0, 0, 0" in text and empty["a"] == [4, 0, 0, 0]
    with open(tmp_path / "b" / "plugins.csv", newline="") as fh:
        binpack = next(r for r in csv.DictReader(fh) if r["plugin"] == "CpuBinPack")
    assert (binpack["decided_winner"], binpack["contested_binds"]) == ("3", "6")
    with open(tmp_path / "a" / "filter_reasons.csv", newline="") as fh:
        assert [(r["reason"], r["plugin"], r["nodes"]) for r in csv.DictReader(fh)] == [
            ("Insufficient cpu", "NodeResourcesFit", "16")]


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
