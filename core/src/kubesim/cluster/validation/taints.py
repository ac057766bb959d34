"""Node taints and pod tolerations, as the API server validates them.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go: validateNodeTaints,
validateTaintEffect, ValidateTolerations and validateOnlyAddedTolerations.
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import FieldError, forbidden, invalid, is_label_value, is_qualified_name, required

from .values import as_list, as_map, not_a_list, not_supported

__all__ = [
    "TAINT_EFFECTS",
    "validate_label_name",
    "validate_node_taints",
    "validate_only_added_tolerations",
    "validate_taint_effect",
    "validate_tolerations",
]

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_OPERATORS = ("Equal", "Exists")


def validate_label_name(key: Any, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelName: the key is a qualified name."""
    text = key if isinstance(key, str) else ""
    return [invalid(path, key, m) for m in is_qualified_name(text)]


def validate_taint_effect(effect: Any, allow_empty: bool, path: str) -> list[FieldError]:
    """validateTaintEffect: one of NoSchedule, PreferNoSchedule, NoExecute."""
    if not allow_empty and not effect:
        return [required(path)]
    if effect not in TAINT_EFFECTS:
        return [not_supported(path, effect, TAINT_EFFECTS)]
    return []


def _label_value_errors(value: Any, path: str) -> list[FieldError]:
    if value is None:
        return []
    msgs = is_label_value(value) if isinstance(value, str) else ["must be a string"]
    return [invalid(path, value, ";".join(msgs))] if msgs else []


def validate_node_taints(taints: Any, path: str) -> list[FieldError]:
    """validateNodeTaints: valid key, value and effect; unique by key and effect."""
    errs = not_a_list(taints, path, "taints")
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(as_list(taints)):
        p = f"{path}[{i}]"
        if not isinstance(taint, dict):
            errs.append(invalid(p, taint, "must be a taint object"))
            continue
        errs.extend(validate_label_name(taint.get("key") or "", f"{p}.key"))
        errs.extend(_label_value_errors(taint.get("value"), f"{p}.value"))
        errs.extend(validate_taint_effect(taint.get("effect") or "", False, f"{p}.effect"))
        pair = (str(taint.get("effect") or ""), str(taint.get("key") or ""))
        if pair in seen:
            errs.append(FieldError("Duplicate value", p, taint, "taints must be unique by key and effect pair"))
            continue
        seen.add(pair)
    return errs


def validate_tolerations(tolerations: Any, path: str) -> list[FieldError]:
    """ValidateTolerations, in upstream's order of checks."""
    errs = not_a_list(tolerations, path, "tolerations")
    for i, t in enumerate(as_list(tolerations)):
        p = f"{path}[{i}]"
        if not isinstance(t, dict):
            errs.append(invalid(p, t, "must be a toleration object"))
            continue
        key, operator = t.get("key") or "", t.get("operator") or ""
        value, effect = t.get("value") or "", t.get("effect") or ""
        if key:
            errs.extend(validate_label_name(key, f"{p}.key"))
        if not key and operator != "Exists":
            errs.append(invalid(f"{p}.operator", operator,
                                'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            errs.extend(_label_value_errors(value, f"{p}.operator"))
        elif operator == "Exists":
            if value:
                errs.append(invalid(f"{p}.operator", dict(t), "value must be empty when `operator` is 'Exists'"))
        else:
            errs.append(not_supported(f"{p}.operator", operator, _OPERATORS))
        if effect:
            errs.extend(validate_taint_effect(effect, True, f"{p}.effect"))
    return errs


def validate_only_added_tolerations(new: Any, old: Any, path: str) -> list[FieldError]:
    """validateOnlyAddedTolerations: on pod update, old tolerations stay (tolerationSeconds may change)."""
    new_list = [as_map(t) for t in as_list(new)]
    for o in as_list(old):
        base = {k: v for k, v in as_map(o).items() if k != "tolerationSeconds"}
        if not any({k: v for k, v in n.items() if k != "tolerationSeconds"} == base for n in new_list):
            return [forbidden(path, "existing toleration can not be modified except its tolerationSeconds")]
    return validate_tolerations(new, path)
