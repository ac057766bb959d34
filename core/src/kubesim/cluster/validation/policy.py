"""policy/v1 PodDisruptionBudgets, as the API server validates them.

Ports k8s.io/kubernetes pkg/apis/policy/validation/validation.go ValidatePodDisruptionBudgetSpec
(minAvailable XOR maxUnavailable, each an int >= 0 or a percentage up to 100%, the selector,
unhealthyPodEvictionPolicy).
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.validation import FieldError, invalid

from .affinity import validate_label_selector_field
from .apps import not_more_than_100_percent, validate_int_or_percent
from .values import as_map, not_supported

__all__ = ["validate_pod_disruption_budget"]

_EVICTION_POLICIES = ("IfHealthyBudget", "AlwaysAllow")


def validate_pod_disruption_budget(pdb: dict[str, Any]) -> list[FieldError]:
    """ValidatePodDisruptionBudgetSpec."""
    spec = as_map(pdb.get("spec"))
    errs: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errs.append(invalid("spec", dict(spec), "minAvailable and maxUnavailable cannot be both set"))
    for field in ("minAvailable", "maxUnavailable"):
        if spec.get(field) is not None:
            errs.extend(validate_int_or_percent(spec[field], f"spec.{field}"))
            errs.extend(not_more_than_100_percent(spec[field], f"spec.{field}"))
    errs.extend(validate_label_selector_field(spec.get("selector"), "spec.selector"))
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        errs.append(not_supported("spec.unhealthyPodEvictionPolicy", policy, _EVICTION_POLICIES))
    return errs
