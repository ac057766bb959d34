"""The scheduler's Events (Scheduled, FailedScheduling), derived from the pods for `kubectl describe`.

kube-scheduler records an Event for each decision (pkg/scheduler/schedule_one.go: "Scheduled"
with "Successfully assigned NS/NAME to NODE", "FailedScheduling" with the fit error), and
`kubectl describe pod` shows them. The simulated scheduler does not write Events (they would
be writes in every timeline), so serve lists one per pod from its PodScheduled condition,
which holds the same reason and message, next to the Events stored in the cluster.
They are read-only: a get, patch or delete by name does not find them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from kubesim.k8s.selectors import FieldSelector, LabelSelector

__all__ = ["scheduling_events"]

_REASONS = {"True": ("Normal", "Scheduled"), "Unschedulable": ("Warning", "FailedScheduling"),
            "SchedulerError": ("Warning", "FailedScheduling")}


def _event(pod: Mapping[str, Any], condition: Mapping[str, Any]) -> dict[str, Any] | None:
    meta, spec = pod.get("metadata", {}), pod.get("spec", {})
    if condition.get("status") == "True":
        node = spec.get("nodeName")
        if not node:
            return None
        kind = _REASONS["True"]
        message = f"Successfully assigned {meta.get('namespace')}/{meta.get('name')} to {node}"
    else:
        found = _REASONS.get(str(condition.get("reason")))
        if found is None:
            return None
        kind, message = found, str(condition.get("message") or "")
    when = condition.get("lastTransitionTime") or meta.get("creationTimestamp")
    uid = str(meta.get("uid", ""))
    digest = hashlib.sha256(f"{uid}/{kind[1]}/{when}".encode()).hexdigest()
    component = spec.get("schedulerName") or "default-scheduler"
    return {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"{meta.get('name')}.{digest[:16]}", "namespace": meta.get("namespace"),
                     "uid": f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}",
                     "resourceVersion": str(meta.get("resourceVersion", "")), "creationTimestamp": when},
        "involvedObject": {"kind": "Pod", "namespace": meta.get("namespace"), "name": meta.get("name"),
                           "uid": uid, "apiVersion": "v1",
                           "resourceVersion": str(meta.get("resourceVersion", ""))},
        "reason": kind[1], "message": message, "type": kind[0],
        "source": {"component": component},
        "firstTimestamp": when, "lastTimestamp": when, "count": 1,
        "reportingComponent": component, "reportingInstance": "",
    }


def scheduling_events(pods: Iterable[Mapping[str, Any]], labels: LabelSelector | None,
                      fields: FieldSelector | None) -> list[dict[str, Any]]:
    """One Event per pod with a PodScheduled condition (the latest decision), selected."""
    if labels is not None and not labels.matches(None):  # derived Events have no labels
        return []
    events = []
    for pod in pods:
        for condition in pod.get("status", {}).get("conditions") or ():
            if isinstance(condition, Mapping) and condition.get("type") == "PodScheduled":
                event = _event(pod, condition)
                if event is not None and (fields is None or fields.empty or fields.matches(event)):
                    events.append(event)
    return events
