"""Field errors and the apimachinery format checks (names, label keys and values).

Messages follow k8s.io/apimachinery pkg/util/validation (validation.go, content/kube.go,
content/dns.go), pkg/util/validation/field/errors.go and pkg/apis/meta/v1/validation
(ValidateLabels, ValidateLabelSelector), so that an Invalid error reads as
the API server's would: `Pod "x" is invalid: metadata.name: Invalid value: "X": ...`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from kubesim.errors import Invalid
from kubesim.k8s.values import show_value

__all__ = [
    "FieldError",
    "NameCheck",
    "aggregate",
    "duplicate",
    "forbidden",
    "invalid",
    "invalid_error",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_label_value",
    "is_path_segment_name",
    "is_qualified_name",
    "name_check_for",
    "required",
    "validate_label_selector",
    "validate_labels",
    "validate_object_meta",
]

_OMIT = object()

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

_dns1123_label = re.compile(_DNS1123_LABEL_FMT).fullmatch
_dns1123_subdomain = re.compile(_DNS1123_SUBDOMAIN_FMT).fullmatch
_dns1035_label = re.compile(_DNS1035_LABEL_FMT).fullmatch
_label_key = re.compile(_LABEL_KEY_FMT).fullmatch
_label_value = re.compile(_LABEL_VALUE_FMT).fullmatch


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int, unit: str = "characters") -> str:
    # util/validation says "characters"; the newer validate/content package (label keys) says "bytes".
    return f"must be no more than {n} {unit}"


def is_dns1123_label(value: str) -> list[str]:
    """Problems with `value` as an RFC 1123 label (namespace names, container names)."""
    errs = [_max_len(63)] if len(value.encode("utf-8", "surrogatepass")) > 63 else []
    if not _dns1123_label(value):
        if _dns1123_subdomain(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str, unit: str = "characters") -> list[str]:
    """Problems with `value` as an RFC 1123 subdomain (most object names)."""
    errs = [_max_len(253, unit)] if len(value.encode("utf-8", "surrogatepass")) > 253 else []
    if not _dns1123_subdomain(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """Problems with `value` as a DNS-1035 label (service names)."""
    errs = [_max_len(63)] if len(value.encode("utf-8", "surrogatepass")) > 63 else []
    if not _dns1035_label(value):
        errs.append(_regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_path_segment_name(value: str) -> list[str]:
    """Problems with `value` as a URL path segment (persistent volume names)."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def is_qualified_name(value: str) -> list[str]:
    """Problems with `value` as a label key: an optional DNS subdomain prefix, '/', and a name."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, "bytes"))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode("utf-8", "surrogatepass")) > 63:
        errs.append("name part " + _max_len(63, "bytes"))
    if not _label_key(name):
        errs.append(
            "name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_label_value(value: str) -> list[str]:
    """Problems with `value` as a label value."""
    errs = [_max_len(63, "bytes")] if len(value.encode("utf-8", "surrogatepass")) > 63 else []
    if not _label_value(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


@attrs.frozen
class FieldError:
    """One problem at a field path, printed like apimachinery's field.Error."""

    type: str
    field: str
    value: Any = _OMIT
    detail: str = ""

    def __str__(self) -> str:
        body = self.type
        if self.value is not _OMIT:
            body += ": " + show_value(self.value)
        if self.detail:
            body += ": " + self.detail
        return f"{self.field}: {body}"


def required(path: str, detail: str = "") -> FieldError:
    """A missing required field."""
    return FieldError("Required value", path, detail=detail)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    """A field whose value is wrong."""
    return FieldError("Invalid value", path, value, detail)


def duplicate(path: str, value: Any) -> FieldError:
    """A value that must be unique but is not."""
    return FieldError("Duplicate value", path, value)


def forbidden(path: str, detail: str) -> FieldError:
    """A field that may not be set (or changed) here."""
    return FieldError("Forbidden", path, detail=detail)


def aggregate(errors: Iterable[FieldError | str]) -> str:
    """Join messages like utilerrors.Aggregate: one as is, several as "[a, b]", duplicates once."""
    msgs = list(dict.fromkeys(str(e) for e in errors))
    return msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"


_CAUSE_TYPES = {"Not found": "FieldValueNotFound", "Required value": "FieldValueRequired",
                "Duplicate value": "FieldValueDuplicate", "Invalid value": "FieldValueInvalid",
                "Unsupported value": "FieldValueNotSupported", "Forbidden": "FieldValueForbidden",
                "Too long": "FieldValueTooLong", "Too many": "FieldValueTooMany",
                "Internal error": "InternalError", "Type mismatch": "FieldValueTypeInvalid"}
"""field.ErrorType -> metav1.CauseType (apimachinery pkg/util/validation/field/errors.go)."""


def invalid_error(group_kind: str, name: str, errors: Iterable[FieldError | str]) -> Invalid:
    """The 422 error the API server returns for failed validation, with details.causes as
    apimachinery's errors.NewInvalid builds them (kind, group, name, one cause per field error)."""
    errors = list(errors)
    kind, _, group = group_kind.partition(".")
    causes: list[dict[str, str]] = []
    for e in errors:
        if isinstance(e, FieldError):
            body = str(e)[len(e.field) + 2:]
            causes.append({"reason": _CAUSE_TYPES.get(e.type, "FieldValueInvalid"), "message": body,
                           "field": e.field})
        else:
            causes.append({"reason": "FieldValueInvalid", "message": str(e)})
    details: dict[str, Any] = {"name": name, "group": group, "kind": kind, "causes": causes}
    if not group:
        del details["group"]
    return Invalid(f'{group_kind} "{name}" is invalid: {aggregate(errors)}', details=details)


