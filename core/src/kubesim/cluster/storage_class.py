"""The DefaultStorageClass admission plugin: claims created without a class get the default one.

Follows k8s.io/kubernetes plugin/pkg/admission/storage/storageclass/setdefault/admission.go
and pkg/volume/util/storageclass.go (GetDefaultClass: of several default classes, the most
recently created wins, then the name).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["IS_DEFAULT_CLASS", "admit_claim_default_class", "default_class"]

IS_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
_BETA_IS_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"


def _is_default(sc: dict[str, Any]) -> bool:
    anns = (sc.get("metadata") or {}).get("annotations") or {}
    return anns.get(IS_DEFAULT_CLASS) == "true" or anns.get(_BETA_IS_DEFAULT_CLASS) == "true"


def default_class(classes: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """GetDefaultClass: the newest class marked default (ties: the name that sorts first)."""
    defaults = [sc for sc in classes if _is_default(sc)]
    if not defaults:
        return None
    return max(defaults, key=lambda sc: (str((sc.get("metadata") or {}).get("creationTimestamp") or ""),
                                         [-ord(c) for c in str((sc.get("metadata") or {}).get("name") or "")]))


def admit_claim_default_class(pvc: dict[str, Any], classes: Iterable[dict[str, Any]]) -> None:
    """Set spec.storageClassName of a claim being created that names no class (in place)."""
    spec = pvc.get("spec")
    if not isinstance(spec, dict) or spec.get("storageClassName") is not None:
        return
    if _BETA_CLASS in ((pvc.get("metadata") or {}).get("annotations") or {}):
        return
    sc = default_class(classes)
    if sc is not None:
        spec["storageClassName"] = (sc.get("metadata") or {}).get("name")
