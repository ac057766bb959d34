"""A test plugin: pods may not be created in a namespace labelled frozen=true (read through the runtime)."""

from __future__ import annotations

from typing import Any

from kubesim import hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse


@hookimpl
def kubesim_admission(request: AdmissionRequest, runtime: Any) -> AdmissionResponse | None:
    if runtime is None or request.phase != "validating" or request.resource.kind != "Pod":
        return None
    ns = runtime.reader.get("v1", "Namespace", request.namespace)
    if ns["metadata"].get("labels", {}).get("frozen") == "true":
        return AdmissionResponse(allowed=False, message=f"namespace {request.namespace} is frozen")
    return None
