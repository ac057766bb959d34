"""Compile the CEL device selectors of DeviceClasses, ResourceClaims and ResourceClaimTemplates
when they are written, as kube-apiserver's validation does (validateCELSelector).

The core cluster checks that selectors are present and short enough; compiling them needs the
CEL library, which is this package's dependency, so the check is this package's validating
admission. A bad selector is refused with its field path and the compiler's message instead of
failing every scheduling attempt later.
"""

# upstream: pkg/apis/resource/validation/validation.go (validateSelector, validateCELSelector)

from __future__ import annotations

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.cluster.validation.dra import device_selectors

from .plugins.dynamicresources.cel import CelError, compile_selector

__all__ = ["ADMITTED_KINDS", "VALIDATOR", "admit_device_selectors"]

VALIDATOR = "cel.resource.k8s.io"
_KINDS = frozenset({"DeviceClass", "ResourceClaim", "ResourceClaimTemplate"})
ADMITTED_KINDS = frozenset(("resource.k8s.io", kind) for kind in _KINDS)
"""(group, kind) of what admit_device_selectors checks (its admission rules)."""


def admit_device_selectors(request: AdmissionRequest) -> AdmissionResponse | None:
    """Deny a create or update whose selectors do not compile (422, like a validation error)."""
    rt = request.resource
    if (request.phase != "validating" or rt.group != "resource.k8s.io" or rt.kind not in _KINDS
            or request.operation not in ("CREATE", "UPDATE") or request.subresource is not None
            or not isinstance(request.object, dict)):
        return None
    old = dict(device_selectors(request.old_object)) if isinstance(request.old_object, dict) else {}
    problems = []
    for path, expression in device_selectors(request.object):
        if not expression or old.get(path) == expression:
            continue  # missing selectors are the cluster's error; stored ones are not re-checked
        try:
            compile_selector(expression)
        except CelError as e:
            shown = expression if len(expression) <= 64 else expression[:61] + "..."
            problems.append(f'{path}: Invalid value: "{shown}": {e}')
    if not problems:
        return None
    return AdmissionResponse(allowed=False, name=VALIDATOR, code=422,
                             message=problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]")
