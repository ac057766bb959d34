"""Pod anti-affinity and topology spreading together: 5,000 nodes, 50,000 pods, in-process.

Modelled on upstream scheduler_perf's SchedulingPodAntiAffinity and TopologySpreading
(test/integration/scheduler_perf/config/performance-config.yaml with
pod-with-pod-anti-affinity.yaml and pod-with-topology-spreading.yaml): every measured pod
(100m / 500Mi, like pod-default.yaml) carries
  - required pod anti-affinity on kubernetes.io/hostname against the pods of its group,
  - a topology spread constraint over topology.kubernetes.io/zone (maxSkew 5,
    DoNotSchedule) on its group,
and nodes (node-default.yaml: 4 CPU, 32Gi, 110 pods) are spread over three zones
(moon-1..3, as TopologySpreading labels them). Upstream's single "color: green" group can
place only one pod per node; here the pods form groups of one pod per node (50,000 pods /
5,000 nodes = 10 groups; issue 17's earlier size, 500 nodes / 20,000 pods, makes 40), so
that every pod fits: each node ends with exactly one pod of each group (at most 40 groups:
40 x 100m = a node's 4 CPU).

The nodes are created at step 0, the measured pods at step 1; timing as in
scheduling_basic.py (see its docstring). The run checks that every pod was bound and
that no node holds two pods of one group.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import build_scenario, default_node, default_pod, report, run_in_process, scheduler_config

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
MAX_GROUPS = 40  # pods per node: 40 x 100m fill node-default.yaml's 4 CPU


def group_pod(name: str, group: str, max_skew: int) -> dict[str, Any]:
    """A pod of `group`: anti-affinity with its group per hostname, spread over zones."""
    pod = default_pod(name, "default")
    selector = {"matchLabels": {"group": group}}
    pod["metadata"]["labels"] = {"group": group}
    pod["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": selector, "topologyKey": HOSTNAME},
            ]
        }
    }
    pod["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": max_skew,
        "topologyKey": ZONE,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": selector,
    }]
    return pod


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000,
                    help="measured pods (groups of one pod per node; at most 40 pods per node)")
    ap.add_argument("--zones", type=int, default=3)
    ap.add_argument("--max-skew", type=int, default=5)
    ap.add_argument("--percentage", type=int, default=100,
                    help="percentageOfNodesToScore: 100 scores every node, 0 is upstream's adaptive default")
    ap.add_argument("--detail", default="summary", choices=("full", "summary", "none"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", metavar="FILE", help="cProfile step 1 into FILE (read with python -m pstats FILE)")
    ap.add_argument("--write-scenario", metavar="FILE",
                    help="write the scenario as JSON to FILE and exit (for kubesim run, e.g. to compare result bytes)")
    args = ap.parse_args(argv)
    if args.nodes < 1 or args.pods < 1 or -(-args.pods // args.nodes) > MAX_GROUPS:
        ap.error(f"--pods / --nodes must be at most {MAX_GROUPS} (a node holds {MAX_GROUPS} pods of 100m), "
                 "both at least 1")

    nodes = [
        default_node(f"node-{i:04d}", {HOSTNAME: f"node-{i:04d}", ZONE: f"moon-{i % args.zones + 1}"})
        for i in range(args.nodes)
    ]
    pods = [
        group_pod(f"pod-{i:05d}", f"g{i // args.nodes:03d}", args.max_skew) for i in range(args.pods)
    ]
    doc = build_scenario("affinity-spread", nodes, [], pods)
    if args.write_scenario:
        Path(args.write_scenario).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(f"scenario written to {args.write_scenario}")
        return 0
    out = run_in_process(doc, config=scheduler_config(args.percentage), detail=args.detail,
                         seed=args.seed, profile_path=args.profile)

    pct = "adaptive" if args.percentage == 0 else f"{args.percentage}%"
    print(f"Anti-affinity + topology spread: {args.nodes} nodes in {args.zones} zones, {args.pods} pods in "
          f"{-(-args.pods // args.nodes)} groups, percentageOfNodesToScore {pct}, detail {args.detail}")
    print(report(out, args.pods))
    if args.profile:
        print(f"  profile of step 1 written to {args.profile}")
    per_node_group = Counter(
        (p["spec"].get("nodeName"), p["metadata"]["labels"]["group"])
        for p in out["run"].cluster.list("v1", "Pod")
    )
    doubled = sum(1 for count in per_node_group.values() if count > 1)
    if doubled:
        print(f"  ERROR: {doubled} node/group pairs hold more than one pod")
    ok = out["phase"] == "Succeeded" and out["bound"] == args.pods and not doubled
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
