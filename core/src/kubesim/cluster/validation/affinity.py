"""Node selectors and node/pod (anti-)affinity of a pod spec, as the API server validates them.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go: validateAffinity,
ValidateNodeSelector(Term/Requirement), ValidateNodeFieldSelectorRequirement,
ValidatePreferredSchedulingTerms, validatePodAffinityTerm(s), validateWeightedPodAffinityTerms,
ValidatePodAffinityTermSelector and validateMatchLabelKeysAndMismatchLabelKeys.
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import (
    FieldError,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    required,
    validate_label_selector,
)

from .taints import validate_label_name
from .values import as_int, as_list, as_map

__all__ = ["validate_affinity", "validate_label_keys", "validate_label_selector_field", "validate_node_selector"]

_WEIGHT = "must be in the range 1-100"


def validate_label_selector_field(selector: Any, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector for an optional selector field."""
    if selector is None:
        return []
    if not isinstance(selector, dict):
        return [invalid(path, selector, "must be a label selector")]
    return validate_label_selector(selector, path)


def _requirement(rq: Any, path: str) -> list[FieldError]:
    """ValidateNodeSelectorRequirement."""
    rq = as_map(rq)
    op, values = rq.get("operator"), as_list(rq.get("values"))
    errs: list[FieldError] = []
    if op in ("In", "NotIn"):
        if not values:
            errs.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(f"{path}.operator", op if op is not None else "", "not a valid selector operator"))
    errs.extend(validate_label_name(rq.get("key") or "", f"{path}.key"))
    return errs


