"""kubesim-replicaset: the ReplicaSet and Deployment controllers of kube-controller-manager (v1.34).

Both run as PreSimulationControllers next to the scheduler under test. The package also
does what the API server does for apps/v1 Deployments and ReplicaSets: defaulting and
validation (see `admission`).
"""

from .deployment import DeploymentController, DeploymentSync, deployment_settled
from .replicaset import ReplicaSetController, calculate_status, replicaset_settled

__all__ = [
    "DeploymentController",
    "DeploymentSync",
    "ReplicaSetController",
    "calculate_status",
    "deployment_settled",
    "replicaset_settled",
]
