"""StatefulSet validation with the API server's messages.

Upstream: pkg/apis/apps/validation/validation.go (ValidateStatefulSet, ValidateStatefulSetSpec,
ValidatePodTemplateSpecForStatefulSet, ValidateStatefulSetUpdate) and
k8s.io/apimachinery metav1 validation (ValidateLabelSelector, ValidateLabels). Values are shown
as v1.34's field errors show them: JSON for maps and structs, so a mismatching template reads
`spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template
`labels``. The pod template's spec is not validated here (upstream neither); a bad template
fails when the controller creates its pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.errors import ApiError, BadRequest
from kubesim.k8s.selectors import NOTHING, LabelSelector
from kubesim.k8s.validation import (
    FieldError,
    forbidden,
    invalid,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    required,
    validate_label_selector,
    validate_labels,
)

__all__ = ["check_types", "validate_statefulset", "validate_statefulset_update"]

_NEGATIVE = "must be greater than or equal to 0"
_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
            "minReadySeconds")
_INT32_FIELDS = (
    (("spec", "replicas"), "StatefulSetSpec"),
    (("spec", "minReadySeconds"), "StatefulSetSpec"),
    (("spec", "revisionHistoryLimit"), "StatefulSetSpec"),
    (("spec", "ordinals", "start"), "StatefulSetOrdinals"),
    (("spec", "updateStrategy", "rollingUpdate", "partition"), "RollingUpdateStatefulSetStrategy"),
)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return f"number {value}"


def check_types(sts: Mapping[str, Any]) -> None:
    """Integer fields must hold integers, else BadRequest as JSON decoding reports it."""
    spec = sts.get("spec")
    if spec is not None and not isinstance(spec, dict):
        raise BadRequest(
            'StatefulSet in version "v1" cannot be handled as a StatefulSet: json: cannot unmarshal '
            f"{_json_kind(spec)} into Go struct field StatefulSet.spec of type v1.StatefulSetSpec"
        )
    for path, struct in _INT32_FIELDS:
        value: Any = sts
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            continue
        if isinstance(value, float) and value.is_integer():
            continue
        raise BadRequest(
            'StatefulSet in version "v1" cannot be handled as a StatefulSet: json: cannot unmarshal '
            f"{_json_kind(value)} into Go struct field {struct}.{'.'.join(path)} of type int32"
        )


def _object(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (type errors are reported elsewhere)."""
    return value if isinstance(value, dict) else {}


def _unsupported(path: str, value: Any, supported: tuple[str, ...]) -> FieldError:
    return FieldError("Unsupported value", path, value, "supported values: " + ", ".join(f'"{s}"' for s in supported))


def _sorted_map(value: Any) -> Any:
    return dict(sorted(value.items())) if isinstance(value, dict) else value


def _selector_value(selector: Mapping[str, Any]) -> dict[str, Any]:
    """metav1.LabelSelector as JSON (omitempty fields left out, map keys sorted)."""
    out: dict[str, Any] = {}
    if selector.get("matchLabels"):
        out["matchLabels"] = _sorted_map(selector["matchLabels"])
    if selector.get("matchExpressions"):
        out["matchExpressions"] = [
            {k: e[k] for k in ("key", "operator", "values") if isinstance(e, dict) and e.get(k) not in (None, [], "")}
            for e in selector["matchExpressions"]
        ]
    return out


def _non_negative(value: Any, path: str) -> list[FieldError]:
    return [invalid(path, value, _NEGATIVE)] if isinstance(value, (int, float)) and value < 0 else []


