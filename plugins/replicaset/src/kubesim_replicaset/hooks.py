"""kubesim hook implementations of the replicaset plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import hookimpl
from kubesim.controllers import ControllerFactory

from .deployment.controller import DeploymentController
from .replicaset import ReplicaSetController


@hookimpl
def kubesim_controllers() -> Sequence[ControllerFactory]:
    """The ReplicaSet and Deployment controllers (run as PreSimulationControllers by default)."""
    return [DeploymentController, ReplicaSetController]
