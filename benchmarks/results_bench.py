"""Benchmark of `kubesim.results` on a large result: 500 nodes, 10,000 pods.

Generates a scenario (seeded, so every run makes the same one), runs `kubesim run
--detail summary` on it once (the result is cached next to the scenario), then loads
the result and computes every table, the report page and a self-comparison in this
process, printing the seconds each part took and the process's peak RSS.

    python benchmarks/results_bench.py [--workdir DIR] [--nodes 500] [--pods 10000]

Measured on a 2-core machine (Python 3.11), a 59 MiB result: kubesim run 9.4 s (once);
load 1.3 s, all tables 1.1 s, report page 0.6 s, comparison 0.1 s; peak RSS 352 MiB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
ZONES = ("zone-a", "zone-b", "zone-c", "zone-d", "zone-e")
# (cpu cores, memory GiB) of the node shapes, and pod request shapes (cpu milli, memory MiB)
NODE_SHAPES = ((8, 32), (16, 64), (32, 128))
POD_SHAPES = ((100, 128), (250, 256), (500, 512), (500, 1024), (1000, 2048), (2000, 4096), (4000, 8192))
POD_WEIGHTS = (20, 25, 20, 15, 12, 6, 2)


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    cpu, mem = rng.choice(NODE_SHAPES)
    name = f"node-{i:04d}"
    res = {"cpu": str(cpu), "memory": f"{mem}Gi", "pods": "110"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                              "topology.kubernetes.io/zone": ZONES[i % len(ZONES)]}},
        "status": {"allocatable": res, "capacity": res, "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _pod(i: int, rng: random.Random, big: bool) -> dict[str, Any]:
    cpu, mem = (48000, 65536) if big else rng.choices(POD_SHAPES, weights=POD_WEIGHTS)[0]
    app = f"app-{i % 40}"
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"pod-{i:05d}", "namespace": "default", "labels": {"app": app}},
        "spec": {"containers": [{"name": "main", "image": f"registry.example/{app}:1",
                                 "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}}}]},
    }


def generate_scenario(nodes: int, pods: int, steps: int = 10, seed: int = 1) -> dict[str, Any]:
    """A scenario: `nodes` nodes at step 0, `pods` pods spread over `steps` steps, churn, Done.

    One pod in 500 asks for more than any node has (it stays unschedulable); from step 3
    on, each step deletes 2% of the pods created two steps before.
    """
    rng = random.Random(seed)
    ops: list[dict[str, Any]] = [
        {"id": f"node-{i:04d}", "step": 0, "createOperation": {"object": _node(i, rng)}} for i in range(nodes)
    ]
    per_step = -(-pods // steps)
    created: dict[int, list[str]] = {}
    for i in range(pods):
        step = 1 + i // per_step
        pod = _pod(i, rng, big=(i % 500 == 499))
        created.setdefault(step, []).append(pod["metadata"]["name"])
        ops.append({"id": f"create-{pod['metadata']['name']}", "step": step, "createOperation": {"object": pod}})
    for step in range(3, steps + 1):
        for name in rng.sample(created[step - 2], k=len(created[step - 2]) // 50):
            ops.append({"id": f"delete-{name}", "step": step, "deleteOperation": {
                "typeMeta": {"apiVersion": "v1", "kind": "Pod"},
                "objectMeta": {"name": name, "namespace": "default"}}})
    ops.append({"id": "done", "step": steps + 1, "doneOperation": {}})
    return {
        "apiVersion": API, "kind": "Scenario", "metadata": {"name": f"bench-{nodes}n-{pods}p"},
        "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": ops},
    }


def _peak_rss_mib() -> float:
    """This process's peak resident set size (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def ensure_result(workdir: Path, nodes: int, pods: int, scheduler_config: str | None) -> Path:
    """The cached result of running the generated scenario (made with `kubesim run` when missing)."""
    workdir.mkdir(parents=True, exist_ok=True)
    scenario = workdir / f"scenario-{nodes}n-{pods}p.json"
    result = workdir / f"result-{nodes}n-{pods}p.json"
    if result.exists():
        return result
    scenario.write_text(json.dumps(generate_scenario(nodes, pods)))
    kubesim = Path(sys.executable).parent / "kubesim"
    cmd = [str(kubesim), "run", str(scenario), "-o", str(result), "--detail", "summary", "-q"]
    if scheduler_config:
        cmd += ["--scheduler-config", scheduler_config]
    print(f"generating {result.name}: {' '.join(cmd[1:])}", flush=True)
    started = time.perf_counter()
    subprocess.run(cmd, check=True)
    print(f"  kubesim run: {time.perf_counter() - started:.1f} s", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "kubesim-results-bench",
                        help="where the generated scenario and result are kept (default: %(default)s)")
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--scheduler-config", help="passed to kubesim run when the result is generated")
    args = parser.parse_args()
    path = ensure_result(args.workdir, args.nodes, args.pods, args.scheduler_config)

    from kubesim.results import analyze, load_results
    from kubesim.results.compare import compare
    from kubesim.results.report import render_report

    timings: list[tuple[str, float]] = []

    def timed(label: str, fn: Any) -> Any:
        started = time.perf_counter()
        value = fn()
        timings.append((label, time.perf_counter() - started))
        return value

    [result] = timed("load (JSON + Scenario API)", lambda: load_results(path))
    tables = timed("tables (one pass, 5 built-in aggregators)", lambda: analyze(result))
    timed("report page (plotly)", lambda: render_report([tables]))
    timed("compare (with itself)", lambda: compare(tables, tables))
    size = path.stat().st_size / (1024 * 1024)
    print(f"result: {path} ({size:.0f} MiB), {len(tables['pods'])} pods, "
          f"{len(tables['nodes'])} node-step rows, {len(tables['cluster'])} steps")
    for label, seconds in timings:
        print(f"{label:45s} {seconds:6.2f} s")
    print(f"{'total':45s} {sum(s for _, s in timings):6.2f} s")
    print(f"peak RSS {_peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
