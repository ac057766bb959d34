"""PriorityClasses, as the API server validates them on create and update.

Ports k8s.io/kubernetes pkg/apis/scheduling/validation/validation.go (ValidatePriorityClass,
ValidatePriorityClassUpdate) and pkg/apis/scheduling/v1 IsKnownSystemPriorityClass. The
single-globalDefault rule needs the stored classes and stays in the Priority admission
plugin (kubesim.cluster.priority).
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import FieldError, forbidden

from ..priority import HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASSES
from .values import as_int, immutable, not_supported

__all__ = ["validate_priority_class", "validate_priority_class_update"]

_SYSTEM_PREFIX = "system-"
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _system_class_error(name: str, value: Any, global_default: Any) -> str | None:
    """IsKnownSystemPriorityClass: why a system- class is not one of the two known ones."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if as_int(value) != known:
        return f"value of {name} PriorityClass must be {known}"
    if bool(global_default):
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def validate_priority_class(pc: dict[str, Any]) -> list[FieldError]:
    """ValidatePriorityClass (metadata aside)."""
    name = str((pc.get("metadata") or {}).get("name") or "")
    errs: list[FieldError] = []
    value = as_int(pc.get("value")) or 0
    if name.startswith(_SYSTEM_PREFIX):
        why = _system_class_error(name, pc.get("value", 0), pc.get("globalDefault"))
        if why is not None:
            errs.append(forbidden("metadata.name", f"priority class names with '{_SYSTEM_PREFIX}' prefix are "
                                                   f"reserved for system use only. error: {why}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden("value", f"maximum allowed value of a user defined priority is "
                                       f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = pc.get("preemptionPolicy")
    if policy is not None and policy not in _PREEMPTION_POLICIES:
        errs.append(not_supported("preemptionPolicy", policy, _PREEMPTION_POLICIES))
    return errs


def validate_priority_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidatePriorityClassUpdate: value and preemptionPolicy never change."""
    errs: list[FieldError] = []
    if new.get("value", 0) != old.get("value", 0):
        errs.append(forbidden("value", "may not be changed in an update."))
    errs.extend(immutable(new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy"))
    return errs
