"""kubesim-replicaset: the ReplicaSet and Deployment controllers of kube-controller-manager (v1.34).

Both run as PreSimulationControllers next to the scheduler under test. Defaulting and
validation of Deployments and ReplicaSets are the API server's, in the core
(kubesim.cluster.workload_defaults and kubesim.cluster.validation.apps).
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
