"""ephemeral-volume: kube-controller-manager's controller for generic ephemeral volumes.

For every `ephemeral` volume of a pod it creates the claim <pod name>-<volume name> from
the volume's claim template, owned by the pod (so it is garbage-collected with it); a claim
of that name that the pod does not own is left alone (the scheduler reports the conflict).
"""

# upstream: pkg/controller/volume/ephemeral/controller.go (enqueuePod, syncHandler, handleVolume)

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable
from typing import Any, ClassVar

from kubesim.cluster import WatchEvent
from kubesim.controllers import ReconcileController
from kubesim.errors import AlreadyExists, NotFound
from kubesim.k8s.storage import ephemeral_claim_name, name_of, namespace_of

__all__ = ["EphemeralVolumeController"]


class EphemeralVolumeController(ReconcileController):
    """Creates the claims of pods' generic ephemeral volumes."""

    name = "ephemeral-volume"
    watches: ClassVar[tuple[tuple[str, str], ...]] = (("v1", "Pod"), ("v1", "PersistentVolumeClaim"))

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        if obj.get("kind") == "Pod":
            return [] if event.type == "DELETED" else self._pod_keys(obj)
        # a claim went away: its owner pod may need it again
        if event.type != "DELETED":
            return []
        return [(namespace_of(obj), ref.get("name") or "") for ref in (obj.get("metadata") or {}).get(
            "ownerReferences") or () if ref.get("kind") == "Pod" and ref.get("controller")]

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self._pod_keys(obj) if obj.get("kind") == "Pod" else []

    def _pod_keys(self, pod: dict[str, Any]) -> Iterable[Hashable]:
        """enqueuePod: only a pod that is not being deleted and has an ephemeral volume (the
        others have nothing to reconcile: most pods, at every one of their events)."""
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            return []
        volumes = (pod.get("spec") or {}).get("volumes") or ()
        if any(type(v) is dict and v.get("ephemeral") is not None for v in volumes):
            return self.keys_for_object(pod)
        return []

    def reconcile(self, key: Hashable) -> None:
        assert isinstance(key, tuple) and len(key) == 2
        namespace, name = str(key[0]), str(key[1])
        try:
            pod = self.reader.get("v1", "Pod", name, namespace, copy=False)  # read-only
        except NotFound:
            return
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            return
        for volume in (pod.get("spec") or {}).get("volumes") or ():
            if volume.get("ephemeral") is None:
                continue
            claim = self._claim_for(pod, volume)
            try:
                self.client.create(claim)
            except AlreadyExists:
                pass  # created before, or someone else's claim: the scheduler checks the owner

    @staticmethod
    def _claim_for(pod: dict[str, Any], volume: dict[str, Any]) -> dict[str, Any]:
        template = (volume.get("ephemeral") or {}).get("volumeClaimTemplate") or {}
        tmeta = template.get("metadata") or {}
        meta: dict[str, Any] = {
            "name": ephemeral_claim_name(pod, volume), "namespace": namespace_of(pod),
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": name_of(pod),
                                 "uid": (pod.get("metadata") or {}).get("uid") or "",
                                 "controller": True, "blockOwnerDeletion": True}],
        }
        for field in ("labels", "annotations"):
            if tmeta.get(field):
                meta[field] = dict(tmeta[field])
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
                "spec": copy.deepcopy(template.get("spec") or {})}
