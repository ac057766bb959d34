"""batch/v1 Jobs, as the API server validates them on create and update.

Ports k8s.io/kubernetes pkg/apis/batch/validation/validation.go (ValidateJob,
validateGeneratedSelector, ValidateJobSpec, validateJobSpec, ValidateJobSpecUpdate) for the fields
kubesim stores, and core ValidateHasLabel. Without `manualSelector: true` the selector and the
pod labels are generated at create time (kubesim.cluster.workload_defaults.generate_job_selector,
upstream's jobStrategy.PrepareForCreate), and they must be the generated ones.
"""

from __future__ import annotations

from typing import Any

from kubesim.errors import ApiError
from kubesim.k8s.selectors import LabelSelector
from kubesim.k8s.validation import FieldError, invalid, required

from ..workload_defaults import JOB_CONTROLLER_UID_LABELS, JOB_NAME_LABELS
from .affinity import validate_label_selector_field
from .apps import selector_value, sorted_map
from .podspec import validate_pod_template
from .values import as_int, as_map, immutable, nonnegative, not_supported

__all__ = ["validate_job", "validate_job_update"]

_MAX_INDEXED_PARALLELISM = 100_000


def _matches(selector: Any, labels: Any) -> bool | None:
    """LabelSelectorAsSelector(selector).Matches(labels); None when the selector does not convert."""
    sel = as_map(selector)
    if not isinstance(sel.get("matchLabels") or {}, dict) or not isinstance(sel.get("matchExpressions") or [], list):
        return None
    try:
        parsed = LabelSelector.from_dict(sel)
    except ApiError:
        return None
    return parsed.matches({k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {})


def _has_label(labels: Any, key: str, expected: str) -> list[FieldError]:
    """ValidateHasLabel on the pod template's metadata."""
    path = f"spec.template.metadata.labels[{key}]"
    labels = as_map(labels)
    if key not in labels:
        return [required(path, expected)]
    if labels[key] != expected:
        return [invalid(path, sorted_map(labels), f"must be '{expected}'")]
    return []


def _generated_selector(job: dict[str, Any], spec: Any, labels: Any) -> list[FieldError]:
    """validateGeneratedSelector: the template has the generated labels and the selector selects them."""
    selector = as_map(spec).get("selector")
    if as_map(spec).get("manualSelector") is True or selector is None:
        return []
    meta = as_map(job.get("metadata"))
    uid, name = str(meta.get("uid") or ""), str(meta.get("name") or "")
    errs = [] if uid else [required("metadata.uid")]
    expected: dict[str, str] = {}
    for key in JOB_CONTROLLER_UID_LABELS:
        errs.extend(_has_label(labels, key, uid))
        expected[key] = uid
    for key in JOB_NAME_LABELS:
        errs.extend(_has_label(labels, key, name))
        expected[key] = name
    if _matches(selector, expected) is False:
        errs.append(invalid("spec.selector", selector_value(as_map(selector)), "`selector` not auto-generated"))
    return errs


def validate_job(job: dict[str, Any]) -> list[FieldError]:
    """ValidateJob (metadata aside)."""
    spec = as_map(job.get("spec"))
    template = spec.get("template")
    labels = as_map(as_map(template).get("metadata")).get("labels")
    errs = _generated_selector(job, spec, labels)
    for field in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        errs.extend(nonnegative(spec.get(field), f"spec.{field}"))
    mode = spec.get("completionMode")
    if mode is not None and mode not in ("NonIndexed", "Indexed"):
        errs.append(not_supported("spec.completionMode", mode, ("NonIndexed", "Indexed")))
    if mode == "Indexed":
        if spec.get("completions") is None:
            errs.append(required("spec.completions", "when completion mode is Indexed"))
        parallelism = as_int(spec.get("parallelism"))
        if parallelism is not None and parallelism > _MAX_INDEXED_PARALLELISM:
            errs.append(invalid("spec.parallelism", parallelism,
                                f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} when completion mode is "
                                "Indexed"))
    errs.extend(validate_pod_template(template, "spec.template"))
    policy = as_map(as_map(template).get("spec")).get("restartPolicy") or ""
    if policy not in ("OnFailure", "Never"):
        errs.append(not_supported("spec.template.spec.restartPolicy", policy, ("OnFailure", "Never")))
    selector = spec.get("selector")
    if selector is None:
        errs.append(required("spec.selector"))
    else:
        errs.extend(validate_label_selector_field(selector, "spec.selector"))
    if _matches(selector, labels) is False or selector is None:
        errs.append(invalid("spec.template.metadata.labels", sorted_map(labels),
                            "`selector` does not match template `labels`"))
    return errs


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateJobSpecUpdate: a valid spec; selector and template never change."""
    spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    errs = validate_job(new)
    errs.extend(immutable(spec.get("selector"), old_spec.get("selector"), "spec.selector"))
    errs.extend(immutable(spec.get("template"), old_spec.get("template"), "spec.template"))
    return errs
