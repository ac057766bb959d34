"""The API server's part for apps/v1 Deployments and ReplicaSets: defaulting and validation.

The embedded cluster knows these kinds but neither defaults nor validates them; this
package does both through `kubesim_admission`. Defaulting is a mutating admission patch.
Validation failures raise the API server's own 422 error (`Deployment.apps "web" is
invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`) rather
than a webhook denial, because they stand for built-in validation, not a webhook's opinion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.k8s.validation import FieldError, invalid_error

from .defaults import default_deployment, default_replicaset
from .validation import validate_deployment_spec, validate_immutable_selector, validate_replicaset_spec

__all__ = ["admit"]

_KINDS: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], Callable[..., list[FieldError]]]] = {
    "Deployment": (default_deployment, validate_deployment_spec),
    "ReplicaSet": (default_replicaset, validate_replicaset_spec),
}


def admit(request: AdmissionRequest) -> AdmissionResponse | None:
    """Default (mutating phase) and validate (validating phase) apps/v1 Deployments and ReplicaSets."""
    rt = request.resource
    if rt.group != "apps" or rt.kind not in _KINDS or request.subresource is not None:
        return None
    if request.operation not in ("CREATE", "UPDATE") or request.object is None:
        return None
    default, validate = _KINDS[rt.kind]
    obj = request.object
    if request.phase == "mutating":
        defaulted = default(obj)
        if defaulted.get("spec") == obj.get("spec"):
            return None
        op = "replace" if "spec" in obj else "add"
        return AdmissionResponse(patch=[{"op": op, "path": "/spec", "value": defaulted["spec"]}])
    spec = obj.get("spec")
    errs = validate(spec if isinstance(spec, dict) else {})
    if request.operation == "UPDATE" and request.old_object is not None:
        errs.extend(validate_immutable_selector(spec if isinstance(spec, dict) else {},
                                                request.old_object.get("spec") or {}))
    if errs:
        raise invalid_error(rt.group_kind, request.name, errs)
    return None
