"""kubesim hook implementations of the replicaset plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.controllers import ControllerFactory

from .admission import admit
from .deployment.controller import DeploymentController
from .replicaset import ReplicaSetController


@hookimpl
def kubesim_controllers() -> Sequence[ControllerFactory]:
    """The ReplicaSet and Deployment controllers (run as PreSimulationControllers by default)."""
    return [DeploymentController, ReplicaSetController]


@hookimpl
def kubesim_admission(request: AdmissionRequest) -> AdmissionResponse | None:
    """apps/v1 Deployment and ReplicaSet defaulting and validation, as the API server does it."""
    return admit(request)
