"""The API server's handling of writes to a custom resource with a structural schema, as admission.

Mutating phase: unknown fields are pruned (apiextensions-apiserver prunes them when it
decodes the request), sent back as a JSON patch. Validating phase: the object is checked
against the schema; a failure raises the API server's own 422 error
(`MachineNodePool.imperator.tenzen-y.io "x" is invalid: ...`) rather than a webhook denial,
so a scenario fails with the message a real cluster gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.k8s.validation import invalid_error

from .crd import MACHINE_NODE_POOL_CRD, crd_schema
from .structural import prune, validate_custom_resource

__all__ = ["admit_machine_node_pool", "admit_structural"]


def _is_write_of(request: AdmissionRequest, crd: Mapping[str, Any]) -> bool:
    spec = crd["spec"]
    rt = request.resource
    return (
        (rt.group, rt.kind) == (spec["group"], spec["names"]["kind"])
        and request.operation in ("CREATE", "UPDATE")
        and request.subresource in (None, "status")
        and isinstance(request.object, dict)
    )


def admit_structural(request: AdmissionRequest, crd: Mapping[str, Any]) -> AdmissionResponse | None:
    """Prune (mutating) and validate (validating) writes of the kind `crd` defines."""
    if not _is_write_of(request, crd):
        return None
    obj: dict[str, Any] = request.object  # type: ignore[assignment]
    schema = crd_schema(dict(crd))
    if request.phase == "mutating":
        pruned = prune(schema, obj)
        if pruned == obj:
            return None
        patch = []
        for key in sorted(obj.keys() | pruned.keys()):
            if key not in pruned:
                patch.append({"op": "remove", "path": f"/{key}"})
            elif obj[key] != pruned[key]:
                patch.append({"op": "replace", "path": f"/{key}", "value": pruned[key]})
        return AdmissionResponse(patch=patch)
    errs = validate_custom_resource(schema, obj)
    if errs:
        raise invalid_error(request.resource.group_kind, request.name, errs)
    return None


def admit_machine_node_pool(request: AdmissionRequest) -> AdmissionResponse | None:
    """Schema pruning and validation of MachineNodePools."""
    return admit_structural(request, MACHINE_NODE_POOL_CRD)