def _field_requirement(rq: Any, path: str) -> list[FieldError]:
    """ValidateNodeFieldSelectorRequirement: only metadata.name In/NotIn one value."""
    rq = as_map(rq)
    op, values = rq.get("operator"), as_list(rq.get("values"))
    errs: list[FieldError] = []
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(required(f"{path}.values",
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(invalid(f"{path}.operator", op if op is not None else "", "not a valid selector operator"))
    if rq.get("key") != "metadata.name":
        errs.append(invalid(f"{path}.key", rq.get("key") or "", "not a valid field selector key"))
    else:
        for i, v in enumerate(values):
            errs.extend(invalid(f"{path}.values[{i}]", v, m) for m in is_dns1123_subdomain(str(v)))
    return errs


def _node_selector_term(term: Any, path: str) -> list[FieldError]:
    """ValidateNodeSelectorTerm."""
    term = as_map(term)
    errs: list[FieldError] = []
    for j, rq in enumerate(as_list(term.get("matchExpressions"))):
        errs.extend(_requirement(rq, f"{path}.matchExpressions[{j}]"))
    for j, rq in enumerate(as_list(term.get("matchFields"))):
        errs.extend(_field_requirement(rq, f"{path}.matchFields[{j}]"))
    return errs


def validate_node_selector(ns: Any, path: str) -> list[FieldError]:
    """ValidateNodeSelector: at least one term, each term's requirements."""
    terms = as_list(as_map(ns).get("nodeSelectorTerms"))
    errs: list[FieldError] = []
    if not terms:
        errs.append(required(f"{path}.nodeSelectorTerms", "must have at least one node selector term"))
    for i, term in enumerate(terms):
        errs.extend(_node_selector_term(term, f"{path}.nodeSelectorTerms[{i}]"))
    return errs


def _node_affinity(na: Any, path: str) -> list[FieldError]:
    """validateNodeAffinity: required terms (at least one) and weighted preferences."""
    na = as_map(na)
    errs: list[FieldError] = []
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        errs.extend(validate_node_selector(req, f"{path}.requiredDuringSchedulingIgnoredDuringExecution"))
    for i, pref in enumerate(as_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        p = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        pref = as_map(pref)
        errs.extend(_weight(pref.get("weight"), f"{p}.weight"))
        errs.extend(_node_selector_term(pref.get("preference"), f"{p}.preference"))
    return errs


def _weight(value: Any, path: str) -> list[FieldError]:
    weight = as_int(value)
    if weight is None:
        weight = 0
    return [] if 0 < weight <= 100 else [invalid(path, weight, _WEIGHT)]


def validate_label_keys(keys: Any, selector: Any, path: str) -> list[FieldError]:
    """validateLabelKeys: matchLabelKeys/mismatchLabelKeys are label names and need a labelSelector."""
    keys = as_list(keys)
    if not keys:
        return []
    if selector is None:
        return [forbidden(path, "must not be specified when labelSelector is not set")]
    errs: list[FieldError] = []
    for i, key in enumerate(keys):
        errs.extend(validate_label_name(key, f"{path}[{i}]"))
    return errs


def _match_label_keys(term: dict[str, Any], path: str) -> list[FieldError]:
    """validateMatchLabelKeysAndMismatchLabelKeys of a pod affinity term."""
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    selector = term.get("labelSelector")
    errs = validate_label_keys(match, selector, f"{path}.matchLabelKeys")
    errs.extend(validate_label_keys(mismatch, selector, f"{path}.mismatchLabelKeys"))
    if isinstance(selector, dict):
        index = {k: i for i, k in enumerate(match) if isinstance(k, str)}
        keys = set(as_map(selector.get("matchLabels")))
        for expr in as_list(selector.get("matchExpressions")):
            key = as_map(expr).get("key")
            if isinstance(key, str) and key in index and key in keys:
                # upstream's path here lacks the matchLabelKeys segment
                errs.append(invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and labelSelector"))
            if isinstance(key, str):
                keys.add(key)
    mismatched = {k for k in mismatch if isinstance(k, str)}
    for i, key in enumerate(match):
        if isinstance(key, str) and key in mismatched:
            errs.append(invalid(f"{path}.matchLabelKeys[{i}]", key, "exists in both matchLabelKeys and mismatchLabelKeys"))
    return errs


def _pod_affinity_term(term: Any, path: str) -> list[FieldError]:
    """validatePodAffinityTerm."""
    term = as_map(term)
    errs = validate_label_selector_field(term.get("labelSelector"), f"{path}.labelSelector")
    errs.extend(validate_label_selector_field(term.get("namespaceSelector"), f"{path}.namespaceSelector"))
    for name in as_list(term.get("namespaces")):
        errs.extend(invalid(f"{path}.namespace", name, m) for m in is_dns1123_label(str(name)))
    errs.extend(_match_label_keys(dict(term), path))
    key = term.get("topologyKey") or ""
    if not key:
        errs.append(required(f"{path}.topologyKey", "can not be empty"))
    errs.extend(validate_label_name(key, f"{path}.topologyKey"))
    return errs


def _pod_affinity(pa: Any, path: str) -> list[FieldError]:
    """validatePodAffinity / validatePodAntiAffinity (the same rules)."""
    pa = as_map(pa)
    errs: list[FieldError] = []
    p = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))):
        errs.extend(_pod_affinity_term(term, f"{p}[{i}]"))
    p = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, weighted in enumerate(as_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        weighted = as_map(weighted)
        errs.extend(_weight(weighted.get("weight"), f"{p}[{i}].weight"))
        errs.extend(_pod_affinity_term(weighted.get("podAffinityTerm"), f"{p}[{i}].podAffinityTerm"))
    return errs


def validate_affinity(affinity: Any, path: str) -> list[FieldError]:
    """validateAffinity: node affinity, pod affinity and pod anti-affinity."""
    if affinity is None:
        return []
    if not isinstance(affinity, dict):
        return [invalid(path, affinity, "must be an object")]
    errs: list[FieldError] = []
    if affinity.get("nodeAffinity") is not None:
        errs.extend(_node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity"))
    if affinity.get("podAffinity") is not None:
        errs.extend(_pod_affinity(affinity["podAffinity"], f"{path}.podAffinity"))
    if affinity.get("podAntiAffinity") is not None:
        errs.extend(_pod_affinity(affinity["podAntiAffinity"], f"{path}.podAntiAffinity"))
    return errs
