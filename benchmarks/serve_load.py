"""`kubesim serve` under load: concurrent writers and open watches, nothing lost.

Starts the installed `kubesim serve`, opens `--watches` watches on one namespace's pods
(from a list's resourceVersion), and runs `--clients` writers for `--seconds`: each
creates pods back to back on its own keep-alive connection, and updates then deletes
every third. Then it checks that every watcher saw every acknowledged write exactly once,
in resourceVersion order (kubesim.testing.serveload), and prints writes/s, write latency,
watch events delivered/s and the server's peak RSS. Exit 1 when any check fails.

    python benchmarks/serve_load.py                       # 64 clients, 100 watches, 60 s
    python benchmarks/serve_load.py --clients 4 --watches 4 --seconds 2
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from kubesim.testing import KubesimServer
from kubesim.testing.serveload import run_load


def peak_rss_mib(pid: int) -> float:
    """VmHWM of a running process, in MiB (0 when /proc is not there)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (0 when /proc is not there)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--watches", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir, KubesimServer(workdir) as server:
        result = run_load(server.url, clients=args.clients, watches=args.watches, seconds=args.seconds)
        rss = peak_rss_mib(server.pid)
    print(f"serve load: {args.clients} clients, {args.watches} watches, {args.seconds:g} s")
    print(f"  {result.summary()}")
    print(f"  server peak RSS {rss:.0f} MiB")
    for problem in result.problems[:20]:
        print(f"  ERROR {problem}")
    return 1 if result.problems else 0


if __name__ == "__main__":
    sys.exit(main())
