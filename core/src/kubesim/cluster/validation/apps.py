"""apps/v1 Deployments, ReplicaSets, StatefulSets and DaemonSets, as the API server validates them.

Ports k8s.io/kubernetes pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec,
ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy,
ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent, IsNotMoreThan100Percent,
ValidateStatefulSetSpec, ValidateStatefulSetUpdate, ValidateDaemonSetSpec,
ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet) and the apps/v1 strategies'
immutable selector (pkg/registry/apps/*/strategy.go ValidateUpdate). The pod template is
validated as a pod template (core ValidatePodTemplateSpec) with the template's path. Bad
values print as JSON, as apimachinery's field.Error does from v1.34 on: for example
`spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match
template `labels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.errors import ApiError
from kubesim.k8s.intorpercent import is_valid_percent
from kubesim.k8s.selectors import NOTHING, LabelSelector
from kubesim.k8s.validation import (
    FieldError,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    required,
    validate_label_selector,
)

from .podspec import validate_pod_template
from .values import as_int, as_map, nonnegative, not_supported

__all__ = [
    "not_more_than_100_percent",
    "selector_value",
    "sorted_map",
    "validate_daemonset",
    "validate_deployment",
    "validate_immutable_selector",
    "validate_int_or_percent",
    "validate_replicaset",
    "validate_statefulset",
    "validate_statefulset_update",
]

_MUTABLE_STS = ("replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
                "minReadySeconds")


def sorted_map(value: Any) -> Any:
    return dict(sorted(value.items())) if isinstance(value, dict) else value


def selector_value(selector: Mapping[str, Any]) -> dict[str, Any]:
    """metav1.LabelSelector as JSON (omitempty fields left out, map keys sorted)."""
    out: dict[str, Any] = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = sorted_map(selector["matchLabels"])
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [
            {k: e[k] for k in ("key", "operator", "values") if isinstance(e, dict) and e.get(k) not in (None, [], "")}
            for e in selector["matchExpressions"]
        ]
    return out


def _parsed_selector(selector: Any) -> LabelSelector | None:
    """metav1.LabelSelectorAsSelector: None when the selector cannot be converted; nil is Nothing."""
    if selector is None:
        return NOTHING
    if not isinstance(selector, Mapping):
        return None
    labels, expressions = selector.get("matchLabels"), selector.get("matchExpressions")
    if (labels is not None and not isinstance(labels, Mapping)) or (expressions is not None and not isinstance(expressions, list)):
        return None
    try:
        return LabelSelector.from_dict(selector)
    except ApiError:
        return None


def _string_labels(labels: Any) -> dict[str, str]:
    """The labels a selector can be matched against (values of other types are reported elsewhere)."""
    return {k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {}


def _template_for_controller(template: Any, selector: LabelSelector, kind: str, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpecForReplicaSet / ...ForStatefulSet and DaemonSet's template part."""
    if not isinstance(template, Mapping):
        return [required(path)]
    errs: list[FieldError] = []
    labels = as_map(template.get("metadata")).get("labels")
    if not selector.empty and not selector.matches(_string_labels(labels)):
        errs.append(invalid(f"{path}.metadata.labels", sorted_map(labels),
                            "`selector` does not match template `labels`"))
    errs.extend(validate_pod_template(template, path, with_spec=kind != "StatefulSet"))
    spec = as_map(template.get("spec"))
    policy = spec.get("restartPolicy") or ""
    if policy != "Always":
        errs.append(not_supported(f"{path}.spec.restartPolicy", policy, ("Always",)))
    if spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(f"{path}.spec.activeDeadlineSeconds", f"activeDeadlineSeconds in {kind} is not Supported"))
    return errs


def _selector_and_template(spec: Mapping[str, Any], path: str, kind: str, empty_word: str) -> list[FieldError]:
    """The selector (required, valid, not empty) and the template it must match."""
    errs: list[FieldError] = []
    selector = spec.get("selector")
    if selector is None:
        errs.append(required(f"{path}.selector"))
    elif not isinstance(selector, Mapping):
        errs.append(invalid(f"{path}.selector", selector, "must be a label selector"))
    else:
        errs.extend(validate_label_selector(selector, f"{path}.selector"))
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            errs.append(invalid(f"{path}.selector", selector_value(selector),
                                f"empty selector is invalid for {empty_word}"))
    parsed = _parsed_selector(selector)
    if parsed is None:
        errs.append(invalid(f"{path}.selector", selector_value(as_map(selector)), "invalid label selector"))
        return errs
    errs.extend(_template_for_controller(spec.get("template"), parsed, kind, f"{path}.template"))
    return errs


