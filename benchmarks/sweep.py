"""`kubesim sweep` throughput: 100 cells of a 500-node / 5,000-pod scenario with -j 1 and -j 2.

The scenario is kubesim's `uniform` generator (scheduler_perf's node-default shape: 4 CPU,
32Gi, 110 pods; pods of 100m-500m CPU and 128Mi-1Gi drawn with each cell's seed); the grid
is NodeResourcesFit's strategy (2) x NodeResourcesBalancedAllocation's weight (5) x seeds
(10), at `detail: none`. Each run is the installed `kubesim sweep` command, timed from start
to exit (worker start-up included). Prints cells per minute for each -j and the speed-up,
and checks that both runs wrote the same results.csv and results.parquet.

    python benchmarks/sweep.py                          # the full benchmark (minutes)
    python benchmarks/sweep.py --nodes 50 --pods 500 --seeds 2 --jobs 1 2 4
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

TIMEOUT_SECONDS = 4 * 3600


def sweep_document(nodes: int, pods: int, seeds: int) -> dict[str, object]:
    """The benchmark's Sweep: 2 strategies x 5 weights x `seeds` seeds of one generated scenario."""
    return {
        "apiVersion": "kubesim.io/v1alpha1", "kind": "Sweep", "metadata": {"name": "bench"},
        "spec": {
            "scenarios": [{"name": "uniform", "generator": "uniform", "parameters": {
                "nodes": nodes, "nodeCpu": "4", "nodeMemory": "32Gi", "nodePods": 110, "pods": pods,
                "podCpu": ["100m", "200m", "300m", "500m"], "podMemory": ["128Mi", "256Mi", "512Mi", "1Gi"],
                "steps": 1}}],
            "parameters": [
                {"name": "strategy", "path": "profiles[0].pluginConfig[name=NodeResourcesFit].args.scoringStrategy.type",
                 "values": ["LeastAllocated", "MostAllocated"]},
                {"name": "balancedWeight",
                 "path": "profiles[0].plugins.score.enabled[name=NodeResourcesBalancedAllocation].weight",
                 "values": [1, 2, 5, 10, 20]},
            ],
            "seeds": {"count": seeds},
            "metrics": ["unscheduled", "allocation", "fragmentation"],
            "options": {"detail": "none"},
        },
    }


def kubesim_command() -> str:
    """The `kubesim` next to this Python (the dev install), else the one on PATH."""
    candidate = Path(sys.executable).with_name("kubesim")
    return str(candidate) if candidate.exists() else (shutil.which("kubesim") or "kubesim")


def cell_seconds(out: Path) -> float:
    """The sum of the cells' wall times (timings.csv): the work, whatever ran in parallel."""
    with open(out / "timings.csv", newline="") as fh:
        return sum(float(row["wall_seconds"]) for row in csv.DictReader(fh))


def run(workdir: Path, jobs: int) -> float:
    """Seconds `kubesim sweep -j JOBS` takes, start to exit."""
    out = workdir / f"j{jobs}"
    start = time.perf_counter()
    proc = subprocess.run([kubesim_command(), "sweep", "sweep.yaml", "-o", str(out), "-j", str(jobs), "-q"],
                          cwd=workdir, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"kubesim sweep -j {jobs} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--seeds", type=int, default=10, help="seeds per configuration (cells = 10 x seeds)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cells = 10 * args.seeds
    print(f"kubesim sweep: {cells} cells of {args.nodes} nodes / {args.pods} pods, "
          f"{os.cpu_count()} CPUs, load average {load:.2f} at start")
    with tempfile.TemporaryDirectory(prefix="kubesim-sweep-bench-") as tmp:
        workdir = Path(tmp)
        (workdir / "sweep.yaml").write_text(yaml.safe_dump(sweep_document(args.nodes, args.pods, args.seeds)))
        times = {}
        for jobs in args.jobs:
            times[jobs] = run(workdir, jobs)
            work = cell_seconds(workdir / f"j{jobs}")
            print(f"-j {jobs}: {times[jobs]:.1f} s, {cells / times[jobs] * 60:.1f} cells/min "
                  f"(cells' wall time summed: {work:.1f} s, {work / times[jobs]:.2f} cells running on average)",
                  flush=True)
        base = args.jobs[0]
        for jobs in args.jobs[1:]:
            print(f"speed-up -j {jobs} vs -j {base}: {times[base] / times[jobs]:.2f}x")
            for name in ("results.csv", "results.parquet"):
                same = filecmp.cmp(workdir / f"j{base}" / name, workdir / f"j{jobs}" / name, shallow=False)
                print(f"{name} -j {jobs} same bytes as -j {base}: {same}")
    if hasattr(os, "getloadavg"):
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
