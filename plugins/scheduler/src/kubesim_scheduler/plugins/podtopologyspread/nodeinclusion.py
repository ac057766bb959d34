"""Which nodes count for spreading: the pod's required node affinity and untolerated taints.

upstream: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
(GetRequiredNodeAffinity, LazyErrorNodeSelector), staging/src/k8s.io/component-helpers/scheduling/
corev1/helpers.go (FindMatchingUntoleratedTaint), staging/src/k8s.io/api/core/v1/toleration.go,
pkg/scheduler/framework/plugins/helper/taint.go (DoNotScheduleTaintsFilterFunc).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesim.k8s.selectors import (
    DOES_NOT_EXIST,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
    Requirement,
    SelectorError,
    selector_from_set,
)
from kubesim.k8s.selectors import LabelSelector as Selector


__all__ = ["RequiredNodeAffinity", "has_untolerated_taint", "tolerates"]

_NODE_OPS = {
    "In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST, "Gt": GREATER_THAN, "Lt": LESS_THAN,
}


class _Term:
    """A parsed nodeSelectorTerm; a term that failed to parse never matches."""

    __slots__ = ("fields", "invalid", "labels")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.labels: Selector | None = None
        self.fields: list[tuple[str, str, str]] | None = None
        self.invalid = False
        exprs = raw.get("matchExpressions") or []
        if exprs:
            reqs = []
            for e in exprs:
                op = _NODE_OPS.get(e.get("operator", ""))
                if op is None:
                    self.invalid = True
                    continue
                try:
                    reqs.append(Requirement.new(e.get("key", ""), op, list(e.get("values") or [])))
                except SelectorError:
                    self.invalid = True
            self.labels = Selector(reqs)
        fields = raw.get("matchFields") or []
        if fields:
            self.fields = []
            for e in fields:
                vals = e.get("values") or []
                op = e.get("operator", "")
                if op not in ("In", "NotIn") or len(vals) != 1:
                    self.invalid = True
                    continue
                self.fields.append((e.get("key", ""), op, vals[0]))

    def match(self, labels: Mapping[str, str], node_name: str) -> bool:
        if self.invalid:
            return False
        if self.labels is not None and not self.labels.matches(labels):
            return False
        if self.fields is not None and node_name:
            node_fields = {"metadata.name": node_name}
            for key, op, value in self.fields:
                have = node_fields.get(key)
                if op == "In" and have != value:
                    return False
                if op == "NotIn" and have == value:
                    return False
        return True


class RequiredNodeAffinity:
    """nodeaffinity.RequiredNodeAffinity: spec.nodeSelector AND required node affinity terms (ORed)."""

    def __init__(self, pod: Mapping[str, Any]) -> None:
        spec = pod.get("spec") or {}
        node_selector = spec.get("nodeSelector") or {}
        self.label_selector: Selector | None = selector_from_set(node_selector) if node_selector else None
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        self.terms: list[_Term] | None = None
        if required is not None:
            self.terms = [
                _Term(t)
                for t in required.get("nodeSelectorTerms") or []
                if (t.get("matchExpressions") or t.get("matchFields"))
            ]
        self.key: Any = (
            tuple(sorted(node_selector.items())),
            repr(required) if required is not None else None,
        )

    def match(self, node: Mapping[str, Any]) -> bool:
        """RequiredNodeAffinity.Match, ignoring parse errors as PodTopologySpread does."""
        meta = node.get("metadata") or {}
        labels = meta.get("labels") or {}
        if self.label_selector is not None and not self.label_selector.matches(labels):
            return False
        if self.terms is not None:
            name = meta.get("name", "") or ""
            return any(t.match(labels, name) for t in self.terms)
        return True


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != (taint.get("effect") or ""):
        return False
    key = toleration.get("key") or ""
    if key and key != (taint.get("key") or ""):
        return False
    op = toleration.get("operator") or ""
    if op in ("", "Equal"):
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def has_untolerated_taint(
    taints: Sequence[Mapping[str, Any]], tolerations: Sequence[Mapping[str, Any]]
) -> bool:
    """FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc (NoSchedule, NoExecute)."""
    for taint in taints:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return True
    return False
