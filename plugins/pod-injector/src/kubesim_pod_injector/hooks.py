"""kubesim hook implementations of the pod-injector plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse

from .admission import admit_pod
from .server import PodInjectorServer


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The injector's webhook server (it binds the scenario's cluster for the admission hook)."""
    return [PodInjectorServer]


@hookimpl
def kubesim_admission(request: AdmissionRequest) -> AdmissionResponse | None:
    """Mutate guest pods in injected namespaces, or deny them, as upstream's webhook does."""
    return admit_pod(request)
