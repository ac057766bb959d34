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

`--size 5k|20k|50k` picks issue 17's scale points (5,000 nodes / 10,000 pods, 20,000 / 100,000,
50,000 / 500,000); `--percentage 100` scores every node, the default is the adaptive
percentageOfNodesToScore. The 50k run takes about ten minutes and several GiB: run it alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
    if path.suffix == ".json":
        _write_json_scenario(path, nodes, init_pods, pods)
        return
    import yaml

    doc = build_scenario(
        "end-to-end",
        [default_node(f"node-{i:05d}") for i in range(nodes)],
        [default_pod(f"init-pod-{i:05d}", "default") for i in range(init_pods)],
        [default_pod(f"pod-{i:05d}", "default") for i in range(pods)],
    )
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    path.write_text(yaml.dump(doc, Dumper=dumper, sort_keys=False), encoding="utf-8")


def _write_json_scenario(path: Path, nodes: int, init_pods: int, pods: int, batch: int = 1000) -> None:
    """The same text as json.dumps(build_scenario(...)), written a thousand operations at a time:
    the 50k size's document would take GBs in this process, beside the run it measures."""
    marker = "@operations@"
    shell = build_scenario("end-to-end", [], [], [])
    done = shell["spec"]["operations"]
    shell["spec"]["operations"] = [marker]
    head, tail = json.dumps(shell).split(json.dumps(marker))
    with path.open("w", encoding="utf-8") as fh:
        fh.write(head)
        for kind, count in (("node", nodes), ("init", init_pods), ("pod", pods)):
            for start in range(0, count, batch):
                names = range(start, min(start + batch, count))
                if kind == "node":
                    chunk = build_scenario("", [default_node(f"node-{i:05d}") for i in names], [], [])
                elif kind == "init":
                    chunk = build_scenario("", [], [default_pod(f"init-pod-{i:05d}", "default") for i in names], [])
                else:
                    chunk = build_scenario("", [], [], [default_pod(f"pod-{i:05d}", "default") for i in names])
                for op in chunk["spec"]["operations"][:-1]:  # without its done operation
                    fh.write(json.dumps(op) + ", ")
        fh.write(", ".join(json.dumps(op) for op in done) + tail)


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


SIZES = {"5k": (5000, 10000), "20k": (20000, 100000), "50k": (50000, 500000)}
"""--size: (nodes, pods) of issue 17's scale table (50k: 50,000 nodes / 500,000 pods, a long run)."""

_BOUND = re.compile(r'^\s*\{"id": .*?, "step": \{[^{}]*\}, "actor": (?:"[^"]*"|null), "podScheduled": ')


def check_result(path: Path) -> tuple[str | None, int]:
    """(status.phase, podScheduled events) of a result file, read line by line: a result of
    500,000 pods is GBs of text, one timeline event a line (docs/result-memory.md)."""
    phase, bound = None, 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith('    "phase": ') and phase is None:  # status.phase (indented 4: a member of status)
                phase = json.loads(line.strip().rstrip(",").split(": ", 1)[1])
            elif _BOUND.match(line):
                bound += 1
    return phase, bound


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES),
                    help="nodes/pods preset: 5k = 5,000/10,000, 20k = 20,000/100,000, 50k = 50,000/500,000 "
                         "(overrides --nodes/--pods)")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--init-pods", type=int, default=0, help="pods placed at step 0 (SchedulingBasic uses 1000)")
    ap.add_argument("--pods", type=int, default=10000, help="pods created at step 1")
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml")
    ap.add_argument("--percentage", type=int, default=None,
                    help="pass a --scheduler-config with this percentageOfNodesToScore (default: none, adaptive)")
    ap.add_argument("--detail", default="summary", choices=("full", "summary", "none", "auto"))
    ap.add_argument("--workdir", help="keep the scenario and result here (default: a temporary directory)")
    args = ap.parse_args(argv)
    if args.size:
        args.nodes, args.pods = SIZES[args.size]

    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="kubesim-e2e-"))
    work.mkdir(parents=True, exist_ok=True)
    scenario = work / f"scenario.{args.format}"
    result = work / "result.json"
    t = time.perf_counter()
    write_scenario(scenario, args.nodes, args.init_pods, args.pods)
    print(f"scenario: {scenario} ({scenario.stat().st_size / 1e6:.1f} MB, written in {time.perf_counter() - t:.1f} s)")

    cmd = [kubesim_command(), "run", str(scenario), "-o", str(result), "--detail", args.detail, "-q"]
    if scenario.stat().st_size > 64 * 1024 * 1024:  # kubesim reads 64 MiB by default (the 50k size is ~220 MB)
        cmd += ["--max-input-size", str(scenario.stat().st_size)]
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
        print(f"  peak RSS per pod {rss * 1024 / pods:.1f} KB, {pods / wall:.0f} pods/s (wall), "
              f"{pods / cpu:.0f} pods/s (CPU)")
    if proc.returncode != 0 or not result.exists():
        return 1
    phase, bound = check_result(result)
    print(f"  phase {phase}, pods bound {bound} of {pods}")
    if not args.workdir:
        shutil.rmtree(work)
    return 0 if phase == "Succeeded" and bound == pods else 1


if __name__ == "__main__":
    sys.exit(main())