def validate_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent: a percentage string or an integer >= 0."""
    if isinstance(value, str):
        return [invalid(path, value, m) for m in is_valid_percent(value)]
    return nonnegative(value, path)


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    """IsNotMoreThan100Percent: a valid percentage above 100% is invalid."""
    if isinstance(value, str) and not is_valid_percent(value) and int(value[:-1]) > 100:
        return [invalid(path, value, "must not be greater than 100%")]
    return []


def _int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: the percentage number or the int (0 for anything else)."""
    if isinstance(value, str):
        return int(value[:-1]) if not is_valid_percent(value) else 0
    return as_int(value) or 0


def _deployment_strategy(strategy: Any, path: str) -> list[FieldError]:
    """ValidateDeploymentStrategy and ValidateRollingUpdateDeployment."""
    strategy = as_map(strategy)
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        if not isinstance(rolling, Mapping):
            return [required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        p = f"{path}.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errs = validate_int_or_percent(unavailable, f"{p}.maxUnavailable")
        errs.extend(validate_int_or_percent(surge, f"{p}.maxSurge"))
        if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
            errs.append(invalid(f"{p}.maxUnavailable", unavailable, "may not be 0 when `maxSurge` is 0"))
        errs.extend(not_more_than_100_percent(unavailable, f"{p}.maxUnavailable"))
        return errs
    return [not_supported(path, dict(strategy), ("Recreate", "RollingUpdate"))]


def validate_replicaset(rs: Mapping[str, Any]) -> list[FieldError]:
    """ValidateReplicaSetSpec (upstream's ReplicaSet message says "deployment" too)."""
    spec = as_map(rs.get("spec"))
    errs = nonnegative(spec.get("replicas"), "spec.replicas")
    errs.extend(nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds"))
    errs.extend(_selector_and_template(spec, "spec", "ReplicaSet", "deployment"))
    return errs


def validate_deployment(deployment: Mapping[str, Any]) -> list[FieldError]:
    """ValidateDeploymentSpec."""
    spec = as_map(deployment.get("spec"))
    errs = nonnegative(spec.get("replicas"), "spec.replicas")
    errs.extend(_selector_and_template(spec, "spec", "ReplicaSet", "deployment"))
    errs.extend(_deployment_strategy(spec.get("strategy"), "spec.strategy"))
    errs.extend(nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds"))
    errs.extend(nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit"))
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        errs.extend(nonnegative(deadline, "spec.progressDeadlineSeconds"))
        value = as_int(deadline)
        if value is not None and value <= (as_int(spec.get("minReadySeconds")) or 0):
            errs.append(invalid("spec.progressDeadlineSeconds", value, "must be greater than minReadySeconds"))
    return errs


def validate_immutable_selector(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """The apps/v1 strategies' ValidateImmutableField for spec.selector."""
    selector = as_map(new.get("spec")).get("selector")
    if _normal(selector) != _normal(as_map(old.get("spec")).get("selector")):
        return [invalid("spec.selector", selector, "field is immutable")]
    return []


def _normal(selector: Any) -> Any:
    """A selector with empty fields dropped (semantic equality treats nil and empty alike)."""
    if not isinstance(selector, Mapping):
        return selector
    return {k: v for k, v in selector.items() if v not in (None, {}, [])}


def _statefulset_spec(spec: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSetSpec, in upstream's order."""
    errs: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        errs.append(required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = as_map(spec.get("updateStrategy"))
    kind, rolling = strategy.get("type") or "", strategy.get("rollingUpdate")
    shown_rolling = None if rolling is None else {"Partition": as_map(rolling).get("partition", 0), "MaxUnavailable": None}
    if not kind:
        errs.append(required("spec.updateStrategy"))
    elif kind == "OnDelete":
        if rolling is not None:
            errs.append(invalid("spec.updateStrategy.rollingUpdate", shown_rolling,
                                "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind == "RollingUpdate":
        if isinstance(rolling, dict):
            errs.extend(nonnegative(rolling.get("partition", 0), "spec.updateStrategy.rollingUpdate.partition"))
    else:
        errs.append(invalid("spec.updateStrategy", {"Type": kind, "RollingUpdate": shown_rolling},
                            "must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for field in ("whenDeleted", "whenScaled"):
            if retention.get(field) not in ("Retain", "Delete"):
                errs.append(not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{field}",
                                          retention.get(field) or "", ("Retain", "Delete")))
    errs.extend(nonnegative(spec.get("replicas", 0), "spec.replicas"))
    errs.extend(nonnegative(spec.get("minReadySeconds", 0), "spec.minReadySeconds"))
    errs.extend(nonnegative(as_map(spec.get("ordinals")).get("start", 0), "spec.ordinals.start"))
    selector = spec.get("selector")
    if selector is None:
        errs.append(required("spec.selector"))
    elif not isinstance(selector, dict):
        errs.append(invalid("spec.selector", selector, "must be a label selector"))
    else:
        errs.extend(validate_label_selector(selector, "spec.selector"))
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            errs.append(invalid("spec.selector", selector_value(selector), "empty selector is invalid for statefulset"))
    parsed = _parsed_selector(selector)
    if parsed is None:
        if isinstance(selector, dict):
            errs.append(invalid("spec.selector", selector_value(selector), ""))
    else:
        errs.extend(_template_for_controller(spec.get("template"), parsed, "StatefulSet", "spec.template"))
    return errs


def validate_statefulset(sts: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSet on create (metadata aside): the name must be a DNS label too.

    Pods are named `<set>-<ordinal>`, so the name is held to a DNS label, stricter than the DNS
    subdomain the metadata check uses; only the stricter part is reported here.
    """
    name = str(as_map(sts.get("metadata")).get("name") or "")
    errs: list[FieldError] = []
    if name and not is_dns1123_subdomain(name):
        errs.extend(invalid("metadata.name", name, m) for m in is_dns1123_label(name))
    errs.extend(_statefulset_spec(as_map(sts.get("spec"))))
    return errs


def validate_statefulset_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSetUpdate: a valid spec, and only some spec fields may change."""
    spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    errs = _statefulset_spec(spec)
    frozen_new = {k: v for k, v in spec.items() if k not in _MUTABLE_STS}
    frozen_old = {k: v for k, v in old_spec.items() if k not in _MUTABLE_STS}
    if frozen_new != frozen_old:
        errs.append(forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ))
    return errs


def _daemonset_strategy(strategy: Any, path: str) -> list[FieldError]:
    """ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet."""
    strategy = as_map(strategy)
    kind = strategy.get("type")
    if kind == "OnDelete":
        return []
    if kind != "RollingUpdate":
        return [not_supported(path, dict(strategy), ("RollingUpdate", "OnDelete"))]
    rolling = strategy.get("rollingUpdate")
    if not isinstance(rolling, Mapping):
        return [required(f"{path}.rollingUpdate")]
    p = f"{path}.rollingUpdate"
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errs = validate_int_or_percent(unavailable, f"{p}.maxUnavailable")
    errs.extend(validate_int_or_percent(surge, f"{p}.maxSurge"))
    errs.extend(not_more_than_100_percent(unavailable, f"{p}.maxUnavailable"))
    errs.extend(not_more_than_100_percent(surge, f"{p}.maxSurge"))
    has_unavailable, has_surge = _int_or_percent_value(unavailable) != 0, _int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(invalid(f"{p}.maxSurge", surge, "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errs.append(required(f"{p}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return errs


def validate_daemonset(ds: Mapping[str, Any]) -> list[FieldError]:
    """ValidateDaemonSetSpec."""
    spec = as_map(ds.get("spec"))
    selector = spec.get("selector")
    errs: list[FieldError] = []
    if selector is not None and not isinstance(selector, dict):
        errs.append(invalid("spec.selector", selector, "must be a label selector"))
    elif isinstance(selector, dict):
        errs.extend(validate_label_selector(selector, "spec.selector"))
    parsed = _parsed_selector(selector)
    template = spec.get("template")
    labels = as_map(as_map(template).get("metadata")).get("labels")
    # LabelSelectorAsSelector(nil) is Nothing, which matches no labels: a missing selector fails here
    if parsed is not None and not parsed.matches(_string_labels(labels)):
        errs.append(invalid("spec.template.metadata.labels", sorted_map(labels),
                            "`selector` does not match template `labels`"))
    if isinstance(selector, dict) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errs.append(invalid("spec.selector", selector_value(selector), "empty selector is invalid for daemonset"))
    errs.extend(validate_pod_template(template, "spec.template"))
    pod_spec = as_map(as_map(template).get("spec"))
    policy = pod_spec.get("restartPolicy") or ""
    if policy != "Always":
        errs.append(not_supported("spec.template.spec.restartPolicy", policy, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden("spec.template.spec.activeDeadlineSeconds",
                              "activeDeadlineSeconds in DaemonSet is not Supported"))
    errs.extend(nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds"))
    errs.extend(nonnegative(spec.get("templateGeneration"), "spec.templateGeneration"))
    errs.extend(_daemonset_strategy(spec.get("updateStrategy"), "spec.updateStrategy"))
    errs.extend(nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit"))
    return errs
