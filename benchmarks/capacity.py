"""`kubesim capacity` on a large cluster: how long each question takes and what it costs.

A cluster of --nodes nodes (node-default.yaml: 4 CPU, 32Gi, 110 pods, over three zones) with
--init-pods bound pods (pod-default.yaml, 100m / 500Mi, round-robin) and:
  --pod      copies of a --pod-cpu pod until one fails (each node takes 4 CPU / pod-cpu, less
             the init pods): the scheduler's throughput on copies/s;
  --add-nodes  --pending pending pods of 1 CPU on a cluster whose nodes are full, template
             node-default: the exponential + binary search over full simulations;
  --remove-nodes  the init pods owned by a ReplicaSet, every node checked in turn.
Each question runs in-process (phases timed: cluster load, simulator build, the question),
then through the installed `kubesim capacity` command once (wall time, end to end).
Prints seconds, copies/s and peak RSS; --profile FILE writes a cProfile of the --pod question.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import default_node, default_pod, peak_rss_mib

OWNER = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "rs-uid", "controller": True}]


def cluster(nodes: int, init_pods: int, full: bool = False) -> list[dict[str, Any]]:
    """Nodes over three zones and bound init pods round-robin (full: each node's 4 CPU used)."""
    items: list[dict[str, Any]] = []
    for i in range(nodes):
        name = f"node-{i}"
        items.append(default_node(name, {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"zone-{i % 3}"}))
    for j in range(init_pods):
        pod = default_pod(f"init-{j}", "default")
        pod["spec"]["nodeName"] = f"node-{j % nodes}"
        pod["metadata"]["ownerReferences"] = OWNER
        if full:
            pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "4"}}
        items.append(pod)
    return items


def sized_pod(name: str, cpu: str) -> dict[str, Any]:
    pod = default_pod(name, "default")
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": cpu, "memory": "500Mi"}}
    return pod


def timed(label: str, fn: Any, *args: Any) -> Any:
    t0 = time.perf_counter()
    out = fn(*args)
    print(f"  {label:40}{time.perf_counter() - t0:9.2f} s")
    return out


def cli(workdir: Path, *args: str) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    proc = subprocess.run(["kubesim", "capacity", *args, "-o", "json"], cwd=workdir, capture_output=True,
                          text=True, timeout=1800, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        print(f"ERROR: kubesim capacity {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
        sys.exit(1)
    return wall, json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--init-pods", type=int, default=5000)
    ap.add_argument("--pod-cpu", default="1", help="cpu of the --pod copies (1: 3 copies per node with one init pod)")
    ap.add_argument("--pending", type=int, default=500, help="pending 1-CPU pods for --add-nodes")
    ap.add_argument("--questions", default="pod,add,remove", help="comma-separated: pod, add, remove")
    ap.add_argument("--no-cli", action="store_true", help="skip the runs of the installed command")
    ap.add_argument("--profile", help="write a cProfile of the --pod question here")
    ns = ap.parse_args(argv)
    from kubesim.capacity import count_copies, find_removable_nodes, nodes_to_add
    from kubesim.plugins import load_plugins

    hooks = load_plugins()
    questions = set(ns.questions.split(","))
    workdir = Path(tempfile.mkdtemp(prefix="kubesim-capacity-"))
    items = cluster(ns.nodes, ns.init_pods)
    print(f"cluster: {ns.nodes} nodes, {ns.init_pods} bound pods")

    def make(objects: Any) -> Any:
        return hooks.scheduling_simulator(objects, {}, 0)

    if "pod" in questions:
        print(f"--pod ({ns.pod_cpu} cpu copies until one fails):")
        sim = timed("build the scheduler (nodes + pods)", make, items)
        template = sized_pod("web", ns.pod_cpu)
        profiler = cProfile.Profile() if ns.profile else None
        t0 = time.perf_counter()
        if profiler:
            profiler.enable()
        fit = count_copies(sim, template, [], 10**7)
        if profiler:
            profiler.disable()
            profiler.dump_stats(ns.profile)
            print(f"  profile written to {ns.profile}")
        wall = time.perf_counter() - t0
        print(f"  {'schedule copies':40}{wall:9.2f} s   {fit.replicas} copies, {fit.replicas / wall:.0f} copies/s")
        print(f"  stop: {fit.fail_type}: {fit.fail_message[:100]}")
        if not ns.no_cli:
            (workdir / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
            (workdir / "pod.json").write_text(json.dumps(template))
            wall, out = cli(workdir, "--cluster", "cluster.json", "--pod", "pod.json", "--max", str(10**7))
            print(f"  {'kubesim capacity --pod (whole command)':40}{wall:9.2f} s   {out['replicas']} copies, "
                  f"{out['replicas'] / wall:.0f} copies/s")
            if out["replicas"] != fit.replicas:
                print("ERROR: the command and the in-process run disagree")
                return 1
    if "add" in questions:
        full = cluster(ns.nodes, ns.nodes, full=True)
        pending = [sized_pod(f"pending-{i}", "1") for i in range(ns.pending)]
        template = default_node("template", {"topology.kubernetes.io/zone": "zone-0"})
        print(f"--add-nodes ({ns.pending} pending 1-cpu pods, full nodes; 4 per template node):")
        t0 = time.perf_counter()
        added = nodes_to_add(make, full, template, pending)
        wall = time.perf_counter() - t0
        print(f"  {'search':40}{wall:9.2f} s   answer {added.nodes_needed} nodes, "
              f"{len(added.trials)} simulations {[k for k, _ in added.trials]}")
        expected = -(-ns.pending // 4)
        if added.nodes_needed != expected:
            print(f"ERROR: expected {expected} nodes")
            return 1
        if not ns.no_cli:
            (workdir / "full.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                           "items": full + pending}))
            (workdir / "template.json").write_text(json.dumps(template))
            wall, out = cli(workdir, "--cluster", "full.json", "--add-nodes", "template.json")
            print(f"  {'kubesim capacity --add-nodes (command)':40}{wall:9.2f} s   answer {out['nodesToAdd']}")
    if "remove" in questions:
        print("--remove-nodes (every node checked, least utilised first):")
        sim = timed("build the scheduler (nodes + pods)", make, items)
        t0 = time.perf_counter()
        removal = find_removable_nodes(sim, items)
        wall = time.perf_counter() - t0
        print(f"  {'drain simulations':40}{wall:9.2f} s   {len(removal.removable)} removable, "
              f"{len(removal.unremovable)} stay, {ns.nodes / wall:.0f} nodes/s")
    print(f"peak RSS {peak_rss_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
