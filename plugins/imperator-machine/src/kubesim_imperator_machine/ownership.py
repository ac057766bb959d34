"""controllerutil.SetControllerReference for dicts (sigs.k8s.io/controller-runtime v0.10
pkg/controller/controllerutil/controllerutil.go)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["AlreadyOwned", "controller_of", "set_controller_reference"]


class AlreadyOwned(Exception):
    """Another controller owns the object (AlreadyOwnedError)."""


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ownerReference with controller: true (metav1.GetControllerOf)."""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return ref  # type: ignore[no-any-return]
    return None


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """referSameObject: same group, kind and name (the version and uid do not matter)."""
    return (_group(str(a.get("apiVersion", ""))), a.get("kind"), a.get("name")) == (
        _group(str(b.get("apiVersion", ""))), b.get("kind"), b.get("name"))


def set_controller_reference(owner: Mapping[str, Any], obj: dict[str, Any]) -> None:
    """Make `owner` the controller of `obj` (in place); AlreadyOwned when another one is."""
    meta = owner["metadata"]
    ref = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"], "uid": meta.get("uid", ""),
           "controller": True, "blockOwnerDeletion": True}
    existing = controller_of(obj)
    obj_meta = obj.setdefault("metadata", {})
    if existing is not None and not _same(existing, ref):
        where = f"{obj_meta.get('namespace', '')}/{obj_meta.get('name', '')}"
        raise AlreadyOwned(f"Object {where} is already owned by another {existing.get('kind')} controller "
                           f"{existing.get('name')}")
    refs = list(obj_meta.get("ownerReferences") or ())
    for i, r in enumerate(refs):
        if _same(r, ref):
            refs[i] = ref
            break
    else:
        refs.append(ref)
    obj_meta["ownerReferences"] = refs
