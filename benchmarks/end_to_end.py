"""`kubesim run` end to end on a generated SchedulingBasic-shaped scenario file.

Writes a scenario (5,000 nodes of node-default.yaml and, at step 1, 10,000 pods of
pod-default.yaml; optional init pods at step 0) as YAML or JSON, then times the installed
command as a user runs it:

    kubesim run <scenario> -o <result.json> --detail summary [--scheduler-config <cfg>]

from process start to exit: starting Python and loading the plugins, parsing and
validating the file, running the scenario, writing the result. Peak RSS is the child's
(ru_maxrss of RUSAGE_CHILDREN). The result is then read back to check that every pod was
bound (reading it is not timed). Peak RSS per pod is the child's peak RSS divided by the
pods (init and measured): everything in, the interpreter and the nodes as well.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import build_scenario, default_node, default_pod, scheduler_config


def write_scenario(path: Path, nodes: int, init_pods: int, pods: int) -> None:
    doc = build_scenario(
        "end-to-end",
        [default_node(f"node-{i:05d}") for i in range(nodes)],
        [default_pod(f"init-pod-{i:05d}", "default") for i in range(init_pods)],
        [default_pod(f"pod-{i:05d}", "default") for i in range(pods)],
    )
    if path.suffix == ".json":
        path.write_text(json.dumps(doc), encoding="utf-8")
    else:
        import yaml

        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        path.write_text(yaml.dump(doc, Dumper=dumper, sort_keys=False), encoding="utf-8")


def kubesim_command() -> str:
    """The `kubesim` next to this Python (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "kubesim"
    if beside.exists():
        return str(beside)
    found = shutil.which("kubesim")
    if found is None:
        sys.exit("kubesim is not installed (pip install -r requirements-dev.txt)")
    return found


def child_peak_rss_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--init-pods", type=int, default=0, help="pods placed at step 0 (SchedulingBasic uses 1000)")
    ap.add_argument("--pods", type=int, default=10000, help="pods created at step 1")
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml")
    ap.add_argument("--percentage", type=int, default=None,
                    help="pass a --scheduler-config with this percentageOfNodesToScore (default: none, adaptive)")
    ap.add_argument("--detail", default="summary", choices=("full", "summary", "none", "auto"))
    ap.add_argument("--workdir", help="keep the scenario and result here (default: a temporary directory)")
    args = ap.parse_args(argv)

    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="kubesim-e2e-"))
    work.mkdir(parents=True, exist_ok=True)
    scenario = work / f"scenario.{args.format}"
    result = work / "result.json"
    t = time.perf_counter()
    write_scenario(scenario, args.nodes, args.init_pods, args.pods)
    print(f"scenario: {scenario} ({scenario.stat().st_size / 1e6:.1f} MB, written in {time.perf_counter() - t:.1f} s)")

    cmd = [kubesim_command(), "run", str(scenario), "-o", str(result), "--detail", args.detail, "-q"]
    if args.percentage is not None:
        config = work / "scheduler-config.json"
        config.write_text(json.dumps(scheduler_config(args.percentage)), encoding="utf-8")
        cmd += ["--scheduler-config", str(config)]
    print("command:", " ".join(cmd))
    start_wall, start_cpu = time.perf_counter(), os.times()
    proc = subprocess.run(cmd, check=False)
    wall = time.perf_counter() - start_wall
    end_cpu = os.times()
    cpu = (end_cpu.children_user - start_cpu.children_user) + (end_cpu.children_system - start_cpu.children_system)
    rss = child_peak_rss_mib()
    pods = args.init_pods + args.pods
    print(f"kubesim run: exit {proc.returncode}, wall {wall:.2f} s, CPU {cpu:.2f} s, "
          f"peak RSS {rss:.0f} MiB, result {result.stat().st_size / 1e6:.1f} MB"
          if result.exists() else f"kubesim run: exit {proc.returncode}, no result")
    if pods:  # all in: the interpreter, the nodes and the result too, as the 12 KB goal counts
        print(f"  peak RSS per pod {rss * 1024 / pods:.1f} KB, {pods / wall:.0f} pods/s")
    if proc.returncode != 0 or not result.exists():
        return 1
    data = json.loads(result.read_text(encoding="utf-8"))
    events = data["status"]["scenarioResult"]["timeline"]
    bound = sum(1 for evs in events.values() for e in evs if "podScheduled" in e)
    print(f"  phase {data['status']['phase']}, pods bound {bound} of {args.init_pods + args.pods}")
    if not args.workdir:
        shutil.rmtree(work)
    return 0 if data["status"]["phase"] == "Succeeded" and bound == args.init_pods + args.pods else 1


if __name__ == "__main__":
    sys.exit(main())
