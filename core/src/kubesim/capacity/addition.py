"""`--add-nodes`: the fewest copies of a template node that let every pending pod schedule.

Each candidate number k is a full simulation: a fresh scheduler over the cluster plus k
template nodes places the pending pods (and the given copies) in the queue's order. The
search assumes more nodes never place fewer pods: k = 1, 2, 4, ... up to the bound, then a
binary search between the last k that failed and the first that worked. Before searching,
every pod is tried alone on one empty template node: a pod that does not fit one at all
makes every number fail, and the answer says which pod and the scheduler's reason.
As cluster-autoscaler's template nodes do, every new node starts with the pods of the
cluster's DaemonSets that the scheduler places on an empty template node.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from kubesim.capacity.copies import place_all, pod_key, queue_order
from kubesim.capacity.simulator import Placement, SchedulingSimulator

__all__ = ["AdditionReport", "MAX_NODES", "daemon_pods", "nodes_to_add", "template_nodes"]

MAX_NODES = 1000
"""Template nodes tried at most when --max-nodes is not given."""

MAX_EXPLAINED = 20
"""Pods left pending whose reason is given (each reason is one more scheduling attempt)."""

Factory = Callable[[Sequence[Mapping[str, Any]]], SchedulingSimulator]


@attrs.frozen
class AdditionReport:
    """The answer: how many template nodes (None: no number up to `max_nodes` suffices), the
    simulations run, and where the pods went or why they did not fit."""

    template: str
    pods: int
    nodes_needed: int | None
    max_nodes: int
    """the largest number searched: --max-nodes, or fewer when there are fewer pods (one node each suffices)"""
    trials: tuple[tuple[int, int], ...]
    """(k, pods left pending) for every simulation, in the order run"""
    placements: tuple[tuple[str, str], ...]
    """(pod, node) in the answer's simulation"""
    unschedulable: tuple[tuple[str, str], ...]
    """(pod, reason) when no number suffices: pods no template node takes, or those left at the
    bound (the reason of the first MAX_EXPLAINED of those only; "" for the others)"""

    def to_json(self) -> dict[str, Any]:
        return {
            "nodeTemplate": self.template,
            "pendingPods": self.pods,
            "nodesToAdd": self.nodes_needed,
            "maxNodes": self.max_nodes,
            "simulations": [{"nodesAdded": k, "podsPending": left} for k, left in self.trials],
            "placements": [{"pod": p, "nodeName": n} for p, n in self.placements],
            "unschedulablePods": [{"pod": p, "reason": r} for p, r in self.unschedulable],
        }


def template_nodes(template: Mapping[str, Any], count: int, taken: set[str]) -> list[dict[str, Any]]:
    """`count` copies named `<name>-<i>` (names in `taken` skipped), each with its own hostname label."""
    base = str((template.get("metadata") or {}).get("name") or "template")
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < count:
        name = f"{base}-{i}"
        i += 1
        if name in taken:
            continue
        node = copy.deepcopy(dict(template))
        meta = node.setdefault("metadata", {})
        meta.pop("generateName", None)
        meta["name"] = name
        meta["labels"] = {**(meta.get("labels") or {}), "kubernetes.io/hostname": name}
        out.append(node)
    return out


