"""Cleaning an object read from a cluster or a file into what a scenario may create.

What the API server owns is removed (uid, resourceVersion, managedFields, generation,
creationTimestamp, selfLink, deletion marks, generated status); what scheduling depends on is
kept (node allocatable, capacity, conditions, images; pod spec.nodeName and status.startTime;
PodDisruptionBudget status). The removed metadata are the fields ObjectMeta documents as
"Populated by the system. Read-only." (k8s.io/apimachinery/pkg/apis/meta/v1/types.go), which
a create request may not set or which the simulated cluster sets anew.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OWNER_ANNOTATION", "PAUSED_ANNOTATION", "clean_object", "owner_of"]

OWNER_ANNOTATION = "import.kubesim.io/owner"
"""Where an imported object's controller is kept ("Kind/name"): an ownerReference needs the
owner's uid, which the simulated cluster gives anew; kubesim's controllers re-adopt by selector."""

PAUSED_ANNOTATION = "import.kubesim.io/paused"
"""Set on a Deployment that `--workload-pods keep` paused (spec.paused) so that its imported
pods are not replaced by a rollout; unpause it with a patch to let it roll out."""

_SERVER_METADATA = ("uid", "resourceVersion", "managedFields", "generation", "creationTimestamp", "selfLink",
                    "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "generateName",
                    "finalizers")
_DROPPED_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration", "deployment.kubernetes.io/revision")
_NODE_STATUS = ("allocatable", "capacity", "conditions", "images", "addresses")
_CONDITION_FIELDS = ("type", "status", "reason", "message")
_POD_STATUS = ("phase", "startTime", "resourceClaimStatuses")
_SIMPLE_STATUS = {"PersistentVolume": ("phase",), "PersistentVolumeClaim": ("phase", "accessModes", "capacity")}
# Pod fields the Priority admission plugin sets from the PriorityClass and refuses when they
# disagree with it (plugin/pkg/admission/priority/admission.go): recomputed on create.
_POD_ADMISSION_FIELDS = ("priority", "preemptionPolicy")
# Labels the Job controller adds from the Job's uid (pkg/controller/job/job_controller.go)
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _copy(value: Any) -> Any:
    """A deep copy with every mapping's keys sorted: the output does not depend on the order
    a server or a file wrote them in."""
    if isinstance(value, dict):
        return {k: _copy(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def owner_of(obj: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, name) of the object's controller: its controller ownerReference, or the
    owner annotation an earlier import left; None when it has none."""
    meta = obj.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    note = (meta.get("annotations") or {}).get(OWNER_ANNOTATION)
    if isinstance(note, str) and "/" in note:
        kind, _, name = note.partition("/")
        return kind, name
    return None


def _clean_metadata(meta: dict[str, Any], namespaced: bool) -> dict[str, Any]:
    out = {k: _copy(v) for k, v in meta.items() if k not in _SERVER_METADATA}
    if not namespaced:
        out.pop("namespace", None)
    elif not out.get("namespace"):
        out["namespace"] = "default"
    annotations = {k: v for k, v in (out.get("annotations") or {}).items() if k not in _DROPPED_ANNOTATIONS}
    owner = owner_of({"metadata": meta})
    if owner is not None:
        annotations[OWNER_ANNOTATION] = f"{owner[0]}/{owner[1]}"
    if annotations:
        out["annotations"] = annotations
    else:
        out.pop("annotations", None)
    if not out.get("labels"):
        out.pop("labels", None)
    cleaned: dict[str, Any] = _copy(out)
    return cleaned


def _status(obj: dict[str, Any], keep: tuple[str, ...]) -> dict[str, Any]:
    status = obj.get("status") or {}
    return {k: _copy(status[k]) for k in keep if k in status}


def clean_object(obj: dict[str, Any], namespaced: bool) -> dict[str, Any]:
    """A cleaned deep copy of `obj` (apiVersion and kind set) as a scenario creates it."""
    kind = obj["kind"]
    out: dict[str, Any] = {"apiVersion": obj["apiVersion"], "kind": kind,
                           "metadata": _clean_metadata(obj.get("metadata") or {}, namespaced)}
    for key, value in obj.items():
        if key not in ("apiVersion", "kind", "metadata", "status"):
            out[key] = _copy(value)
    status: dict[str, Any] = {}
    if kind == "Node":
        status = _status(obj, _NODE_STATUS)
        if "conditions" in status:
            status["conditions"] = [{k: c[k] for k in _CONDITION_FIELDS if k in c}
                                    for c in status["conditions"] if isinstance(c, dict)]
    elif kind == "Pod":
        status = _status(obj, _POD_STATUS)
        spec = out.get("spec") or {}
        for field in _POD_ADMISSION_FIELDS:
            spec.pop(field, None)
        if not spec.get("nodeName"):
            spec.pop("nodeName", None)
    elif kind == "PodDisruptionBudget":
        status = _status(obj, ("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods",
                               "disruptedPods", "conditions"))
    elif kind in _SIMPLE_STATUS:
        status = _status(obj, _SIMPLE_STATUS[kind])
    if kind == "PersistentVolume":
        claim = (out.get("spec") or {}).get("claimRef")
        if isinstance(claim, dict):
            for field in ("uid", "resourceVersion"):
                claim.pop(field, None)
    if kind == "Job":
        _clean_job(out)
    if status:
        out["status"] = status
    cleaned: dict[str, Any] = _copy(out)
    return cleaned


def _clean_job(job: dict[str, Any]) -> None:
    """Remove the selector and labels the Job controller generated from the old uid (a Job
    created with them and without manualSelector is refused: pkg/apis/batch/validation)."""
    spec = job.get("spec") or {}
    if spec.get("manualSelector"):
        return
    spec.pop("selector", None)
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    if isinstance(labels, dict):
        for label in _JOB_UID_LABELS:
            labels.pop(label, None)
