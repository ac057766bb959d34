"""Which pods of a node must be rescheduled to drain it, as cluster-autoscaler's scale-down decides.

The default drainability rules in their order; the first rule with an outcome decides:
mirror and long-terminating pods are skipped; DaemonSet pods go with the node (never
rescheduled); safe-to-evict=true pods move; terminal pods are skipped; then a pod blocks the
drain when it is not replicated, a kube-system pod without a PDB, annotated not safe to evict,
using local storage, or its PDB allows no more disruptions. Every other pod must move.
"""

# upstream: kubernetes/autoscaler cluster-autoscaler/simulator/drainability/rules/rules.go
# (Default) and rules/{mirror,daemonset,safetoevict,terminal,replicated,system,notsafetoevict,
# localstorage,pdb}/rule.go; utils/drain/drain.go (HasBlockingLocalStorage, ControllerRef);
# core/scaledown/pdb/basic.go (RemainingPdbTracker)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.k8s.selectors import LabelSelector, SelectorError

__all__ = ["DrainPlan", "PdbTracker", "plan_drain"]

SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
DAEMONSET_POD = "cluster-autoscaler.kubernetes.io/daemonset-pod"
MIRROR = "kubernetes.io/config.mirror"
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
_REPLICATED_KINDS = frozenset({"ReplicationController", "Job", "ReplicaSet", "StatefulSet"})


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _controller(pod: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in _meta(pod).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


def is_daemonset_pod(pod: Mapping[str, Any]) -> bool:
    """pod_util.IsDaemonSetPod: controlled by a DaemonSet, or annotated as one."""
    ref = _controller(pod)
    return (ref is not None and ref.get("kind") == "DaemonSet") or (_meta(pod).get("annotations") or {}).get(DAEMONSET_POD) == "true"


def is_mirror_pod(pod: Mapping[str, Any]) -> bool:
    return MIRROR in (_meta(pod).get("annotations") or {})


class PdbTracker:
    """PodDisruptionBudgets with the disruptions still allowed (status.disruptionsAllowed, less
    the pods already moved off removed nodes)."""

    def __init__(self, objects: Sequence[Mapping[str, Any]]) -> None:
        self._pdbs: list[tuple[str, str, LabelSelector, list[int]]] = []
        for obj in objects:
            if obj.get("kind") != "PodDisruptionBudget":
                continue
            try:
                selector = LabelSelector.from_dict((obj.get("spec") or {}).get("selector"))
            except SelectorError:
                continue
            allowed = (obj.get("status") or {}).get("disruptionsAllowed")
            meta = _meta(obj)
            self._pdbs.append((str(meta.get("namespace") or "default"), str(meta.get("name", "")), selector,
                               [allowed if isinstance(allowed, int) else 0]))

    def matching(self, pod: Mapping[str, Any]) -> list[tuple[str, list[int]]]:
        ns = _meta(pod).get("namespace") or "default"
        labels = _meta(pod).get("labels") or {}
        return [(name, left) for pns, name, sel, left in self._pdbs if pns == ns and sel.matches(labels)]

    def remove(self, pods: Sequence[Mapping[str, Any]]) -> None:
        """The pods were evicted: each takes one disruption from every PDB it matches."""
        for pod in pods:
            for _, left in self.matching(pod):
                left[0] -= 1


@attrs.frozen
class DrainPlan:
    """The pods that must be rescheduled, those that go with the node, or why the node cannot drain."""

    to_move: tuple[Mapping[str, Any], ...]
    go_with_node: tuple[Mapping[str, Any], ...]
    blocked: str | None = None


def _blocking_local_storage(pod: Mapping[str, Any]) -> bool:
    safe = {v.strip() for v in str((_meta(pod).get("annotations") or {}).get(SAFE_TO_EVICT_LOCAL_VOLUMES, "")).split(",")}
    return any(isinstance(v, Mapping) and "emptyDir" in v and v.get("name") not in safe
               for v in (pod.get("spec") or {}).get("volumes") or ())


def _blocked(pod: Mapping[str, Any], pdbs: PdbTracker) -> str | None:
    """The blocking rules, in order (rules.go: replicated, system, notsafetoevict, localstorage, pdb)."""
    meta = _meta(pod)
    ns, name = meta.get("namespace") or "default", meta.get("name", "")
    ref = _controller(pod)
    if ref is None or ref.get("kind") not in _REPLICATED_KINDS:
        return f"NotReplicated: {ns}/{name} is not replicated"
    matching = pdbs.matching(pod)
    if ns == "kube-system" and not matching:
        return f"UnmovableKubeSystemPod: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: {name}"
    if (meta.get("annotations") or {}).get(SAFE_TO_EVICT) == "false":
        return f"NotSafeToEvictAnnotation: pod annotated as not safe to evict present: {name}"
    if _blocking_local_storage(pod):
        return f"LocalStorageRequested: pod with local storage present: {name}"
    if any(left[0] < 1 for _, left in matching):
        return f"NotEnoughPdb: not enough pod disruption budget to move {ns}/{name}"
    return None


def plan_drain(node: Mapping[str, Any], pods: Sequence[Mapping[str, Any]], pdbs: PdbTracker) -> DrainPlan:
    """What draining `node` (holding `pods`) takes, by the rules above."""
    if (_meta(node).get("annotations") or {}).get(SCALE_DOWN_DISABLED) == "true":
        return DrainPlan((), (), "ScaleDownDisabledAnnotation: node is annotated scale-down-disabled")
    move: list[Mapping[str, Any]] = []
    stay: list[Mapping[str, Any]] = []
    for pod in pods:
        annotations = _meta(pod).get("annotations") or {}
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if is_mirror_pod(pod) or _meta(pod).get("deletionTimestamp"):
            stay.append(pod)  # mirror, longterminating: skipped
        elif is_daemonset_pod(pod):
            stay.append(pod)  # evicted with the node, never rescheduled
        elif annotations.get(SAFE_TO_EVICT) == "true":
            move.append(pod)
        elif terminal:
            stay.append(pod)
        else:
            reason = _blocked(pod, pdbs)
            if reason is not None:
                return DrainPlan((), (), reason)
            move.append(pod)
    return DrainPlan(tuple(move), tuple(stay))
