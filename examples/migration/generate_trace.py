"""Generate a small, deterministic memory trace in the pod-migration fork's JSON format.

    python generate_trace.py [--jobs 60] [--hours 3] [--seed 1] [--scale 1] [-o trace.json]

Each job is named like the fork's telemetry (`o10n-worker-<s|m|l>-<id>`), is sampled every
60 s, and grows its memory towards a size-dependent plateau with some noise, as the research
jobs of the fork's traces do. The same arguments always give the same file (seeded RNG, sorted
keys, no wall clock). benchmarks/migration.py uses it too.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

__all__ = ["generate", "main"]

START_MS = 1_652_248_800_000  # 2022-05-11T06:00:00Z, the fork's trace day
PLATEAU_GB = {"s": (8, 25), "m": (25, 70), "l": (60, 140)}


def generate(jobs: int, hours: float, seed: int, sample_seconds: int = 60, min_minutes: int = 30,
             max_minutes: int = 150, samples: int = 0, scale: float = 1.0) -> list[dict[str, object]]:
    """The trace: `jobs` jobs within `hours`, each `samples` long (0: 30 to 150 minutes, starting
    within the first 70 % of the time), memory plateaus times `scale`."""
    rng = random.Random(seed)
    horizon = int(hours * 3600)
    out: list[dict[str, object]] = []
    for i in range(jobs):
        size = rng.choices("sml", weights=(5, 3, 2))[0]
        if samples:
            start = rng.randrange(0, max(1, horizon - samples * sample_seconds), sample_seconds)
            count = samples
        else:
            start = rng.randrange(0, max(1, int(horizon * 0.7)), sample_seconds)
            minutes = rng.randint(min_minutes, max_minutes)
            count = max(3, min(minutes * 60, horizon - start) // sample_seconds)
        low, high = PLATEAU_GB[size]
        plateau = rng.uniform(low, high) * 1e9 * scale
        rate = rng.uniform(3, 8) / count
        memory, times = [], []
        for k in range(count):
            level = plateau * (1 - math.exp(-rate * (k + 1)))
            noise = 1 + rng.uniform(-0.03, 0.03)
            memory.append(int(max(1e8, level * noise)))
            times.append(START_MS + (start + k * sample_seconds) * 1000)
        out.append({"Name": f"o10n-worker-{size}-{i:05d}", "Memory": memory, "Time": times})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=60)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-minutes", type=int, default=30)
    parser.add_argument("--max-minutes", type=int, default=150)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every memory plateau")
    parser.add_argument("-o", "--output", default="trace.json")
    args = parser.parse_args()
    trace = generate(args.jobs, args.hours, args.seed, min_minutes=args.min_minutes, max_minutes=args.max_minutes,
                     scale=args.scale)
    Path(args.output).write_text(json.dumps(trace, separators=(",", ":")) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
