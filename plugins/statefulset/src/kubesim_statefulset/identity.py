"""A StatefulSet's pods and claims: ordinal names, identity, storage, and pod predicates.

Upstream: pkg/controller/statefulset/stateful_set_utils.go (getParentNameAndOrdinal,
identityMatches, storageMatches, getPersistentVolumeClaims, updateStorage, initIdentity,
newStatefulSetPod, newVersionedStatefulSetPod, isRunningAndReady, ...) and
pkg/controller/controller_utils.go (GetPodFromTemplate), pkg/api/v1/pod (IsPodAvailable).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import attrs
from kubesim.clock import parse_time
from kubesim.cluster import copy_tree

__all__ = [
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "PodFacts",
    "claim_name",
    "controller_of",
    "controller_ref",
    "end_ordinal",
    "identity_matches",
    "in_ordinal_range",
    "is_available",
    "is_created",
    "is_failed",
    "is_pending",
    "is_running_and_ready",
    "is_succeeded",
    "is_terminating",
    "is_unavailable",
    "new_claims",
    "new_pod",
    "ordinal_of",
    "parent_and_ordinal",
    "pod_facts",
    "pod_name",
    "pod_revision",
    "start_ordinal",
    "storage_matches",
    "update_identity",
    "update_storage",
]

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"

_ORDINAL = re.compile(r"(.*)-([0-9]+)$")
_INT32_MAX = 2**31 - 1

Obj = Mapping[str, Any]


def _meta(obj: Obj) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _spec(obj: Obj) -> Mapping[str, Any]:
    return obj.get("spec") or {}


@lru_cache(maxsize=65536)
def _parse_name(name: str) -> tuple[str, int]:
    m = _ORDINAL.match(name)
    if m is None:
        return "", -1
    ordinal = int(m.group(2))
    return m.group(1), (ordinal if ordinal <= _INT32_MAX else -1)


def parent_and_ordinal(pod: Obj) -> tuple[str, int]:
    """The StatefulSet name and ordinal a pod's name encodes; ("", -1) when it encodes none."""
    return _parse_name(str((pod.get("metadata") or {}).get("name", "")))


def ordinal_of(pod: Obj) -> int:
    """The pod's ordinal, -1 when its name has none."""
    return parent_and_ordinal(pod)[1]


def start_ordinal(sts: Obj) -> int:
    """spec.ordinals.start, 0 when unset."""
    return int((_spec(sts).get("ordinals") or {}).get("start") or 0)


def replicas_of(sts: Obj) -> int:
    """spec.replicas (defaulted to 1 by the API server)."""
    value = _spec(sts).get("replicas")
    return 1 if value is None else int(value)


def end_ordinal(sts: Obj) -> int:
    """The last ordinal the set wants (inclusive)."""
    return start_ordinal(sts) + replicas_of(sts) - 1


def in_ordinal_range(pod: Obj, sts: Obj) -> bool:
    """Whether the pod's ordinal is one the set currently wants."""
    ordinal = ordinal_of(pod)
    return start_ordinal(sts) <= ordinal <= end_ordinal(sts)


def pod_name(sts: Obj, ordinal: int) -> str:
    """`<set>-<ordinal>`."""
    return f"{_meta(sts).get('name', '')}-{ordinal}"


def claim_name(sts: Obj, template: Obj, ordinal: int) -> str:
    """`<claim template name>-<set>-<ordinal>`."""
    return f"{_meta(template).get('name', '')}-{_meta(sts).get('name', '')}-{ordinal}"


def is_member(sts: Obj, pod: Obj) -> bool:
    """Whether the pod's name says it belongs to the set (isMemberOf)."""
    return parent_and_ordinal(pod)[0] == _meta(sts).get("name")


def identity_matches(sts: Obj, pod: Obj) -> bool:
    """The pod has the name, namespace and pod-name label of a member of the set."""
    parent, ordinal = parent_and_ordinal(pod)
    meta = _meta(pod)
    return (
        ordinal >= 0
        and parent == _meta(sts).get("name")
        and meta.get("name") == pod_name(sts, ordinal)
        and meta.get("namespace") == _meta(sts).get("namespace")
        and (meta.get("labels") or {}).get(POD_NAME_LABEL) == meta.get("name")
    )


def storage_matches(sts: Obj, pod: Obj) -> bool:
    """Every volume claim template has a pod volume pointing at the pod's claim."""
    ordinal = ordinal_of(pod)
    if ordinal < 0:
        return False
    volumes = {v.get("name"): v for v in _spec(pod).get("volumes") or () if isinstance(v, dict)}
    for template in _spec(sts).get("volumeClaimTemplates") or ():
        volume = volumes.get(_meta(template).get("name"))
        source = (volume or {}).get("persistentVolumeClaim")
        if not source or source.get("claimName") != claim_name(sts, template, ordinal):
            return False
    return True


def new_claims(sts: Obj, ordinal: int) -> list[dict[str, Any]]:
    """The PersistentVolumeClaims the pod with `ordinal` needs, in template order."""
    selector_labels = (_spec(sts).get("selector") or {}).get("matchLabels") or {}
    claims = []
    for template in _spec(sts).get("volumeClaimTemplates") or ():
        meta = {k: copy_tree(v) for k, v in _meta(template).items() if k not in ("name", "namespace")}
        meta["name"] = claim_name(sts, template, ordinal)
        meta["namespace"] = _meta(sts).get("namespace", "default")
        labels = dict(meta.get("labels") or {})
        labels.update(selector_labels)
        meta["labels"] = labels
        claims.append({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta,
            "spec": copy_tree(dict(_spec(template))),
        })
    return claims


