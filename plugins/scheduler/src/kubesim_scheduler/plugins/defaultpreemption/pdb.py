"""PodDisruptionBudgets as preemption reads them, and the PDB-violation split of victims."""

# upstream: plugins/defaultpreemption/default_preemption.go (filterPodsWithPDBViolation),
# framework/preemption/preemption.go (getPodDisruptionBudgets)

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesim.k8s.selectors import LabelSelector as Selector, SelectorError, label_selector_as_selector

from ...framework.pod_info import PodInfo

__all__ = ["PDB", "filter_pods_with_pdb_violation", "parse_pdbs"]


@dataclass(frozen=True)
class PDB:
    """A policy/v1 PodDisruptionBudget: namespace, selector, disruptionsAllowed, disruptedPods."""

    name: str
    namespace: str
    selector: Selector | None  # None: invalid selector (matches nothing)
    disruptions_allowed: int
    disrupted_pods: frozenset[str]

    @classmethod
    def from_object(cls, obj: Mapping[str, Any]) -> PDB:
        md = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        try:
            sel: Selector | None = label_selector_as_selector(spec.get("selector"))
        except SelectorError:
            sel = None
        return cls(
            md.get("name", ""),
            md.get("namespace") or "default",
            sel,
            int(status.get("disruptionsAllowed") or 0),
            frozenset(status.get("disruptedPods") or ()),
        )

    def matches(self, pod_info: PodInfo) -> bool:
        """Same namespace and a non-empty selector that selects the pod's labels."""
        sel = self.selector
        if self.namespace != pod_info.namespace or sel is None or sel.empty:
            return False
        return sel.matches(pod_info.labels)


def parse_pdbs(objs: Iterable[Mapping[str, Any]]) -> list[PDB]:
    return [PDB.from_object(o) for o in objs]


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PDB]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split pods (order kept) into those whose eviction would violate a PDB and the rest.

    Each matching PDB's budget is spent pod by pod; pods already in its disruptedPods are
    being evicted through the API and do not count.
    """
    allowed = [p.disruptions_allowed for p in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pod_infos:
        violated = False
        if pi.labels:  # a pod without labels matches no PDB
            for i, pdb in enumerate(pdbs):
                if not pdb.matches(pi) or pi.name in pdb.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating
