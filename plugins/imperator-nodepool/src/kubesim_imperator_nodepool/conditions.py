"""metav1.Condition lists as apimachinery's meta.SetStatusCondition keeps them."""

from __future__ import annotations

from typing import Any

__all__ = ["set_status_condition"]


def set_status_condition(
    conditions: list[dict[str, Any]], type_: str, status: str, reason: str, message: str, now: str
) -> None:
    """Add or update the condition `type_` in place (k8s.io/apimachinery pkg/api/meta/conditions.go).

    A new condition gets `now` as lastTransitionTime; an existing one only when its status
    changes. reason and message are always replaced; observedGeneration (0) is left out
    as Go's omitempty does.
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