NameCheck = Callable[[str], list[str]]
"""Returns the problems with a name (empty when valid)."""

_NAME_CHECKS: Mapping[tuple[str, str], NameCheck] = {
    ("", "Namespace"): is_dns1123_label,
    ("", "Service"): is_dns1035_label,
    ("", "PersistentVolume"): is_path_segment_name,
}


def name_check_for(group: str, kind: str) -> NameCheck:
    """The name rule of a kind (upstream ValidateNameFunc); DNS subdomain unless noted."""
    return _NAME_CHECKS.get((group, kind), is_dns1123_subdomain)


def _mask_trailing_dash(prefix: str) -> str:
    # apimachinery objectmeta.go maskTrailingDash: a generateName prefix may end with '-'.
    return prefix[:-2] + "a" if len(prefix) > 1 and prefix.endswith("-") else prefix


def validate_object_meta(
    meta: Mapping[str, Any], name_check: NameCheck, old: Mapping[str, Any] | None = None
) -> list[FieldError]:
    """Check metadata on create (old is None) or update, as ValidateObjectMeta(Update) does."""
    errs: list[FieldError] = []
    if old is None:
        generate = meta.get("generateName") or ""
        if generate:
            errs.extend(
                invalid("metadata.generateName", generate, m)
                for m in name_check(_mask_trailing_dash(generate))
            )
        name = meta.get("name") or ""
        if not name:
            errs.append(required("metadata.name", "name or generateName is required"))
        else:
            errs.extend(invalid("metadata.name", name, m) for m in name_check(name))
    labels = meta.get("labels") or {}
    for k, v in labels.items():
        errs.extend(invalid("metadata.labels", k, m) for m in is_qualified_name(k))
        errs.extend(invalid("metadata.labels", v, m) for m in is_label_value(v))
    for k in meta.get("annotations") or {}:
        errs.extend(invalid("metadata.annotations", k, m) for m in is_qualified_name(k.lower()))
    finalizers = meta.get("finalizers") or []
    for f in finalizers:
        errs.extend(invalid("metadata.finalizers", f, m) for m in is_qualified_name(f))
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errs.append(
            invalid(
                "metadata.finalizers",
                finalizers,
                "finalizer orphan and foregroundDeletion cannot be both set",
            )
        )
    for i, ref in enumerate(meta.get("ownerReferences") or []):
        path = f"metadata.ownerReferences[{i}]"
        for field in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(field):
                errs.append(required(f"{path}.{field}", "must not be empty"))
    controllers = [r for r in meta.get("ownerReferences") or [] if r.get("controller") is True]
    if len(controllers) > 1:
        first, second = controllers[0], controllers[1]
        errs.append(
            invalid(
                "metadata.ownerReferences",
                meta.get("ownerReferences"),
                'Only one reference can have Controller set to true. Found "true" in references for '
                f"{first.get('kind')}/{first.get('name')} and {second.get('kind')}/{second.get('name')}",
            )
        )
    if old is not None:
        # ValidateObjectMetaAccessorUpdate: identity fields never change (the registry resets
        # creationTimestamp, deletionTimestamp and generation itself, as BeforeUpdate does)
        for field in ("name", "namespace", "uid"):
            if (meta.get(field) or "") != (old.get(field) or ""):
                errs.append(invalid(f"metadata.{field}", meta.get(field) or "", "field is immutable"))
    if old is not None and old.get("deletionTimestamp"):
        added = sorted(set(finalizers) - set(old.get("finalizers") or []))
        if added:
            shown = "[]string{" + ", ".join(json.dumps(f) for f in added) + "}"
            errs.append(
                forbidden(
                    "metadata.finalizers",
                    f"no new finalizers can be added if the object is being deleted, found new finalizers {shown}",
                )
            )
    return errs


def validate_labels(labels: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabels: keys are qualified names, values label values.

    Keys are checked in sorted order (Go ranges over the map in random order).
    """
    if labels is not None and not isinstance(labels, Mapping):
        return [invalid(path, labels, "must be a map of label keys to values")]
    errs: list[FieldError] = []
    for k in sorted(labels or {}, key=str):
        errs.extend(invalid(path, k, m) for m in is_qualified_name(str(k)))
        v = (labels or {})[k]
        errs.extend(invalid(path, v, m) for m in (is_label_value(v) if isinstance(v, str) else ["must be a string"]))
    return errs


def validate_label_selector(selector: Mapping[str, Any], path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector with label values checked strictly."""
    errs = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        return [*errs, invalid(f"{path}.matchExpressions", expressions, "must be a list of requirements")]
    for i, expr in enumerate(expressions):
        p = f"{path}.matchExpressions[{i}]"
        if not isinstance(expr, Mapping):
            errs.append(invalid(p, expr, "must be an object"))
            continue
        op, values = expr.get("operator"), expr.get("values") or []
        if not isinstance(values, list):
            errs.append(invalid(f"{p}.values", values, "must be a list of strings"))
            values = []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(
                    forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(invalid(f"{p}.operator", op, "not a valid selector operator"))
        key = str(expr.get("key") or "")
        errs.extend(invalid(f"{p}.key", key, m) for m in is_qualified_name(key))
        for j, v in enumerate(values):
            errs.extend(invalid(f"{p}.values[{j}]", v, m) for m in is_label_value(str(v)))
    return errs
