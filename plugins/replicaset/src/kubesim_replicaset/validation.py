"""apps/v1 validation of Deployments and ReplicaSets, with the API server's messages.

Ports the spec part of k8s.io/kubernetes pkg/apis/apps/validation/validation.go
(ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet,
ValidateDeploymentStrategy, ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent,
IsNotMoreThan100Percent); ValidateLabelSelector and ValidateLabels are the core's
(kubesim.k8s.validation). Metadata is validated by the core before these run. Bad values print as
JSON, as apimachinery's field.Error does from v1.34 on: for example
`spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match
template `labels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.cluster.pods import validate_pod
from kubesim.errors import ApiError
from kubesim.k8s.selectors import NOTHING, LabelSelector
from kubesim.k8s.validation import (
    FieldError,
    forbidden,
    invalid,
    is_qualified_name,
    required,
    validate_label_selector,
    validate_labels,
)

from .intorpercent import is_valid_percent

__all__ = [
    "validate_deployment_spec",
    "validate_immutable_selector",
    "validate_replicaset_spec",
]

_NEGATIVE = "must be greater than or equal to 0"


def _nonnegative(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [invalid(path, value, _NEGATIVE)]
    return []


def _template_errors(template: Any, selector: LabelSelector, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpecForReplicaSet."""
    if not isinstance(template, Mapping):
        return [required(path)]
    errs: list[FieldError] = []
    tmeta = template.get("metadata") or {}
    labels = tmeta.get("labels")
    if not selector.empty and not selector.matches(labels or {}):
        errs.append(invalid(f"{path}.metadata.labels", labels, "`selector` does not match template `labels`"))
    errs.extend(validate_labels(labels, f"{path}.metadata.labels"))
    for k in sorted(tmeta.get("annotations") or {}):
        errs.extend(invalid(f"{path}.metadata.annotations", k, m) for m in is_qualified_name(k.lower()))
    pod_spec = template.get("spec")
    for e in validate_pod({"spec": pod_spec if isinstance(pod_spec, dict) else None}):
        errs.append(FieldError(e.type, f"{path}.{e.field}", e.value, e.detail))
    spec = pod_spec if isinstance(pod_spec, Mapping) else {}
    policy = spec.get("restartPolicy") or "Always"
    if policy != "Always":
        errs.append(FieldError("Unsupported value", f"{path}.spec.restartPolicy", policy, 'supported values: "Always"'))
    if spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(f"{path}.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicaSet is not Supported"))
    return errs


def _selector_and_template(spec: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    selector = spec.get("selector")
    if selector is None:
        errs.append(required(f"{path}.selector"))
    elif isinstance(selector, Mapping):
        errs.extend(validate_label_selector(selector, f"{path}.selector"))
        if not (selector.get("matchLabels") or {}) and not (selector.get("matchExpressions") or []):
            errs.append(invalid(f"{path}.selector", selector, "empty selector is invalid for deployment"))
    try:
        parsed = LabelSelector.from_dict(selector) if isinstance(selector, Mapping) else None
    except ApiError:
        parsed = None
        errs.append(invalid(f"{path}.selector", selector, "invalid label selector"))
        return errs
    if selector is not None and parsed is None:
        errs.append(invalid(f"{path}.selector", selector, "invalid label selector"))
        return errs
    # a nil selector converts to labels.Nothing(), which is not Empty: templates never match it
    effective = parsed if parsed is not None else NOTHING
    errs.extend(_template_errors(spec.get("template"), effective, f"{path}.template"))
    return errs


def validate_replicaset_spec(spec: Mapping[str, Any], path: str = "spec") -> list[FieldError]:
    """ValidateReplicaSetSpec."""
    errs = _nonnegative(spec.get("replicas"), f"{path}.replicas")
    errs.extend(_nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds"))
    errs.extend(_selector_and_template(spec, path))
    return errs


def _int_or_percent_errors(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, str):
        return [invalid(path, value, m) for m in is_valid_percent(value)]
    return _nonnegative(value, path)


def _percent(value: Any) -> int | None:
    if isinstance(value, str) and not is_valid_percent(value):
        return int(value[:-1])
    return None


def _int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: the percentage number, or the int (IntValue of a bad string is 0)."""
    pct = _percent(value)
    if pct is not None:
        return pct
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return 0


def _strategy_errors(strategy: Any, path: str) -> list[FieldError]:
    """ValidateDeploymentStrategy and ValidateRollingUpdateDeployment."""
    strategy = strategy if isinstance(strategy, Mapping) else {}
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        if not isinstance(rolling, Mapping):
            return [required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        p = f"{path}.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errs = _int_or_percent_errors(unavailable, f"{p}.maxUnavailable")
        errs.extend(_int_or_percent_errors(surge, f"{p}.maxSurge"))
        if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
            errs.append(invalid(f"{p}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
        pct = _percent(unavailable)
        if pct is not None and pct > 100:
            errs.append(invalid(f"{p}.maxUnavailable", unavailable, "must not be greater than 100%"))
        return errs
    return [FieldError("Unsupported value", path, dict(strategy), 'supported values: "Recreate", "RollingUpdate"')]


def validate_deployment_spec(spec: Mapping[str, Any], path: str = "spec") -> list[FieldError]:
    """ValidateDeploymentSpec."""
    errs = _nonnegative(spec.get("replicas"), f"{path}.replicas")
    errs.extend(_selector_and_template(spec, path))
    errs.extend(_strategy_errors(spec.get("strategy"), f"{path}.strategy"))
    errs.extend(_nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds"))
    if spec.get("revisionHistoryLimit") is not None:
        errs.extend(_nonnegative(spec.get("revisionHistoryLimit"), f"{path}.revisionHistoryLimit"))
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        errs.extend(_nonnegative(deadline, f"{path}.progressDeadlineSeconds"))
        if isinstance(deadline, int) and deadline <= int(spec.get("minReadySeconds") or 0):
            errs.append(invalid(f"{path}.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return errs


def validate_immutable_selector(new: Mapping[str, Any], old: Mapping[str, Any], path: str = "spec.selector") -> list[FieldError]:
    """ValidateImmutableField for spec.selector (apps/v1 forbids changing it)."""
    selector, old_selector = new.get("selector"), old.get("selector")
    if _normal(selector) != _normal(old_selector):
        return [invalid(path, selector, "field is immutable")]
    return []


def _normal(selector: Any) -> Any:
    """A selector with empty fields dropped (semantic equality treats nil and empty alike)."""
    if not isinstance(selector, Mapping):
        return selector
    return {k: v for k, v in selector.items() if v not in (None, {}, [])}