def update_storage(sts: Obj, pod: dict[str, Any]) -> None:
    """Point the pod's claim volumes at its claims, keeping its other volumes (in place)."""
    ordinal = ordinal_of(pod)
    templates = list(_spec(sts).get("volumeClaimTemplates") or ())
    names = {_meta(t).get("name") for t in templates}
    volumes: list[dict[str, Any]] = [
        {"name": _meta(t).get("name"),
         "persistentVolumeClaim": {"claimName": claim_name(sts, t, ordinal)}}
        for t in templates
    ]
    volumes.extend(v for v in pod["spec"].get("volumes") or () if v.get("name") not in names)
    if volumes:
        pod["spec"]["volumes"] = volumes


def update_identity(sts: Obj, pod: dict[str, Any]) -> None:
    """Set the pod's name, namespace and identity labels from its ordinal (in place)."""
    ordinal = ordinal_of(pod)
    meta = pod["metadata"]
    meta["name"] = pod_name(sts, ordinal)
    meta["namespace"] = _meta(sts).get("namespace", "default")
    labels = meta.setdefault("labels", {})
    labels[POD_NAME_LABEL] = meta["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)


def controller_ref(sts: Obj) -> dict[str, Any]:
    """The ownerReference a StatefulSet puts on what it controls (metav1.NewControllerRef)."""
    meta = _meta(sts)
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: Obj) -> Mapping[str, Any] | None:
    """The object's controller ownerReference (metav1.GetControllerOf), if any."""
    for ref in _meta(obj).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def new_pod(sts: Obj, ordinal: int, revision: str) -> dict[str, Any]:
    """A new member pod from the set's template (newStatefulSetPod plus the revision label)."""
    template = _spec(sts).get("template") or {}
    tmeta = template.get("metadata") or {}
    meta: dict[str, Any] = {
        "name": pod_name(sts, ordinal),
        "generateName": f"{_meta(sts).get('name', '')}-",
        "namespace": _meta(sts).get("namespace", "default"),
        "labels": dict(tmeta.get("labels") or {}),
        "ownerReferences": [controller_ref(sts)],
    }
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if tmeta.get("finalizers"):
        meta["finalizers"] = list(tmeta["finalizers"])
    pod: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": copy_tree(dict(template.get("spec") or {})),
    }
    update_identity(sts, pod)
    # initIdentity: set only on creation, these fields are immutable afterwards
    pod["spec"]["hostname"] = meta["name"]
    if _spec(sts).get("serviceName"):
        pod["spec"]["subdomain"] = _spec(sts)["serviceName"]
    update_storage(sts, pod)
    meta["labels"][REVISION_LABEL] = revision
    return pod


def pod_revision(pod: Obj) -> str:
    """The pod's controller-revision-hash label ("" when absent)."""
    return str((_meta(pod).get("labels") or {}).get(REVISION_LABEL, ""))


@attrs.frozen(slots=True)
class PodFacts:
    """What the controller asks about a pod (its phase, readiness, revision), read once."""

    phase: str
    ready: bool
    ready_since: str | None
    terminating: bool
    revision: str

    @property
    def created(self) -> bool:
        """The API server has the pod (it has a phase); placeholders for missing pods do not."""
        return self.phase != ""

    @property
    def running_and_ready(self) -> bool:
        """Phase Running and condition Ready=True (isRunningAndReady)."""
        return self.phase == "Running" and self.ready

    def available(self, min_ready_seconds: int, now: datetime) -> bool:
        """podutil.IsPodAvailable: Ready, and Ready for more than minReadySeconds."""
        if not self.ready:
            return False
        if min_ready_seconds == 0:
            return True
        since = self.ready_since
        return bool(since) and parse_time(str(since)) + timedelta(seconds=min_ready_seconds) < now

    def unavailable(self, min_ready_seconds: int, now: datetime) -> bool:
        """isUnavailable: not available, or terminating."""
        return not self.available(min_ready_seconds, now) or self.terminating


def pod_facts(pod: Obj) -> PodFacts:
    """Read a pod's PodFacts."""
    meta, status = _meta(pod), pod.get("status") or {}
    ready = None
    for c in status.get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            ready = c
            break
    return PodFacts(
        phase=str(status.get("phase") or ""),
        ready=ready is not None and ready.get("status") == "True",
        ready_since=None if ready is None else ready.get("lastTransitionTime"),
        terminating=bool(meta.get("deletionTimestamp")),
        revision=str((meta.get("labels") or {}).get(REVISION_LABEL, "")),
    )


def is_created(pod: Obj) -> bool:
    """The API server has the pod (it has a phase); placeholders for missing pods do not."""
    return pod_facts(pod).created


def is_pending(pod: Obj) -> bool:
    return pod_facts(pod).phase == "Pending"


def is_failed(pod: Obj) -> bool:
    return pod_facts(pod).phase == "Failed"


def is_succeeded(pod: Obj) -> bool:
    return pod_facts(pod).phase == "Succeeded"


def is_terminating(pod: Obj) -> bool:
    return bool(_meta(pod).get("deletionTimestamp"))


def is_running_and_ready(pod: Obj) -> bool:
    """Phase Running and condition Ready=True."""
    return pod_facts(pod).running_and_ready


def is_available(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    """podutil.IsPodAvailable: Ready, and Ready for more than minReadySeconds."""
    return pod_facts(pod).available(min_ready_seconds, now)


def is_unavailable(pod: Obj, min_ready_seconds: int, now: datetime) -> bool:
    """Not available, or terminating."""
    return pod_facts(pod).unavailable(min_ready_seconds, now)
