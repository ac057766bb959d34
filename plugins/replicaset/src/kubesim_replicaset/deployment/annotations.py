"""The annotations a Deployment keeps on its ReplicaSets (and on itself).

Ports of k8s.io/kubernetes pkg/controller/deployment/util/deployment_util.go:
SetNewReplicaSetAnnotations (revision, revision-history), copyDeploymentAnnotationsToReplicaSet,
SetDeploymentAnnotationsTo, SetReplicasAnnotations, ReplicasAnnotationsNeedUpdate,
GetDesiredReplicasAnnotation, getMaxReplicasAnnotation and SetDeploymentRevision.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .replicasets import REVISION_ANNOTATION

__all__ = [
    "DESIRED_REPLICAS_ANNOTATION",
    "MAX_REPLICAS_ANNOTATION",
    "MAX_REV_HISTORY_LENGTH_IN_CHARS",
    "REVISION_ANNOTATION",
    "REVISION_HISTORY_ANNOTATION",
    "ROLLBACK_TO_ANNOTATION",
    "desired_replicas_annotation",
    "max_replicas_annotation",
    "replicas_annotations_need_update",
    "set_deployment_annotations_to",
    "set_deployment_revision",
    "set_new_replicaset_annotations",
    "set_replicas_annotations",
]

REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
ROLLBACK_TO_ANNOTATION = "deprecated.deployment.rollback.to"
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000
_SKIPPED = frozenset((
    LAST_APPLIED_ANNOTATION, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, ROLLBACK_TO_ANNOTATION,
))
_INT = re.compile(r"[+-]?[0-9]+")


def _annotations(obj: dict[str, Any]) -> dict[str, str]:
    meta = obj.setdefault("metadata", {})
    if meta.get("annotations") is None:
        meta["annotations"] = {}
    annotations: dict[str, str] = meta["annotations"]
    return annotations


def _parse_int(text: str | None) -> int | None:
    return int(text) if text is not None and _INT.fullmatch(text) else None


def _copy_deployment_annotations(deployment: Mapping[str, Any], rs: dict[str, Any]) -> bool:
    """copyDeploymentAnnotationsToReplicaSet: all but the skipped ones; True when rs changed."""
    annotations = _annotations(rs)
    changed = False
    for k, v in sorted(((deployment.get("metadata") or {}).get("annotations") or {}).items()):
        if k in _SKIPPED or annotations.get(k) == v:
            continue
        annotations[k] = v
        changed = True
    return changed


def set_new_replicaset_annotations(
    deployment: Mapping[str, Any], rs: dict[str, Any], new_revision: str, exists: bool,
    limit_chars: int = MAX_REV_HISTORY_LENGTH_IN_CHARS,
) -> bool:
    """SetNewReplicaSetAnnotations: copy the Deployment's annotations and raise the revision; True on change."""
    from .rollout import max_surge

    changed = _copy_deployment_annotations(deployment, rs)
    annotations = _annotations(rs)
    old_revision = annotations.get(REVISION_ANNOTATION)
    old_int = _parse_int(old_revision) if old_revision is not None else 0
    if old_int is None:
        if old_revision != "":
            return False
        old_int = 0
    new_int = _parse_int(new_revision)
    if new_int is None:
        return False
    if old_int < new_int:
        annotations[REVISION_ANNOTATION] = new_revision
        changed = True
    if old_revision is not None and old_int < new_int:
        history = annotations.get(REVISION_HISTORY_ANNOTATION, "")
        old_revisions = history.split(",")
        if not old_revisions[0]:
            annotations[REVISION_HISTORY_ANNOTATION] = old_revision
        else:
            total = len(history) + len(old_revision) + 1
            start = 0
            while total > limit_chars and start < len(old_revisions):
                total -= len(old_revisions[start]) + 1
                start += 1
            if total <= limit_chars:
                annotations[REVISION_HISTORY_ANNOTATION] = ",".join([*old_revisions[start:], old_revision])
    if not exists:
        replicas = int((deployment.get("spec") or {}).get("replicas") or 0)
        if set_replicas_annotations(rs, replicas, replicas + max_surge(deployment)):
            changed = True
    return changed


def set_deployment_annotations_to(deployment: dict[str, Any], rollback_to: Mapping[str, Any]) -> None:
    """SetDeploymentAnnotationsTo: the Deployment gets the RS's annotations (skipped ones kept)."""
    meta = deployment.setdefault("metadata", {})
    kept = {k: v for k, v in (meta.get("annotations") or {}).items() if k in _SKIPPED}
    for k, v in ((rollback_to.get("metadata") or {}).get("annotations") or {}).items():
        if k not in _SKIPPED:
            kept[k] = v
    meta["annotations"] = kept


def set_deployment_revision(deployment: dict[str, Any], revision: str) -> bool:
    """SetDeploymentRevision: True when the Deployment's revision annotation changed."""
    annotations = _annotations(deployment)
    if annotations.get(REVISION_ANNOTATION) != revision:
        annotations[REVISION_ANNOTATION] = revision
        return True
    return False


def set_replicas_annotations(rs: dict[str, Any], desired: int, maximum: int) -> bool:
    """SetReplicasAnnotations: desired-replicas and max-replicas; True on change."""
    annotations = _annotations(rs)
    changed = False
    for key, value in ((DESIRED_REPLICAS_ANNOTATION, str(desired)), (MAX_REPLICAS_ANNOTATION, str(maximum))):
        if annotations.get(key) != value:
            annotations[key] = value
            changed = True
    return changed


def replicas_annotations_need_update(rs: Mapping[str, Any], desired: int, maximum: int) -> bool:
    """ReplicasAnnotationsNeedUpdate."""
    annotations = (rs.get("metadata") or {}).get("annotations")
    if annotations is None:
        return True
    return bool(annotations.get(DESIRED_REPLICAS_ANNOTATION) != str(desired)
                or annotations.get(MAX_REPLICAS_ANNOTATION) != str(maximum))


def _int_annotation(rs: Mapping[str, Any], key: str) -> tuple[int, bool]:
    value = ((rs.get("metadata") or {}).get("annotations") or {}).get(key)
    if value is None:
        return 0, False
    parsed = _parse_int(value)
    if parsed is None or not -(2**31) <= parsed < 2**31:
        return 0, False
    return parsed, True


def desired_replicas_annotation(rs: Mapping[str, Any]) -> tuple[int, bool]:
    """GetDesiredReplicasAnnotation: (value, found)."""
    return _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)


def max_replicas_annotation(rs: Mapping[str, Any]) -> tuple[int, bool]:
    """getMaxReplicasAnnotation: (value, found)."""
    return _int_annotation(rs, MAX_REPLICAS_ANNOTATION)
