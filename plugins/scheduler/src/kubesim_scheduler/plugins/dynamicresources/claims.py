"""A pod's ResourceClaims: which claim each spec.resourceClaims entry names, and who owns and uses it."""

# upstream: staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go
# (Name, IsForPod, IsReservedForPod, CanBeReserved, ErrClaimNotFound)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "API_VERSION",
    "FINALIZER",
    "ClaimNotFound",
    "claim_name",
    "is_for_pod",
    "is_reserved_for_pod",
    "pod_claim_statuses",
]

API_VERSION = "resource.k8s.io/v1"
FINALIZER = "resource.kubernetes.io/delete-protection"

Obj = Mapping[str, Any]


class ClaimNotFound(ValueError):
    """The pod's claim cannot be named yet (template claim not generated) or is unsupported."""


def _meta(obj: Obj) -> Obj:
    return obj.get("metadata") or {}


def pod_claim_statuses(pod: Obj) -> dict[str, str | None]:
    """status.resourceClaimStatuses as {pod claim name: generated claim name (None: not needed)}."""
    return {str(s.get("name")): s.get("resourceClaimName") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}


def claim_name(pod: Obj, pod_claim: Obj) -> tuple[str | None, bool]:
    """resourceclaim.Name: (claim name or None when none is needed, whether the pod must own it).

    Raises ClaimNotFound with upstream's message when a template's claim is not created yet.
    """
    meta = _meta(pod)
    if pod_claim.get("resourceClaimName"):
        return str(pod_claim["resourceClaimName"]), False
    if pod_claim.get("resourceClaimTemplateName"):
        statuses = pod_claim_statuses(pod)
        name = str(pod_claim.get("name"))
        if name in statuses:
            return statuses[name], True
        raise ClaimNotFound(f'pod "{meta.get("namespace", "")}/{meta.get("name", "")}": ResourceClaim not created yet')
    raise ClaimNotFound(f'pod "{meta.get("namespace", "")}/{meta.get("name", "")}", spec.resourceClaim '
                        f'"{pod_claim.get("name")}": none of the supported fields are set')


def is_for_pod(pod: Obj, claim: Obj) -> str | None:
    """IsForPod: None when the pod controls the claim, else upstream's error text."""
    pm, cm = _meta(pod), _meta(claim)
    owned = any(ref.get("controller") and ref.get("uid") == pm.get("uid") for ref in cm.get("ownerReferences") or ())
    if cm.get("namespace") != pm.get("namespace") or not owned:
        return (f"ResourceClaim {cm.get('namespace', '')}/{cm.get('name', '')} was not created for pod "
                f"{pm.get('namespace', '')}/{pm.get('name', '')} (pod is not owner)")
    return None


def is_reserved_for_pod(pod: Obj, claim: Obj) -> bool:
    """IsReservedForPod: the pod's uid is in status.reservedFor."""
    uid = _meta(pod).get("uid")
    return any(r.get("uid") == uid for r in (claim.get("status") or {}).get("reservedFor") or ())
