"""What `kubesim run`'s live progress costs on a 5,000-pod step.

Runs a generated scenario (5,000 nodes at step 0, 5,000 pods at step 1, summary detail)
in-process, alternating three ways, and prints the fastest and the median process CPU
time of each (on a shared machine the fastest is the better estimate):

- `bare`: the engine's live counts replaced by no-ops and no display (as before progress);
- `counts`: the counts kept (what every run now does), no display (`kubesim run -q`);
- `live`: the counts and the display's callback every 0.1 s (a terminal, rendering off-screen).

It then replays the writes and timeline events of one run through fresh counts and times
that alone: the direct cost of counting, less noisy than the difference of whole runs.

    python benchmarks/progress_overhead.py [--nodes 5000] [--pods 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rich.console import Console
from workloads import build_scenario, default_node, default_pod

from kubesim.api import Scenario, structure
from kubesim.cli.progress import LIVE_INTERVAL, RunProgress
from kubesim.plugins import load_plugins
from kubesim.scenario import EngineOptions, Simulator
from kubesim.scenario import progress as engine_progress


CALLBACK = [0, 0.0]  # calls of the display's live callback, seconds in them


def _once(doc: dict[str, Any], how: str, capture: list[tuple[str, Any]] | None = None) -> float:
    hooks = load_plugins()
    options = EngineOptions(plugin_options={"detail": "summary"})
    saved = engine_progress.PodCounts.on_write, engine_progress.PodCounts.on_record
    if how == "bare":
        engine_progress.PodCounts.on_write = lambda self, event: None  # type: ignore[method-assign]
        engine_progress.PodCounts.on_record = lambda self, event: None  # type: ignore[method-assign]
    elif capture is not None:
        engine_progress.PodCounts.on_write = lambda self, e: capture.append(("w", e))  # type: ignore[method-assign]
        engine_progress.PodCounts.on_record = lambda self, e: capture.append(("r", e))  # type: ignore[method-assign]
    console = Console(file=io.StringIO(), force_terminal=True, width=160)
    try:
        with RunProgress(console, "live" if how == "live" else "off") as display:
            def timed(run: Any) -> None:
                start = time.perf_counter()
                display.update(run)
                CALLBACK[0] += 1
                CALLBACK[1] += time.perf_counter() - start

            live = timed if how == "live" else None
            simulator = Simulator(hooks, options, live=live, live_interval=LIVE_INTERVAL)
            start = time.process_time()
            (result,) = simulator.run([structure(doc, Scenario)])
            elapsed = time.process_time() - start
    finally:
        engine_progress.PodCounts.on_write, engine_progress.PodCounts.on_record = saved  # type: ignore[method-assign]
    assert result.status.phase is not None and result.status.phase.value == "Succeeded", result.status.message
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    doc = build_scenario("progress", [default_node(f"node-{i:05d}") for i in range(args.nodes)], [],
                         [default_pod(f"pod-{i:05d}", "default") for i in range(args.pods)])
    times: dict[str, list[float]] = {"bare": [], "counts": [], "live": []}
    for _ in range(args.repeat):
        for how in times:
            times[how].append(_once(doc, how))
    base = min(times["bare"])
    for how, values in times.items():
        print(f"{how:7s} fastest {min(values):7.3f} s ({(min(values) / base - 1) * 100:+.2f}% vs bare), "
              f"median {statistics.median(values):7.3f} s; runs: {', '.join(f'{v:.3f}' for v in values)}")
    print(f"display callback: {CALLBACK[0]:,} calls, {CALLBACK[1] * 1000:.1f} ms in them over "
          f"{args.repeat} live runs (wall time; the rich refresh thread's rendering comes on top)")
    events: list[tuple[str, Any]] = []
    _once(doc, "counts", capture=events)
    counts = engine_progress.PodCounts()
    gc.collect()
    gc.disable()  # a full collection of the captured events' heap is not the counting's cost
    start = time.process_time()
    for what, event in events:
        if what == "w":
            counts.on_write(event)
        else:
            counts.on_record(event)
    cost = time.process_time() - start
    gc.enable()
    print(f"counting alone: {cost * 1000:.1f} ms for {len(events):,} writes and events "
          f"({cost / base * 100:.2f}% of the fastest bare run); final {counts.snapshot()}")


if __name__ == "__main__":
    main()
