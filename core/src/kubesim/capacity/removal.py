"""`--remove-nodes`: which nodes can be drained with every pod rescheduled elsewhere.

Cluster compression as cluster-autoscaler's scale-down simulates it: candidates in a fixed
order (least utilised first: the larger of the cpu and memory requests over allocatable,
ties by name), each checked by draining it in the simulation: its pods that must move
(see kubesim.capacity.drain) are scheduled by the real scheduler on the remaining nodes;
when all fit, the node is removed for good (later candidates see the moved pods), and when
one does not, everything is put back.
"""

# upstream: kubernetes/autoscaler cluster-autoscaler/simulator/cluster.go (FindNodesToRemove,
# SimulateNodeRemoval), simulator/utilization/info.go (Calculate: max of cpu and memory)

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import attrs

from kubesim.capacity.copies import pod_key, queue_order
from kubesim.capacity.drain import PdbTracker, plan_drain
from kubesim.capacity.simulator import SchedulingSimulator
from kubesim.k8s.podrequests import pod_requests, resource_list

__all__ = ["RemovalReport", "find_removable_nodes", "utilization"]


@attrs.frozen
class RemovalReport:
    """Removable nodes (in the order found, with where their pods went) and why the others are not."""

    removable: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]
    """(node, utilization, ((pod, new node), ...))"""
    unremovable: tuple[tuple[str, str, str], ...]
    """(node, utilization, reason)"""

    def to_json(self) -> dict[str, Any]:
        return {
            "removableNodes": [{"nodeName": n, "utilization": u, "podsMoved": [{"pod": p, "toNode": t} for p, t in moved]}
                               for n, u, moved in self.removable],
            "unremovableNodes": [{"nodeName": n, "utilization": u, "reason": r} for n, u, r in self.unremovable],
        }


def _live(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def utilization(node: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> Fraction:
    """max(cpu requested / allocatable, memory requested / allocatable) of the node's live pods."""
    allocatable = resource_list((node.get("status") or {}).get("allocatable"))
    used: dict[str, int] = defaultdict(int)
    for pod in pods:
        if _live(pod):
            for name, amount in pod_requests(pod).items():
                used[name] += amount
    ratios = [Fraction(used[r], allocatable[r]) for r in ("cpu", "memory") if allocatable.get(r)]
    return max(ratios, default=Fraction(0))


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:.1f}%"


def find_removable_nodes(sim: SchedulingSimulator, objects: Sequence[Mapping[str, Any]]) -> RemovalReport:
    """Try each node in order; `sim` holds `objects` and ends holding the compressed cluster."""
    nodes = {str((o.get("metadata") or {}).get("name", "")): o for o in objects
             if o.get("kind") == "Node" and o.get("apiVersion") == "v1"}
    on_node: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for obj in objects:
        if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
            where = (obj.get("spec") or {}).get("nodeName")
            if where in nodes:
                on_node[where].append(obj)
    pdbs = PdbTracker(objects)
    order = sorted(nodes, key=lambda n: (utilization(nodes[n], on_node[n]), n))
    removable: list[tuple[str, str, tuple[tuple[str, str], ...]]] = []
    unremovable: list[tuple[str, str, str]] = []
    for name in order:
        node, pods = nodes[name], on_node[name]
        used = _percent(utilization(node, pods))
        plan = plan_drain(node, pods, pdbs)
        if plan.blocked is not None:
            unremovable.append((name, used, plan.blocked))
            continue
        for pod in pods:
            sim.remove_pod(pod)
        sim.remove_node(name)
        moved: list[tuple[str, str]] = []
        failure = None
        for pod in queue_order(plan.to_move):
            placement = sim.schedule(_unbound(pod), explain=False)
            if placement.node is None:
                reason = sim.schedule(_unbound(pod)).message  # the same state: the scheduler's reason
                failure = f"NoPlaceToMovePods: {pod_key(pod)}: {reason}"
                break
            moved.append((pod_key(pod), placement.node))
        if failure is None:
            pdbs.remove(plan.to_move)
            removable.append((name, used, tuple(moved)))
            for key, target in moved:  # later candidates count the moved pods on their new nodes
                on_node[target].append(_bound(_find(plan.to_move, key), target))
            continue
        for key, _ in moved:
            sim.remove_pod(_find(plan.to_move, key))
        sim.add_node(node)
        for pod in pods:
            sim.add_pod(pod)
        unremovable.append((name, used, failure))
    return RemovalReport(tuple(removable), tuple(unremovable))


def _find(pods: Sequence[Mapping[str, Any]], key: str) -> Mapping[str, Any]:
    return next(p for p in pods if pod_key(p) == key)


def _unbound(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The pod as its controller's replacement would be: no node, no status."""
    spec = {k: v for k, v in (pod.get("spec") or {}).items() if k != "nodeName"}
    return {**{k: v for k, v in pod.items() if k != "status"}, "spec": spec}


def _bound(pod: Mapping[str, Any], node: str) -> dict[str, Any]:
    return {**pod, "spec": {**(pod.get("spec") or {}), "nodeName": node}}
