"""SchedulingBasic from upstream scheduler_perf, run through kubesim's engine in-process.

upstream: test/integration/scheduler_perf/config/performance-config.yaml (SchedulingBasic:
createNodes, createPods $initPods, createPods $measurePods with collectMetrics) with
node-default.yaml and pod-default.yaml. Defaults here: 5,000 nodes, 1,000 init pods,
10,000 measured pods, percentageOfNodesToScore 100, --detail summary.

The scenario puts the nodes and init pods at step 0 (the scheduler places the init pods
during step 0), the measured pods at step 1 and done at step 2, and runs it with
kubesim.scenario.Simulator and the installed plugins, exactly as `kubesim run` does minus
file parsing and result writing. Timed with time.perf_counter from a cluster watch:
  schedule: last measured pod created -> last measured pod bound; every measured pod is
            scheduled in this window (the scheduler runs after the step's operations), so
            pods / schedule is the scheduling throughput (the headline figure);
  step 1:   the whole step: creating the pods through the API (admission, defaulting,
            watch delivery, the scheduler's informer handling), then scheduling them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import build_scenario, default_node, default_pod, report, run_in_process, scheduler_config


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--init-pods", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=10000, help="measured pods")
    ap.add_argument("--percentage", type=int, default=100,
                    help="percentageOfNodesToScore: 100 scores every node, 0 is upstream's adaptive default")
    ap.add_argument("--shapes", type=int, default=1,
                    help="measured pods cycle through this many request sizes (pod-default and +10m/+10Mi "
                         "steps); with 2 or more no two consecutive pods ask for the same resources")
    ap.add_argument("--detail", default="summary", choices=("full", "summary", "none"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", metavar="FILE", help="cProfile step 1 into FILE (read with python -m pstats FILE)")
    args = ap.parse_args(argv)

    nodes = [default_node(f"node-{i:05d}") for i in range(args.nodes)]
    init = [default_pod(f"init-pod-{i:05d}", "default") for i in range(args.init_pods)]
    pods = [default_pod(f"pod-{i:05d}", "default", i % args.shapes) for i in range(args.pods)]
    doc = build_scenario("scheduling-basic", nodes, init, pods)
    out = run_in_process(doc, config=scheduler_config(args.percentage), detail=args.detail,
                         seed=args.seed, profile_path=args.profile)

    pct = "adaptive" if args.percentage == 0 else f"{args.percentage}%"
    print(f"SchedulingBasic: {args.nodes} nodes, {args.init_pods} init pods, {args.pods} measured pods, "
          f"percentageOfNodesToScore {pct}, detail {args.detail}"
          + (f", {args.shapes} request shapes" if args.shapes > 1 else ""))
    print(report(out, args.pods))
    if args.profile:
        print(f"  profile of step 1 written to {args.profile}")
    ok = out["phase"] == "Succeeded" and out["bound"] == args.pods
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
