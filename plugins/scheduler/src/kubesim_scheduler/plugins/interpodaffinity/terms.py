"""Parsed pod (anti-)affinity terms, as kube-scheduler's PodInfo holds them.

upstream: pkg/scheduler/framework/types.go (newAffinityTerm, GetAffinityTerms, PodInfo.Update,
podWithAffinity, podWithRequiredAntiAffinity) and staging/src/k8s.io/kube-scheduler/framework/types.go
(AffinityTerm.Matches).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesim.k8s.selectors import NOTHING, SelectorError, label_selector_as_selector
from kubesim.k8s.selectors import LabelSelector as Selector
from kubesim.k8s.validation import aggregate

__all__ = [
    "AffinityTerm",
    "PodAffinityInfo",
    "WeightedAffinityTerm",
    "apply_match_label_keys",
    "merge_namespace_selector",
    "pod_affinity_info",
]


@dataclass(frozen=True)
class AffinityTerm:
    """A processed v1.PodAffinityTerm."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, namespace: str, labels: Mapping[str, str], ns_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches for a pod given by namespace and labels."""
        if namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(labels)
        return False

    def sig(self) -> tuple[Any, ...]:
        """Hashable identity used to group identical terms of many pods."""
        return (self.namespaces, self.selector.sig(), self.topology_key, self.namespace_selector.sig())


@dataclass(frozen=True)
class WeightedAffinityTerm:
    """A processed v1.WeightedPodAffinityTerm."""

    term: AffinityTerm
    weight: int


@dataclass
class PodAffinityInfo:
    """The affinity part of PodInfo: the pod plus its parsed terms."""

    pod: Mapping[str, Any]
    namespace: str
    labels: Mapping[str, str]
    required_affinity: list[AffinityTerm] = field(default_factory=list)
    required_anti_affinity: list[AffinityTerm] = field(default_factory=list)
    preferred_affinity: list[WeightedAffinityTerm] = field(default_factory=list)
    preferred_anti_affinity: list[WeightedAffinityTerm] = field(default_factory=list)
    has_affinity: bool = False
    has_required_anti_affinity: bool = False
    parse_error: str | None = None


def _new_term(pod_ns: str, raw: Mapping[str, Any]) -> AffinityTerm:
    selector = label_selector_as_selector(raw.get("labelSelector"))
    ns_list = raw.get("namespaces") or []
    ns_sel_raw = raw.get("namespaceSelector")
    if not ns_list and ns_sel_raw is None:
        namespaces = frozenset([pod_ns])
    else:
        namespaces = frozenset(ns_list)
    ns_selector = label_selector_as_selector(ns_sel_raw)
    return AffinityTerm(namespaces, selector, raw.get("topologyKey", "") or "", ns_selector)


def _terms(pod_ns: str, raws: list[Mapping[str, Any]] | None) -> list[AffinityTerm]:
    return [_new_term(pod_ns, r) for r in raws or []]


def _weighted(pod_ns: str, raws: list[Mapping[str, Any]] | None) -> list[WeightedAffinityTerm]:
    return [
        WeightedAffinityTerm(_new_term(pod_ns, r.get("podAffinityTerm") or {}), int(r.get("weight", 0) or 0))
        for r in raws or []
    ]


def pod_affinity_info(pod: Mapping[str, Any]) -> PodAffinityInfo:
    """NewPodInfo: parse every term list; a list that fails to parse is left empty and reported."""
    meta = pod.get("metadata") or {}
    ns = meta.get("namespace", "") or ""
    info = PodAffinityInfo(pod=pod, namespace=ns, labels=meta.get("labels") or {})
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    pa = affinity.get("podAffinity")
    paa = affinity.get("podAntiAffinity")
    info.has_affinity = pa is not None or paa is not None
    info.has_required_anti_affinity = bool(paa and paa.get("requiredDuringSchedulingIgnoredDuringExecution"))
    errs: list[str] = []
    parts = (
        (
            "requiredAffinityTerms",
            "required_affinity",
            _terms,
            pa,
            "requiredDuringSchedulingIgnoredDuringExecution",
        ),
        (
            "requiredAntiAffinityTerms",
            "required_anti_affinity",
            _terms,
            paa,
            "requiredDuringSchedulingIgnoredDuringExecution",
        ),
        (
            "preferredAffinityTerms",
            "preferred_affinity",
            _weighted,
            pa,
            "preferredDuringSchedulingIgnoredDuringExecution",
        ),
        (
            "preferredAntiAffinityTerms",
            "preferred_anti_affinity",
            _weighted,
            paa,
            "preferredDuringSchedulingIgnoredDuringExecution",
        ),
    )
    for label, attr, parse, src, key in parts:
        raws = (src or {}).get(key)
        try:
            setattr(info, attr, parse(ns, raws))
        except SelectorError as e:
            errs.append(f"{label}: {e}")
    if errs:
        info.parse_error = aggregate(errs)
    return info


def merge_namespace_selector(term: AffinityTerm, namespaces: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """mergeAffinityTermNamespacesIfNotEmpty: unroll a non-empty namespaceSelector into namespaces.

    Applied to the incoming pod's terms, after which matching them needs no namespace labels.
    """
    if term.namespace_selector.empty:
        return term
    names = set(term.namespaces)
    sel = term.namespace_selector
    for name, labels in namespaces.items():
        if sel.matches(labels or {}):
            names.add(name)
    return AffinityTerm(frozenset(names), term.selector, term.topology_key, NOTHING)


def apply_match_label_keys(pod: dict[str, Any]) -> dict[str, Any]:
    """Merge matchLabelKeys/mismatchLabelKeys of pod (anti-)affinity terms into their labelSelector.

    In v1.34 kube-apiserver does this once at pod creation (the scheduler only reads the
    merged labelSelector), so it belongs in the simulator's admission, not in the plugin.
    Mutates and returns `pod`. upstream: pkg/registry/core/pod/strategy.go
    (applyMatchLabelKeysAndMismatchLabelKeys).
    """
    labels = (pod.get("metadata") or {}).get("labels") or {}
    affinity = (pod.get("spec") or {}).get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        a = affinity.get(kind) or {}
        terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [
            w.get("podAffinityTerm") or {}
            for w in a.get("preferredDuringSchedulingIgnoredDuringExecution") or []
        ]
        for t in terms:
            match, mismatch = t.get("matchLabelKeys") or [], t.get("mismatchLabelKeys") or []
            sel = t.get("labelSelector")
            if (not match and not mismatch) or sel is None:
                continue
            exprs = sel.setdefault("matchExpressions", [])
            exprs += [{"key": k, "operator": "In", "values": [labels[k]]} for k in match if k in labels]
            exprs += [{"key": k, "operator": "NotIn", "values": [labels[k]]} for k in mismatch if k in labels]
    return pod
