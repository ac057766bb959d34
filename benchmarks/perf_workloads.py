"""Run benchmarks/perf/performance-config.yaml with `kubesim perf` and print its figures.

The workloads are kubesim's own, in upstream scheduler_perf's format (see docs/perf.md):
SchedulingBasic (5,000 nodes / 10,000 pods), SchedulingPodAntiAffinity, TopologySpreading and
a churn workload at upstream's sizes (--label performance), or tiny (--label smoke). The
installed command runs as a user runs it; this script prints the CPU time (user + sys) and
peak RSS of that process and each workload's pods/s (pods bound per CPU second, sampled as
upstream samples per wall second) with its placement.

    python benchmarks/perf_workloads.py [--label performance] [--workload NAME] [--detail summary]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = Path(__file__).resolve().parent / "perf" / "performance-config.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="performance")
    parser.add_argument("--workload", action="append", default=[])
    parser.add_argument("--detail", default="summary")
    parser.add_argument("--timeout", type=float, default=3600.0, help="Seconds before the run is stopped.")
    args = parser.parse_args(argv)
    kubesim = shutil.which("kubesim")
    if kubesim is None:
        print("error: the kubesim command is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="kubesim-perf-") as tmp:
        out = Path(tmp) / "perf.json"
        cmd = [kubesim, "perf", str(CONFIG), "--label", args.label, "--detail", args.detail, "-q", "-o", str(out)]
        for w in args.workload:
            cmd += ["--workload", w]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, check=False)
        wall = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        items = json.loads(out.read_text())["dataItems"]
    print(f"kubesim perf --label {args.label}: wall {wall:.1f} s, CPU {usage.ru_utime + usage.ru_stime:.1f} s "
          f"(user+sys), peak RSS {usage.ru_maxrss / 1024:.0f} MiB")
    rows: dict[str, dict[str, float]] = {}
    for item in items:
        rows.setdefault(item["labels"]["Name"], {}).update(item["data"])
    print(f"  {'workload':42}{'pods/s':>9}{'p50':>9}{'bound':>8}{'pending':>9}{'nodes':>7}")
    for name, data in rows.items():
        print(f"  {name:42}{data['Average']:9.0f}{data['Perc50']:9.0f}{data['Bound']:8.0f}{data['Pending']:9.0f}"
              f"{data['NodesUsed']:7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
