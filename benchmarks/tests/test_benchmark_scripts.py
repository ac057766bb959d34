"""The benchmark scripts still run: each on a tiny cluster, checking its own results.

Not timed tests: the figures are printed by the scripts (see benchmarks/README.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parents[1]


def run(script: str, *args: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("extra", [[], ["--percentage", "0", "--shapes", "3"]])
def test_scheduling_basic(tmp_path: Path, extra: list[str]) -> None:
    out = run("scheduling_basic.py", "--nodes", "120", "--init-pods", "30", "--pods", "200", *extra, cwd=tmp_path)
    assert "measured pods created 200, bound 200" in out
    assert "step 1 schedule (measured)" in out and "peak RSS" in out


def test_scheduling_basic_profile(tmp_path: Path) -> None:
    out = run("scheduling_basic.py", "--nodes", "20", "--init-pods", "0", "--pods", "20", "--profile",
              str(tmp_path / "p.prof"), cwd=tmp_path)
    assert (tmp_path / "p.prof").stat().st_size > 0 and "profile of step 1 written" in out


def test_affinity_spread(tmp_path: Path) -> None:
    out = run("affinity_spread.py", "--nodes", "30", "--pods", "120", cwd=tmp_path)
    assert "120 pods in 4 groups" in out and "bound 120" in out and "ERROR" not in out


def test_affinity_spread_writes_its_scenario(tmp_path: Path) -> None:
    import json

    run("affinity_spread.py", "--nodes", "4", "--pods", "10", "--write-scenario", "s.json", cwd=tmp_path)
    ops = json.loads((tmp_path / "s.json").read_text())["spec"]["operations"]
    pods = [op["createOperation"]["object"] for op in ops if op["step"] == 1 and "createOperation" in op]
    assert len(pods) == 10 and pods[9]["metadata"]["labels"] == {"group": "g002"}
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "affinity_spread.py"), "--nodes", "1", "--pods", "41"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "at most 40" in proc.stderr


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_end_to_end(tmp_path: Path, fmt: str) -> None:
    out = run("end_to_end.py", "--nodes", "50", "--init-pods", "10", "--pods", "100", "--format", fmt,
              "--workdir", str(tmp_path / "work"), cwd=tmp_path)
    assert "kubesim run: exit 0" in out and "pods bound 110 of 110" in out


def test_serve_creates(tmp_path: Path) -> None:
    out = run("serve_creates.py", "--pods", "200", "--nodes", "5", "--clients", "4", "--bind-wait", "1", cwd=tmp_path)
    assert "creates" in out and "watch events" in out and "bound        200 of 200" in out and "ERROR" not in out


def test_serve_load(tmp_path: Path) -> None:
    out = run("serve_load.py", "--clients", "4", "--watches", "3", "--seconds", "2", cwd=tmp_path)
    assert "3 watchers received" in out and "problems: 0" in out and "ERROR" not in out


def test_capacity(tmp_path: Path) -> None:
    out = run("capacity.py", "--nodes", "60", "--init-pods", "60", "--pending", "20", cwd=tmp_path)
    assert "180 copies" in out and "answer 5 nodes" in out and "peak RSS" in out and "ERROR" not in out


def test_progress_overhead(tmp_path: Path) -> None:
    out = run("progress_overhead.py", "--nodes", "20", "--pods", "40", "--repeat", "1", cwd=tmp_path)
    assert "bare " in out and "counts " in out and "live " in out
    assert "counting alone:" in out and "bound=40" in out


def test_migration(tmp_path: Path) -> None:
    out = run("migration.py", "--jobs", "30", "--samples", "20", "--hours", "1", "--nodes", "2", "--scale", "0.5",
              cwd=tmp_path)
    assert "phase Succeeded, 58 ticks = 0.97 simulated hours" in out  # every job done before the hour
    assert "simulated hours per wall second" in out
    assert " podUnscheduled events, " in out and " of them by podRef" in out


def test_sweep(tmp_path: Path) -> None:
    out = run("sweep.py", "--nodes", "4", "--pods", "12", "--seeds", "1", "--jobs", "1", cwd=tmp_path)
    assert "kubesim sweep: 10 cells of 4 nodes / 12 pods" in out and "-j 1: " in out and "cells/min" in out


def test_floor(tmp_path: Path) -> None:
    out = run("floor.py", "--nodes", "30", "--pods", "80", "--seed", "2", cwd=tmp_path)
    assert "numpy floor" in out and "kubesim run (end to end)" in out
    assert "same node for all 80 pods in the floor and in kubesim" in out and "ERROR" not in out


def test_perf_workloads(tmp_path: Path) -> None:
    out = run("perf_workloads.py", "--label", "smoke", "--detail", "none", cwd=tmp_path)
    assert "kubesim perf --label smoke" in out and "peak RSS" in out
    for name in ("SchedulingBasic/smoke", "SchedulingPodAntiAffinity/smoke", "TopologySpreading/smoke",
                 "SchedulingWithChurn/smoke"):
        assert name in out
