"""Trace replay with pod migration: 2,000 jobs x 240 samples over 10 simulated hours on 20 nodes.

The pod-migration fork's workload at ten times its size: memory-trace jobs (the fork's JSON,
made by examples/migration/generate_trace.py with a fixed seed, one sample a minute, each job
240 samples = 4 hours) replayed with `kubesim run --kcs-config --job-trace --migrate` on 20
nodes of 120 cpu / 450G, one tick a minute (the trace's sampling, as the fork runs it). The
run is in-process (the CLI's own entry point); the figure is simulated hours per wall second,
the wall time of the whole run including reading the trace and writing the result.

    python benchmarks/migration.py [--jobs 2000] [--samples 240] [--hours 10] [--nodes 20]
                                   [--tick 60] [--until-hours H] [--no-migrate] [--profile N]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "migration"))

from generate_trace import generate  # noqa: E402


def peak_rss_mib() -> float:
    """This process's peak resident set size so far."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def config(nodes: int, tick: int) -> str:
    """A k8s-cluster-simulator config with `nodes` nodes of 120 cpu / 450G."""
    lines = [f"tick: {tick}", "startClock: 2022-05-11T06:00:00Z", "metricsTick: 3600", "cluster:"]
    for i in range(nodes):
        lines += [f"- metadata: {{name: zone{i:02d}}}",
                  "  status: {allocatable: {cpu: 120, memory: 450G, pods: 1000}}"]
    return "\n".join(lines) + "\n"


def read_summary(path: Path) -> tuple[dict[str, Any], int, int, int]:
    """The result's status without its timeline, how many podMigrated events it holds, and how
    many podUnscheduled events (and how many of those name their pod by a podRef).

    Read line by line (kubesim writes one event a line): the full run's result is large, mostly
    podUnscheduled events of pending jobs, too big to load back whole.
    """
    head: list[str] = []
    migrations = unscheduled = refs = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if head and head[-1] is not _END:
                if line.startswith('    "scenarioResult": {'):
                    head.append(_END)
                else:
                    head.append(line)
            elif line.startswith('  "status": {'):
                head.append("{")
            elif '"podMigrated": {' in line:
                migrations += 1
            elif '"podUnscheduled": {' in line:
                unscheduled += 1
                refs += '"podUnscheduled": {"podRef": {' in line
    status: dict[str, Any] = json.loads("".join(h for h in head if h is not _END).rstrip().rstrip(",") + "}")
    return status, migrations, unscheduled, refs


_END = "end of the status head"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=240)
    ap.add_argument("--hours", type=float, default=10.0)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--tick", type=int, default=60, help="seconds per tick")
    ap.add_argument("--scale", type=float, default=0.25, help="memory scale of the generated jobs")
    ap.add_argument("--until-hours", type=float, default=0.0,
                    help="stop after this many simulated hours (0: the whole trace) - a slice of a long run")
    ap.add_argument("--no-migrate", action="store_true")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print the N most expensive functions")
    ap.add_argument("--profile-dump", default="", metavar="FILE", help="also save the profile (pstats) to FILE")
    args = ap.parse_args(argv)

    from kubesim.cli.main import main as kubesim_main

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trace = generate(args.jobs, args.hours, seed=14, samples=args.samples, scale=args.scale)
        (work / "trace.json").write_text(json.dumps(trace, separators=(",", ":")))
        (work / "config.yaml").write_text(config(args.nodes, args.tick))
        argv_run = ["run", "--kcs-config", str(work / "config.yaml"), "--job-trace", str(work / "trace.json"),
                    "--until", f"{int((args.until_hours or args.hours) * 3600)}s", "--detail", "none", "-qq",
                    "-o", str(work / "result.json")]
        if not args.no_migrate:
            argv_run.append("--migrate")
        profiler = cProfile.Profile() if args.profile else None
        began = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        try:
            kubesim_main(argv_run)
        except SystemExit as exc:
            if exc.code:
                raise
        finally:
            if profiler is not None:
                profiler.disable()
        wall = time.perf_counter() - began
        peak_mib = peak_rss_mib()  # the run's peak, before the result is read back here
        status, migrations, unscheduled, refs = read_summary(work / "result.json")
        size = (work / "result.json").stat().st_size
    step = status["stepStatus"]["step"]["major"]
    simulated = step * args.tick / 3600
    print(f"migration: {args.jobs} jobs x {args.samples} samples, {args.nodes} nodes, tick {args.tick}s, "
          f"migrate={not args.no_migrate}")
    print(f"  phase {status['phase']}, {step} ticks = {simulated:.2f} simulated hours, {migrations} migrations")
    print(f"  wall {wall:.1f} s -> {simulated / wall:.3f} simulated hours per wall second")
    print(f"  peak RSS {peak_mib:.0f} MiB ({peak_mib * 1024 / max(args.jobs, 1):.0f} KB per job, all in)")
    print(f"  result {size / 1e6:.1f} MB: {unscheduled} podUnscheduled events, {refs} of them by podRef")
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.profile)
        if args.profile_dump:
            profiler.dump_stats(args.profile_dump)
        print(out.getvalue())
    return 0 if status["phase"] == "Succeeded" else 1


if __name__ == "__main__":
    raise SystemExit(main())
