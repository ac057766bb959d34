"""batch/v1 Jobs, as the API server validates them on create and update.

Ports k8s.io/kubernetes pkg/apis/batch/validation/validation.go (ValidateJob, ValidateJobSpec,
validateJobSpec, ValidateJobSpecUpdate) for the fields kubesim stores. Without
`manualSelector: true` the API server generates the selector (controller-uid) and the pod
labels at create time (pkg/registry/batch/job/strategy.go generateSelector); kubesim checks a
given selector against the template without those generated labels.
"""

from __future__ import annotations

from typing import Any

from kubesim.errors import ApiError
from kubesim.k8s.selectors import LabelSelector
from kubesim.k8s.validation import FieldError, invalid, required

from .affinity import validate_label_selector_field
from .podspec import validate_pod_template
from .values import as_int, as_map, immutable, nonnegative, not_supported

__all__ = ["GENERATED_JOB_LABELS", "validate_job", "validate_job_update"]

GENERATED_JOB_LABELS = ("batch.kubernetes.io/controller-uid", "controller-uid", "batch.kubernetes.io/job-name",
                        "job-name")
_MAX_INDEXED_PARALLELISM = 100_000


def _selector_matches(selector: Any, labels: Any, manual: bool) -> bool:
    sel = dict(as_map(selector))
    if not isinstance(sel.get("matchLabels") or {}, dict) or not isinstance(sel.get("matchExpressions") or [], list):
        return True  # the selector's own errors are reported
    if not manual:
        sel["matchLabels"] = {k: v for k, v in as_map(sel.get("matchLabels")).items() if k not in GENERATED_JOB_LABELS}
    try:
        parsed = LabelSelector.from_dict(sel)
    except ApiError:
        return True  # the selector's own errors are reported
    return parsed.matches({k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {})


def validate_job(job: dict[str, Any]) -> list[FieldError]:
    """ValidateJob (metadata aside)."""
    spec = as_map(job.get("spec"))
    errs: list[FieldError] = []
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
                                f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} when completion mode is Indexed"))
    template = spec.get("template")
    errs.extend(validate_pod_template(template, "spec.template"))
    policy = as_map(as_map(template).get("spec")).get("restartPolicy") or ""
    if policy not in ("OnFailure", "Never"):
        errs.append(not_supported("spec.template.spec.restartPolicy", policy, ("OnFailure", "Never")))
    manual = spec.get("manualSelector") is True
    selector = spec.get("selector")
    if selector is None:
        if manual:
            errs.append(required("spec.selector"))
    else:
        errs.extend(validate_label_selector_field(selector, "spec.selector"))
    labels = as_map(as_map(template).get("metadata")).get("labels")
    if (selector is not None or manual) and not _selector_matches(selector, labels, manual):
        errs.append(invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    return errs


def validate_job_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateJobSpecUpdate: a valid spec; selector and template never change."""
    spec, old_spec = as_map(new.get("spec")), as_map(old.get("spec"))
    errs = validate_job(new)
    errs.extend(immutable(spec.get("selector"), old_spec.get("selector"), "spec.selector"))
    errs.extend(immutable(spec.get("template"), old_spec.get("template"), "spec.template"))
    return errs
