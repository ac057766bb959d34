"""Status conditions: find one by type, set one so that lastTransitionTime moves only when
the status changes, remove one.

Three upstream flavours share the rule: metav1.Condition lists (apimachinery
meta.SetStatusCondition), pod conditions (podutil.UpdatePodCondition) and the workload
controllers' conditions (SetCondition for ReplicaSets, SetDeploymentCondition).
"""

# upstream: staging/src/k8s.io/apimachinery/pkg/api/meta/conditions.go (SetStatusCondition,
# FindStatusCondition); pkg/api/v1/pod/util.go (UpdatePodCondition);
# pkg/controller/replicaset/replica_set_utils.go (SetCondition, RemoveCondition);
# pkg/controller/deployment/util/deployment_util.go (SetDeploymentCondition)

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "get_condition",
    "remove_condition",
    "set_condition",
    "set_status_condition",
    "update_pod_condition",
]


def get_condition(conditions: Iterable[Any] | None, type_: str) -> Mapping[str, Any] | None:
    """The first condition of type `type_` (FindStatusCondition, GetCondition), or None."""
    for c in conditions or ():
        if isinstance(c, Mapping) and c.get("type") == type_:
            return c
    return None


def set_status_condition(
    conditions: list[dict[str, Any]], type_: str, status: str, reason: str, message: str, now: str
) -> None:
    """meta.SetStatusCondition in place for a metav1.Condition list.

    A new condition gets `now` as lastTransitionTime; an existing one only when its status
    changes. reason and message are always replaced; observedGeneration (0) is left out as
    Go's omitempty does.
    """
    for cond in conditions:
        if cond.get("type") == type_:
            if cond.get("status") != status:
                cond["status"] = status
                cond["lastTransitionTime"] = now
            cond["reason"] = reason
            cond["message"] = message
            cond.pop("observedGeneration", None)
            return
    conditions.append(
        {"type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}
    )


def set_condition(status: dict[str, Any], condition: dict[str, Any], *, keep_transition_time: bool) -> None:
    """The workload controllers' SetCondition on `status["conditions"]`.

    Nothing changes when the current condition of that type has the same status and reason;
    otherwise the condition replaces it at the end of the list. Deployments keep the current
    lastTransitionTime while the status is unchanged (`keep_transition_time`); ReplicaSets
    do not.
    """
    current = get_condition(status.get("conditions"), condition["type"])
    if current is not None and current.get("status") == condition["status"]:
        if current.get("reason") == condition.get("reason"):
            return
        if keep_transition_time:
            condition = {**condition, "lastTransitionTime": current.get("lastTransitionTime")}
    rest = [c for c in status.get("conditions") or () if c.get("type") != condition["type"]]
    status["conditions"] = [*rest, condition]


def remove_condition(status: dict[str, Any], type_: str) -> None:
    """RemoveCondition: drop the condition of that type (an empty list is dropped, as omitempty)."""
    rest = [c for c in status.get("conditions") or () if c.get("type") != type_]
    if rest:
        status["conditions"] = rest
    else:
        status.pop("conditions", None)


def update_pod_condition(conditions: Iterable[Any] | None, type_: str, status: str, now: str) -> list[dict[str, Any]]:
    """A pod's conditions with `type_` set to `status`: a new transition time only on a change.

    For the API server's own writes (the PodScheduled=True of a binding), after
    podutil.UpdatePodCondition's transition-time rule; unlike it, a changed condition keeps
    its reason and message and an unchanged one is kept as it is.
    """
    out = [c for c in conditions or () if type(c) is dict]
    for i, c in enumerate(out):
        if c.get("type") == type_:
            if c.get("status") != status:
                out[i] = {**c, "status": status, "lastTransitionTime": now}
            return out
    out.append({"type": type_, "status": status, "lastProbeTime": None, "lastTransitionTime": now})
    return out