def _without_nodes(objects: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The cluster without its nodes and pods (the rest: PVCs, classes, PDBs ...)."""
    return [o for o in objects if not (o.get("apiVersion") == "v1" and o.get("kind") in ("Node", "Pod"))]


def _explain(sim: SchedulingSimulator, pods: Sequence[Mapping[str, Any]],
             placed: Mapping[str, Placement]) -> list[tuple[str, str]]:
    """The pods left pending at the bound, the first MAX_EXPLAINED with the scheduler's reason
    (each tried once more on the simulation's final state), the others with none."""
    out: list[tuple[str, str]] = []
    for pod in queue_order(pods):
        key = pod_key(pod)
        if placed[key].node is None:
            reason = sim.schedule(pod).message if len(out) < MAX_EXPLAINED else ""
            out.append((key, reason))
    return sorted(out)


# the tolerations the DaemonSet controller adds to every pod it creates (upstream:
# pkg/controller/daemon/util/daemonset_util.go AddOrUpdateDaemonPodTolerations)
_DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def daemon_tolerations(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pod spec's tolerations with the DaemonSet controller's own: each replaces the one that
    matches it (same key, operator, value and effect; upstream MatchToleration) or is appended."""
    tolerations = [dict(t) for t in spec.get("tolerations") or () if isinstance(t, Mapping)]
    wanted = list(_DAEMON_TOLERATIONS) + ([_HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, t in enumerate(tolerations) if (t.get("key") or "", t.get("operator") or "Equal",
                                                         t.get("value") or "", t.get("effect") or "")
                == (key, "Exists", "", effect)]
        for i in same:
            tolerations[i] = dict(toleration)
        if not same:
            tolerations.append(toleration)
    return tolerations


def daemon_pods(make: Factory, objects: Sequence[Mapping[str, Any]], probe: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pods of the cluster's DaemonSets that a template node would run: each DaemonSet's pod
    template, kept when the scheduler places it on `probe` (one template node, alone), in
    namespace/name order so that each sees the ones before it."""
    # upstream: kubernetes/autoscaler cluster-autoscaler/simulator/node_info_utils.go (template
    # node infos carry the DaemonSet pods that would run on them; daemonset.GetDaemonSetPodsForNode)
    node_name = str((probe.get("metadata") or {}).get("name", ""))
    sim = make([*_without_nodes(objects), probe])
    sets = sorted((o for o in objects if o.get("kind") == "DaemonSet" and o.get("apiVersion") == "apps/v1"),
                  key=lambda d: pod_key(d))
    out: list[dict[str, Any]] = []
    for ds in sets:
        meta, tmpl = ds.get("metadata") or {}, (ds.get("spec") or {}).get("template") or {}
        tmeta = tmpl.get("metadata") or {}
        spec: dict[str, Any] = dict(tmpl.get("spec") or {})
        spec["tolerations"] = daemon_tolerations(spec)
        pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"{meta.get('name', '')}-{node_name}", "namespace": meta.get("namespace") or "default",
                            "labels": dict(tmeta.get("labels") or {}),
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": meta.get("name", ""),
                                                 "uid": str(meta.get("uid") or ""), "controller": True}]},
               "spec": spec}
        if spec.get("containers") and sim.schedule(pod, explain=False).node is not None:
            out.append(pod)
    return out


def _on_nodes(pods: Sequence[Mapping[str, Any]], nodes: Sequence[Mapping[str, Any]], probe: str) -> list[dict[str, Any]]:
    """The DaemonSet pods found for the probe node, one set per node, bound to it."""
    out = []
    for node in nodes:
        name = str((node.get("metadata") or {}).get("name", ""))
        for pod in pods:
            meta = dict(pod.get("metadata") or {})
            meta["name"] = str(meta["name"])[: -len(probe)] + name
            out.append({**pod, "metadata": meta, "spec": {**(pod.get("spec") or {}), "nodeName": name}})
    return out


def nodes_to_add(make: Factory, objects: Sequence[Mapping[str, Any]], template: Mapping[str, Any],
                 pods: Sequence[Mapping[str, Any]], max_nodes: int = MAX_NODES) -> AdditionReport:
    """Search the fewest template nodes so that all `pods` schedule (see the module docstring)."""
    name = str((template.get("metadata") or {}).get("name") or "template")
    taken = {str((o.get("metadata") or {}).get("name", "")) for o in objects if o.get("kind") == "Node"}
    trials: list[tuple[int, int]] = []
    results: dict[int, dict[str, Placement]] = {}
    bound = max(1, min(max_nodes, len(pods)))

    def report(k: int | None, unschedulable: Sequence[tuple[str, str]] = ()) -> AdditionReport:
        placed = results.get(k, {}) if k is not None else {}
        return AdditionReport(name, len(pods), k, bound, tuple(trials),
                              tuple(sorted((p, str(pl.node)) for p, pl in placed.items() if pl.node)),
                              tuple(unschedulable))

    last: list[SchedulingSimulator] = []

    probe = template_nodes(template, 1, taken)[0]
    probe_name = str(probe["metadata"]["name"])
    daemons = daemon_pods(make, objects, probe)

    def left(k: int) -> int:
        if k not in results:
            nodes = template_nodes(template, k, taken)
            sim = make([*objects, *nodes, *_on_nodes(daemons, nodes, probe_name)])
            results[k] = place_all(sim, pods)
            last[:] = [sim]
            trials.append((k, sum(1 for p in results[k].values() if p.node is None)))
        return sum(1 for p in results[k].values() if p.node is None)

    if not pods or left(0) == 0:
        return report(0)
    alone = make([*_without_nodes(objects), probe, *_on_nodes(daemons, [probe], probe_name)])
    misfits = []
    for pod in pods:
        placement = alone.schedule(pod)
        if placement.node is None:
            misfits.append((pod_key(pod), placement.message))
        else:
            alone.remove_pod(pod)
    if misfits:
        return report(None, misfits)
    lo, hi = 0, 1
    while left(hi) > 0:
        if hi >= bound:
            return report(None, _explain(last[0], pods, results[hi]))
        lo, hi = hi, min(hi * 2, bound)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if left(mid) == 0:
            hi = mid
        else:
            lo = mid
    return report(hi)
