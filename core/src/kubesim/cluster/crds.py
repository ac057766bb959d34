"""CustomResourceDefinitions: serving a CRD's kind while it exists, and its finalizer.

A stored CRD registers its kind (k8s.io/apiextensions-apiserver pkg/controller/establish)
and deleting it first deletes every instance of that kind, as the CRD finalizer does
(pkg/controller/finalizer/crd_finalizer.go), synchronously.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import CRD_TYPE, crd_group_kind

if TYPE_CHECKING:
    from .writes import GenericStore

__all__ = ["CustomResourceDefinitions"]

_CRD_FINALIZER = "apiextensions-controller"


class CustomResourceDefinitions:
    """Keeps the registry in step with stored CRDs and remembers each CRD's uid serial for reset()."""

    def __init__(self, writes: GenericStore) -> None:
        self._writes = writes
        self._serials: dict[str, int] = {}

    def created(self, crd: dict[str, Any], serial: int) -> None:
        """A CRD is being stored: serve its kind; `serial` is the uid counter value it took."""
        self._writes.registry.register_crd(crd)
        self._serials[crd["metadata"]["uid"]] = serial

    def updated(self, crd: dict[str, Any]) -> None:
        """A CRD's spec may have changed: serve the kind as it is now."""
        self._writes.registry.register_crd(crd)

    def removed(self, crd: dict[str, Any]) -> None:
        """A CRD left the store: its kind is no longer served."""
        self._writes.registry.unregister(*crd_group_kind(crd))
        self._serials.pop(crd["metadata"]["uid"], None)

    def delete_instances(self, crd: dict[str, Any]) -> None:
        """Delete every instance of a CRD's kind before the CRD goes (the CRD finalizer's job)."""
        writes = self._writes
        group, kind = crd_group_kind(crd)
        rt = writes.registry.get(group, kind)
        bucket = writes.store.buckets.get((group, kind))
        if rt is None or bucket is None:
            return
        for obj in bucket.values():
            key = (obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
            if writes.store.get(rt, key) is not None:
                writes.remove(rt, key, obj, _CRD_FINALIZER)

    def kept(self) -> tuple[int, int]:
        """After a reset that kept the stored CRDs: (highest resourceVersion, highest uid serial)."""
        kept = [obj for _, obj in self._writes.store.each([CRD_TYPE])]
        self._serials = {o["metadata"]["uid"]: self._serials.get(o["metadata"]["uid"], 0) for o in kept}
        rv = max((int(o["metadata"]["resourceVersion"]) for o in kept), default=0)
        return rv, max(self._serials.values(), default=0)
