"""The numpy floor of SchedulingBasic, side by side with `kubesim run` end to end.

The floor is a plain numpy loop that does only the arithmetic of scheduling each pod of
SchedulingBasic (nodes of node-default.yaml, pods of pod-default.yaml, 100m / 500Mi) over
the same arrays, every node scored:

  NodeResourcesFit filter   pods + 1 <= allowed pods, request <= allocatable - requested
  NodeResourcesFit score    LeastAllocated, cpu and memory of weight 1 (Go integer math)
  BalancedAllocation score  1 - |f_cpu - f_mem| / 2, truncated to 0..100 (float64 as Go)
  totals                    both scores with their default weight 1 (neither normalises;
                            the other default plugins give every node the same score here)
  selectHost                the highest total; ties broken by random.Random(seed), one
                            randrange per pod with ties, over the nodes in table order

then adds the pod's requests to its node. kubesim is the installed command on the same
cluster, with every installed controller enabled (kubelet included: the scenario keeps the
PreSimulationControllers) and a scheduler configuration scoring every node:

    kubesim run scenario.json -o result.json --detail summary -q --scheduler-config cfg

Both are measured in CPU seconds (the floor's process_time, the child's user + sys), and
the script checks that the floor placed every pod on the node kubesim bound it to, so
the ratio compares like with like. Exit 1 when they differ or kubesim fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from end_to_end import child_peak_rss_mib, kubesim_command
from workloads import build_scenario, default_node, default_pod, scheduler_config

# node-default.yaml and pod-default.yaml in the units of the scheduler's arithmetic
NODE_CPU_MILLI, NODE_MEMORY, NODE_PODS = 4000, 32 * 1024**3, 110
POD_CPU_MILLI, POD_MEMORY = 100, 500 * 1024**2
MAX_NODE_SCORE = 100


def floor_placements(nodes: int, pods: int, seed: int) -> list[int]:
    """The node index each pod goes to; the whole per-pod arithmetic, nothing else."""
    alloc_cpu = np.full(nodes, NODE_CPU_MILLI, dtype=np.int64)
    alloc_mem = np.full(nodes, NODE_MEMORY, dtype=np.int64)
    allowed = np.full(nodes, NODE_PODS, dtype=np.int64)
    req_cpu = np.zeros(nodes, dtype=np.int64)
    req_mem = np.zeros(nodes, dtype=np.int64)
    count = np.zeros(nodes, dtype=np.int64)
    rng = random.Random(seed)
    placed: list[int] = []
    for _ in range(pods):
        fits = np.flatnonzero((count + 1 <= allowed) & (POD_CPU_MILLI <= alloc_cpu - req_cpu)
                              & (POD_MEMORY <= alloc_mem - req_mem))
        if not len(fits):
            placed.append(-1)
            continue
        a_cpu, a_mem = alloc_cpu[fits], alloc_mem[fits]
        r_cpu, r_mem = req_cpu[fits] + POD_CPU_MILLI, req_mem[fits] + POD_MEMORY
        # LeastAllocated (least_allocated.go): weighted mean of (alloc - req) * 100 / alloc
        least = (((a_cpu - r_cpu) * MAX_NODE_SCORE) // a_cpu + ((a_mem - r_mem) * MAX_NODE_SCORE) // a_mem) // 2
        # BalancedAllocation (balanced_allocation.go): two resources, std = |f0 - f1| / 2
        std = np.abs((np.minimum(r_cpu / a_cpu, 1.0) - np.minimum(r_mem / a_mem, 1.0)) / 2)
        balanced = np.trunc((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
        total = least + balanced
        ties = np.flatnonzero(total == total.max())
        node = int(fits[ties[rng.randrange(len(ties))]] if len(ties) > 1 else fits[ties[0]])
        req_cpu[node] += POD_CPU_MILLI
        req_mem[node] += POD_MEMORY
        count[node] += 1
        placed.append(node)
    return placed


def kubesim_placements(result: Path) -> dict[str, str]:
    """pod name -> node, from the podScheduled events of a result file."""
    data = json.loads(result.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for events in data["status"]["scenarioResult"]["timeline"].values():
        for e in events:
            sched = e.get("podScheduled")
            if sched:
                out[sched["pod"]["metadata"]["name"]] = sched["pod"]["spec"]["nodeName"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0, help="kubesim run --seed, and the floor's tie-breaking RNG")
    ap.add_argument("--workdir", help="keep the scenario and result here (default: a temporary directory)")
    ap.add_argument("--floor-only", action="store_true", help="time the floor alone (no kubesim run, no check)")
    args = ap.parse_args(argv)

    cpu0 = time.process_time()
    placed = floor_placements(args.nodes, args.pods, args.seed)
    floor_cpu = time.process_time() - cpu0
    print(f"SchedulingBasic: {args.nodes} nodes, {args.pods} pods of 100m/500Mi, every node scored, seed {args.seed}")
    print(f"  {'':28}{'CPU s':>9}{'pods/s':>10}{'us/pod':>9}{'ratio':>8}")
    print(f"  {'numpy floor':28}{floor_cpu:9.2f}{args.pods / floor_cpu:10.0f}{1e6 * floor_cpu / args.pods:9.0f}{1.0:8.2f}")
    if args.floor_only:
        return 0

    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="kubesim-floor-"))
    work.mkdir(parents=True, exist_ok=True)
    scenario, result, config = work / "scenario.json", work / "result.json", work / "scheduler-config.json"
    doc = build_scenario("floor", [default_node(f"node-{i:05d}") for i in range(args.nodes)], [],
                         [default_pod(f"pod-{i:05d}", "default") for i in range(args.pods)], other_controllers=True)
    scenario.write_text(json.dumps(doc), encoding="utf-8")
    config.write_text(json.dumps(scheduler_config(100)), encoding="utf-8")
    cmd = [kubesim_command(), "run", str(scenario), "-o", str(result), "--detail", "summary", "-q",
           "--scheduler-config", str(config), "--seed", str(args.seed)]
    start_wall, start = time.perf_counter(), os.times()
    proc = subprocess.run(cmd, check=False)
    wall = time.perf_counter() - start_wall
    end = os.times()
    cpu = (end.children_user - start.children_user) + (end.children_system - start.children_system)
    if proc.returncode != 0 or not result.exists():
        print(f"ERROR: {' '.join(cmd)} exited {proc.returncode}")
        return 1
    print(f"  {'kubesim run (end to end)':28}{cpu:9.2f}{args.pods / cpu:10.0f}{1e6 * cpu / args.pods:9.0f}"
          f"{cpu / floor_cpu:8.2f}")
    print(f"  kubesim wall {wall:.2f} s, peak RSS {child_peak_rss_mib():.0f} MiB, "
          f"result {result.stat().st_size / 1e6:.1f} MB; command: {' '.join(cmd)}")

    bound = kubesim_placements(result)
    names = [f"node-{i:05d}" for i in range(args.nodes)]
    differ = [(f"pod-{i:05d}", names[n] if n >= 0 else None, bound.get(f"pod-{i:05d}"))
              for i, n in enumerate(placed) if (names[n] if n >= 0 else None) != bound.get(f"pod-{i:05d}")]
    if differ:
        print(f"ERROR: {len(differ)} of {args.pods} pods placed differently (pod, floor, kubesim), first: {differ[:3]}")
        return 1
    print(f"  same node for all {args.pods} pods in the floor and in kubesim")
    if not args.workdir:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
