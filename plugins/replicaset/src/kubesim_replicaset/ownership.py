"""ControllerRefs: who controls an object, and adopting or releasing objects by selector.

Ports of k8s.io/kubernetes pkg/controller/controller_ref_manager.go (ClaimObject,
AdoptPod/ReleasePod, AdoptReplicaSet/ReleaseReplicaSet with their strategic merge patches)
and apimachinery's metav1.NewControllerRef / GetControllerOf.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesim.cluster import LabelSelector
from kubesim.errors import ApiError, NotFound

__all__ = [
    "Claim",
    "adopt_patch",
    "claim_objects",
    "controller_ref",
    "is_controlled_by",
    "new_controller_ref",
    "release_patch",
]

Obj = Mapping[str, Any]


def controller_ref(obj: Obj) -> Mapping[str, Any] | None:
    """The ownerReference with controller: true, if any (metav1.GetControllerOf)."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def is_controlled_by(obj: Obj, owner: Obj) -> bool:
    """metav1.IsControlledBy: the controller ref points at `owner`'s uid."""
    ref = controller_ref(obj)
    return ref is not None and ref.get("uid") == (owner.get("metadata") or {}).get("uid")


def new_controller_ref(owner: Obj) -> dict[str, Any]:
    """metav1.NewControllerRef: controller and blockOwnerDeletion set."""
    meta = owner.get("metadata") or {}
    return {
        "apiVersion": owner.get("apiVersion"),
        "kind": owner.get("kind"),
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def adopt_patch(owner: Obj, obj: Obj) -> dict[str, Any]:
    """The strategic merge patch that adds `owner` as `obj`'s controller (uid as precondition)."""
    return {
        "metadata": {
            "ownerReferences": [new_controller_ref(owner)],
            "uid": (obj.get("metadata") or {}).get("uid"),
        }
    }


def release_patch(owner: Obj, obj: Obj) -> dict[str, Any]:
    """The strategic merge patch that removes `owner`'s reference from `obj`."""
    return {
        "metadata": {
            "ownerReferences": [{"$patch": "delete", "uid": (owner.get("metadata") or {}).get("uid")}],
            "uid": (obj.get("metadata") or {}).get("uid"),
        }
    }


Claim = Callable[[Obj], object]
"""Writes an adoption or a release; raises ApiError when it fails."""


def claim_objects(
    owner: Obj,
    selector: LabelSelector,
    objects: Sequence[Obj],
    adopt: Claim,
    release: Claim,
    match: Callable[[Obj], bool] | None = None,
) -> tuple[list[Obj], list[ApiError]]:
    """BaseControllerRefManager.ClaimObject over `objects`: the ones `owner` controls afterwards.

    Owned and matching: kept. Owned but no longer matching: released (unless the owner is
    being deleted). Orphans that match: adopted, unless the owner or the orphan is being
    deleted or it lives in another namespace. Errors other than NotFound are returned.
    """
    meta = owner.get("metadata") or {}
    owner_uid, owner_ns = meta.get("uid"), meta.get("namespace") or ""
    owner_deleting = bool(meta.get("deletionTimestamp"))

    def matches(obj: Obj) -> bool:
        if not selector.matches((obj.get("metadata") or {}).get("labels")):
            return False
        return match is None or match(obj)

    claimed: list[Obj] = []
    errors: list[ApiError] = []
    for obj in objects:
        ref = controller_ref(obj)
        obj_meta = obj.get("metadata") or {}
        try:
            if ref is not None:
                if ref.get("uid") != owner_uid:
                    continue
                if matches(obj):
                    claimed.append(obj)
                elif not owner_deleting:
                    release(obj)
                continue
            if owner_deleting or not matches(obj) or obj_meta.get("deletionTimestamp"):
                continue
            if owner_ns and owner_ns != (obj_meta.get("namespace") or ""):
                continue
            adopt(obj)
            claimed.append(obj)
        except NotFound:
            continue
        except ApiError as exc:
            errors.append(exc)
    return claimed, errors