def _validate_spec(spec: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSetSpec, in upstream's order."""
    errs: list[FieldError] = []
    policy = spec.get("podManagementPolicy") or ""
    if not policy:
        errs.append(required("spec.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") or ""
    rolling = strategy.get("rollingUpdate")
    if not kind:
        errs.append(required("spec.updateStrategy"))
    elif kind == "OnDelete":
        if rolling is not None:
            errs.append(invalid("spec.updateStrategy.rollingUpdate", {"Partition": (rolling or {}).get("partition", 0), "MaxUnavailable": None},
                                "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind == "RollingUpdate":
        if isinstance(rolling, dict):
            errs.extend(_non_negative(rolling.get("partition", 0), "spec.updateStrategy.rollingUpdate.partition"))
    else:
        shown = {"Type": kind, "RollingUpdate": None if rolling is None else {"Partition": (rolling or {}).get("partition", 0), "MaxUnavailable": None}}
        errs.append(invalid("spec.updateStrategy", shown, "must be 'RollingUpdate' or 'OnDelete'"))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for field in ("whenDeleted", "whenScaled"):
            if retention.get(field) not in ("Retain", "Delete"):
                errs.append(_unsupported(f"spec.persistentVolumeClaimRetentionPolicy.{field}", retention.get(field) or "",
                                         ("Retain", "Delete")))
    errs.extend(_non_negative(spec.get("replicas", 0), "spec.replicas"))
    errs.extend(_non_negative(spec.get("minReadySeconds", 0), "spec.minReadySeconds"))
    if isinstance(spec.get("ordinals"), dict):
        errs.extend(_non_negative(spec["ordinals"].get("start", 0), "spec.ordinals.start"))
    selector = spec.get("selector")
    parsed: LabelSelector | None = None
    if selector is None:
        errs.append(required("spec.selector"))
    elif not isinstance(selector, dict):
        errs.append(invalid("spec.selector", selector, "must be a label selector"))
    else:
        errs.extend(validate_label_selector(selector, "spec.selector"))
        if not selector.get("matchLabels") and not selector.get("matchExpressions"):
            errs.append(invalid("spec.selector", _selector_value(selector), "empty selector is invalid for statefulset"))
    if selector is None or isinstance(selector, dict):
        try:
            parsed = LabelSelector.from_dict(selector) if selector is not None else NOTHING
        except ApiError:
            errs.append(invalid("spec.selector", _selector_value(selector or {}), ""))
    template = _object(spec.get("template"))
    tmeta = _object(template.get("metadata"))
    labels = tmeta.get("labels")
    if parsed is not None:
        if not parsed.empty and not parsed.matches(labels if isinstance(labels, dict) else {}):
            errs.append(invalid("spec.template.metadata.labels", _sorted_map(labels),
                                "`selector` does not match template `labels`"))
        errs.extend(validate_labels(labels, "spec.template.labels"))
        for key in tmeta.get("annotations") or {}:
            errs.extend(invalid("spec.template.annotations", key, m) for m in is_qualified_name(str(key).lower()))
    pod_spec = _object(template.get("spec"))
    restart = pod_spec.get("restartPolicy") or ""
    if restart != "Always":
        errs.append(_unsupported("spec.template.spec.restartPolicy", restart, ("Always",)))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden("spec.template.spec.activeDeadlineSeconds",
                              "activeDeadlineSeconds in StatefulSet is not Supported"))
    return errs


def validate_statefulset(sts: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSet on create (the core has checked the rest of metadata already).

    The name must be a DNS label (pods are named `<set>-<ordinal>`), stricter than the
    DNS subdomain the core checks; only the stricter part is reported here.
    """
    name = str((sts.get("metadata") or {}).get("name") or "")
    errs: list[FieldError] = []
    if name and not is_dns1123_subdomain(name):
        errs.extend(invalid("metadata.name", name, m) for m in is_dns1123_label(name))
    errs.extend(_validate_spec(_object(sts.get("spec"))))
    return errs


def validate_statefulset_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStatefulSetUpdate: a valid spec, and only some spec fields may change."""
    spec = _object(new.get("spec"))
    errs = _validate_spec(spec)
    old_spec = _object(old.get("spec"))
    frozen_new = {k: v for k, v in spec.items() if k not in _MUTABLE}
    frozen_old = {k: v for k, v in old_spec.items() if k not in _MUTABLE}
    if frozen_new != frozen_old:
        errs.append(forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ))
    return errs
