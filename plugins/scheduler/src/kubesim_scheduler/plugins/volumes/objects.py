"""What the volume plugins read of the storage API objects, once per scheduling cycle.

`StorageView` lists PersistentVolumes, claims, StorageClasses, CSINodes, CSIDrivers,
CSIStorageCapacities and VolumeAttachments through the Handle (the plugins' informer
listers); the shared helpers (FindMatchingVolume and friends) are in kubesim.k8s.storage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesim.k8s.storage import Obj, name_of

if TYPE_CHECKING:
    from ...framework.handle import Handle

__all__ = ["StorageView", "NotFoundError"]


class NotFoundError(LookupError):
    """An object a lister did not find; str() is the API server's NotFound message."""

    def __init__(self, resource: str, name: str) -> None:
        super().__init__(f'{resource} "{name}" not found')
        self.resource = resource
        self.name = name

    def __str__(self) -> str:
        return str(self.args[0])


class StorageView:
    """What one scheduling cycle reads of the storage API objects (listed lazily, once)."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._cache: dict[tuple[str, str | None], dict[str, Obj]] = {}

    def _index(self, kind: str, namespace: str | None) -> dict[str, Obj]:
        key = (kind, namespace)
        got = self._cache.get(key)
        if got is None:
            got = {name_of(o): o for o in self._handle.list_objects(kind, namespace)}
            self._cache[key] = got
        return got

    def claim(self, namespace: str, name: str) -> Obj:
        """The claim namespace/name; NotFoundError when there is none."""
        pvc = self._index("PersistentVolumeClaim", namespace).get(name)
        if pvc is None:
            raise NotFoundError("persistentvolumeclaim", name)
        return pvc

    def volume(self, name: str) -> Obj:
        pv = self._index("PersistentVolume", None).get(name)
        if pv is None:
            raise NotFoundError("persistentvolume", name)
        return pv

    def volumes(self) -> list[Obj]:
        """Every PersistentVolume, by name."""
        return [v for _, v in sorted(self._index("PersistentVolume", None).items())]

    def storage_class(self, name: str) -> Obj:
        sc = self._index("StorageClass", None).get(name)
        if sc is None:
            raise NotFoundError("storageclass.storage.k8s.io", name)
        return sc

    def csi_node(self, name: str) -> Obj | None:
        return self._index("CSINode", None).get(name)

    def csi_driver(self, name: str) -> Obj | None:
        return self._index("CSIDriver", None).get(name)

    def capacities(self) -> list[Obj]:
        """CSIStorageCapacity objects of every namespace, by (namespace, name)."""
        return list(self._handle.list_objects("CSIStorageCapacity", None))

    def volume_attachments(self) -> list[Obj]:
        return [v for _, v in sorted(self._index("VolumeAttachment", None).items())]
