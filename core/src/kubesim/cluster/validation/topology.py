"""Pod topology spread constraints, as the API server validates them.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go validateTopologySpreadConstraints
(ValidateMaxSkew, ValidateTopologyKey, ValidateWhenUnsatisfiable, ValidateSpreadConstraintNotRepeat,
validateMinDomains, validateNodeInclusionPolicy, validateMatchLabelKeysInTopologySpread).
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import FieldError, duplicate, forbidden, invalid, required

from .affinity import validate_label_selector_field
from .taints import validate_label_name
from .values import NOT_POSITIVE, as_int, as_list, as_map, not_a_list, not_supported

__all__ = ["validate_topology_spread_constraints"]

_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")  # sets.List order
_POLICIES = ("Honor", "Ignore")


def _max_skew(value: Any, path: str) -> list[FieldError]:
    skew = as_int(value)
    if skew is None:
        skew = 0
    return [invalid(path, skew, NOT_POSITIVE)] if skew <= 0 else []


def _min_domains(value: Any, action: Any, path: str) -> list[FieldError]:
    if value is None:
        return []
    errs: list[FieldError] = []
    n = as_int(value)
    if n is None or n <= 0:
        errs.append(invalid(path, value, NOT_POSITIVE))
    if action != "DoNotSchedule":
        errs.append(invalid(path, value, f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action or ''}"))
    return errs


def _match_label_keys(keys: Any, selector: Any, path: str) -> list[FieldError]:
    keys = as_list(keys)
    if not keys:
        return []
    errs: list[FieldError] = []
    in_selector: set[str] = set()
    if selector is not None:
        sel = as_map(selector)
        in_selector.update(as_map(sel.get("matchLabels")))
        in_selector.update(str(as_map(e).get("key")) for e in as_list(sel.get("matchExpressions")))
    else:
        errs.append(forbidden(path, "must not be specified when labelSelector is not set"))
    for i, key in enumerate(keys):
        errs.extend(validate_label_name(key, f"{path}[{i}]"))
        if isinstance(key, str) and key in in_selector:
            errs.append(invalid(f"{path}[{i}]", key, "exists in both matchLabelKeys and labelSelector"))
    return errs


def validate_topology_spread_constraints(constraints: Any, path: str) -> list[FieldError]:
    """validateTopologySpreadConstraints, each constraint's checks in upstream's order."""
    items = as_list(constraints)
    errs = not_a_list(constraints, path, "topology spread constraints")
    for i, c in enumerate(items):
        p = f"{path}[{i}]"
        if not isinstance(c, dict):
            errs.append(invalid(p, c, "must be a topology spread constraint object"))
            continue
        errs.extend(_max_skew(c.get("maxSkew"), f"{p}.maxSkew"))
        key, action = c.get("topologyKey") or "", c.get("whenUnsatisfiable") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        if action not in _ACTIONS:
            errs.append(not_supported(f"{p}.whenUnsatisfiable", action, _ACTIONS))
        for rest in items[i + 1:]:
            rest = as_map(rest)
            if (rest.get("topologyKey") or "") == key and (rest.get("whenUnsatisfiable") or "") == action:
                errs.append(duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
                break
        errs.extend(_min_domains(c.get("minDomains"), action, f"{p}.minDomains"))
        for field in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = c.get(field)
            if policy is not None and policy not in _POLICIES:
                errs.append(not_supported(f"{p}.{field}", policy, _POLICIES))
        errs.extend(_match_label_keys(c.get("matchLabelKeys"), c.get("labelSelector"), f"{p}.matchLabelKeys"))
        errs.extend(validate_label_selector_field(c.get("labelSelector"), f"{p}.labelSelector"))
    return errs
