"""Deployment conditions (Available, Progressing, ReplicaFailure) and their upstream reasons.

Ports of k8s.io/kubernetes pkg/controller/deployment/util/deployment_util.go:
NewDeploymentCondition, GetDeploymentCondition, SetDeploymentCondition (keeps
lastTransitionTime while the status stays the same), RemoveDeploymentCondition,
ReplicaSetToDeploymentCondition, and the reason constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.k8s import conditions

__all__ = [
    "AVAILABLE",
    "FAILED_RS_CREATE_REASON",
    "FOUND_NEW_RS_REASON",
    "MINIMUM_REPLICAS_AVAILABLE",
    "MINIMUM_REPLICAS_UNAVAILABLE",
    "NEW_RS_AVAILABLE_REASON",
    "NEW_RS_REASON",
    "PAUSED_DEPLOY_REASON",
    "PROGRESSING",
    "REPLICA_FAILURE",
    "RESUMED_DEPLOY_REASON",
    "RS_UPDATED_REASON",
    "TIMED_OUT_REASON",
    "get_condition",
    "new_condition",
    "remove_condition",
    "rs_to_deployment_condition",
    "set_condition",
]

AVAILABLE = "Available"
PROGRESSING = "Progressing"
REPLICA_FAILURE = "ReplicaFailure"

RS_UPDATED_REASON = "ReplicaSetUpdated"
FAILED_RS_CREATE_REASON = "ReplicaSetCreateError"
NEW_RS_REASON = "NewReplicaSetCreated"
FOUND_NEW_RS_REASON = "FoundNewReplicaSet"
NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable"
TIMED_OUT_REASON = "ProgressDeadlineExceeded"
PAUSED_DEPLOY_REASON = "DeploymentPaused"
RESUMED_DEPLOY_REASON = "DeploymentResumed"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"


def new_condition(kind: str, status: str, reason: str, message: str, now: str) -> dict[str, Any]:
    """NewDeploymentCondition: both times are now."""
    return {"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def get_condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """GetDeploymentCondition."""
    return conditions.get_condition(status.get("conditions"), kind)


def set_condition(status: dict[str, Any], condition: dict[str, Any]) -> None:
    """SetDeploymentCondition: no change when status and reason match; keep the transition time
    while the status is unchanged; the condition moves to the end of the list."""
    conditions.set_condition(status, condition, keep_transition_time=True)


remove_condition = conditions.remove_condition
"""RemoveDeploymentCondition (an empty list is dropped, as omitempty does)."""


def rs_to_deployment_condition(c: Mapping[str, Any]) -> dict[str, Any]:
    """ReplicaSetToDeploymentCondition: lastUpdateTime = lastTransitionTime."""
    out: dict[str, Any] = {"type": c.get("type"), "status": c.get("status")}
    if c.get("lastTransitionTime"):
        out["lastUpdateTime"] = c["lastTransitionTime"]
        out["lastTransitionTime"] = c["lastTransitionTime"]
    for k in ("reason", "message"):
        if c.get(k):
            out[k] = c[k]
    return out
