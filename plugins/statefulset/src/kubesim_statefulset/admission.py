"""The API server's built-in handling of StatefulSet writes, as an admission hook.

kubesim's cluster stores apps/v1 StatefulSets without knowing their schema; this admitter
adds what kube-apiserver does for them: defaulting (mutating phase, as a JSON patch) and
validation (validating phase). A failed validation raises the API server's own 422 error,
`StatefulSet.apps "web" is invalid: ...`, rather than denying the request as a webhook
would, so that scenarios fail with the message a real cluster gives.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse, copy_tree
from kubesim.k8s.validation import invalid_error

from .defaults import default_statefulset
from .validation import check_types, validate_statefulset, validate_statefulset_update

__all__ = ["admit_statefulset"]


def _is_statefulset_write(request: AdmissionRequest) -> bool:
    rt = request.resource
    return (
        (rt.group, rt.kind) == ("apps", "StatefulSet")
        and request.subresource is None
        and request.operation in ("CREATE", "UPDATE")
        and isinstance(request.object, dict)
    )


def admit_statefulset(request: AdmissionRequest) -> AdmissionResponse | None:
    """Default (mutating) and validate (validating) StatefulSet creates and updates."""
    if not _is_statefulset_write(request):
        return None
    obj: dict[str, Any] = request.object  # type: ignore[assignment]
    if request.phase == "mutating":
        check_types(obj)
        defaulted = copy_tree(obj)
        if defaulted.get("spec") is None:
            defaulted["spec"] = {}
        default_statefulset(defaulted)
        if defaulted == obj:
            return None
        op = "replace" if "spec" in obj else "add"
        return AdmissionResponse(patch=[{"op": op, "path": "/spec", "value": defaulted["spec"]}])
    if request.operation == "CREATE" or request.old_object is None:
        errs = validate_statefulset(obj)
    else:
        errs = validate_statefulset_update(obj, request.old_object)
    if errs:
        raise invalid_error(request.resource.group_kind, request.name, errs)
    return None
