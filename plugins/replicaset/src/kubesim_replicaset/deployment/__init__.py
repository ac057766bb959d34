"""The Deployment controller: rollouts through ReplicaSets (RollingUpdate, Recreate, rollback)."""

from .controller import DeploymentController, deployment_settled
from .hashing import compute_hash
from .sync import DeploymentSync, SyncError, calculate_status

__all__ = ["DeploymentController", "DeploymentSync", "SyncError", "calculate_status", "compute_hash", "deployment_settled"]
