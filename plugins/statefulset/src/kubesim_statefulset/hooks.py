"""kubesim hook implementations of the StatefulSet plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse

from .admission import admit_statefulset
from .controller import StatefulSetController


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The StatefulSet controller."""
    return [StatefulSetController]


@hookimpl
def kubesim_admission(request: AdmissionRequest) -> AdmissionResponse | None:
    """apps/v1 StatefulSet defaulting and validation, as the API server does them."""
    return admit_statefulset(request)
