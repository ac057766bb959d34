"""kubesim hook implementations of the pod-injector plugin."""

from __future__ import annotations

from kubesim import Runtime, hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse, admission_rules

from .admission import admit_pod


@hookimpl
@admission_rules(kinds=[("", "Pod")], operations=["CREATE", "UPDATE"], phases=["mutating"], subresources=[None])
def kubesim_admission(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Mutate guest pods in injected namespaces, or deny them, as upstream's webhook does."""
    return admit_pod(request, runtime)
