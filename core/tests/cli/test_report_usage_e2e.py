"""End-to-end: usage reported by the simulated kubelet shows in the nodes table and the report.

Needs the scheduler and kubelet plugins (skipped when either is not installed).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun, run_kubesim

pytest.importorskip("kubesim_scheduler", reason="the scheduler plugin is not installed")
pytest.importorskip("kubesim_kubelet", reason="the kubelet plugin is not installed")

SCENARIO = Path(__file__).parents[1] / "results" / "data" / "kubelet-usage.yaml"
GI = 1024**3


def kubesim(tmp_path: Path, *args: str) -> KubesimRun:
    return run_kubesim(*args, cwd=tmp_path, plugins=("scheduler", "kubelet"))


def test_usage_per_node_and_step(tmp_path: Path) -> None:
    proc = kubesim(tmp_path, "run", str(SCENARIO), "-o", "result.json", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = kubesim(tmp_path, "report", "result.json", "-o", "report.html", "--tables", "tables")
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "tables" / "nodes.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    got = [(r["step"], r["pods"], r["cpu_requested"], r["cpu_usage"], r["memory_usage"]) for r in rows]
    assert got == [
        ("0", "0", "0", "", ""),
        ("1", "1", "2000", "1000", str(GI)),
        ("2", "1", "2000", "1000", str(GI)),
        ("3", "1", "2000", "1500", str(2 * GI)),
        ("4", "0", "0", "", ""),  # Succeeded: no longer counts against the node
        ("5", "0", "0", "", ""),
    ]
    with open(tmp_path / "tables" / "pods.csv", newline="") as fh:
        [job] = list(csv.DictReader(fh))
    assert (job["name"], job["state"], job["node"]) == ("job", "succeeded", "n1")
    page = (tmp_path / "report.html").read_text().replace("\\u002f", "/")  # plotly's JSON escapes "/"
    assert "cpu usage / allocatable" in page and "memory usage / allocatable" in page
