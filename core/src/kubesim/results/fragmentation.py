"""Fragmentation: how much of the free capacity sits where the typical waiting pod cannot use it.

Definition (per step, on the cluster as it is at the end of the step):

- the reference pod asks for the per-resource median (cpu, memory) of the requests of
  the pending pods that an empty node of the cluster could hold, or of all pods when
  no such pod is pending (the pod the cluster must be able to place next; a pod bigger
  than every node waits because of its size, not because capacity is split);
- a node's free capacity is its allocatable minus the requests of its pods, for cpu and
  memory, each as a share of the cluster's total allocatable; the node's weight is the
  mean of the two shares;
- a node cannot fit the reference pod when it is cordoned (spec.unschedulable), has no
  pod slot left, or has less free cpu or memory than the reference pod asks for
  (taints, affinity and ports are not considered);
- fragmentation = the weight of the nodes that cannot fit it / the weight of all nodes,
  between 0 (every free bit is usable) and 1 (none is); 0 when nothing is free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import median_low

from kubesim.results.state import ClusterState, NodeState

__all__ = ["FRAGMENTATION_RESOURCES", "fragmentation", "reference_pod"]

FRAGMENTATION_RESOURCES = ("cpu", "memory")


def reference_pod(requests: Iterable[Mapping[str, int]]) -> dict[str, int] | None:
    """Per-resource median (the lower middle value) of cpu and memory requests; None for no pods."""
    rows = list(requests)
    if not rows:
        return None
    return {r: median_low([req.get(r, 0) for req in rows]) for r in FRAGMENTATION_RESOURCES}


def _fits(node: NodeState, pod: Mapping[str, int]) -> bool:
    if node.unschedulable:
        return False
    slots = node.allocatable.get("pods")
    if slots is not None and node.pods + 1 > slots:
        return False
    return all(node.allocatable.get(r, 0) - node.requested.get(r, 0) >= pod.get(r, 0) for r in FRAGMENTATION_RESOURCES)


def fragmentation(state: ClusterState) -> float:
    """The fragmentation of the cluster in `state` (see the module docstring)."""
    nodes = list(state.nodes.values())
    shapes = {tuple(n.allocatable.get(r, 0) for r in FRAGMENTATION_RESOURCES) for n in nodes}
    placeable = [
        p.requests for p in state.pending_pods()
        if any(all(p.requests.get(r, 0) <= cap for r, cap in zip(FRAGMENTATION_RESOURCES, shape)) for shape in shapes)
    ]
    pod = reference_pod(placeable) if placeable else reference_pod(
        p.requests for p in state.pods.values() if not p.terminal)
    if pod is None:
        return 0.0
    totals = {r: sum(n.allocatable.get(r, 0) for n in nodes) for r in FRAGMENTATION_RESOURCES}
    free_all = stranded = 0.0
    for n in nodes:
        weight = 0.0
        for r in FRAGMENTATION_RESOURCES:
            if totals[r] > 0:
                weight += max(0, n.allocatable.get(r, 0) - n.requested.get(r, 0)) / totals[r]
        weight /= len(FRAGMENTATION_RESOURCES)
        free_all += weight
        if not _fits(n, pod):
            stranded += weight
    return stranded / free_all if free_all > 0 else 0.0
