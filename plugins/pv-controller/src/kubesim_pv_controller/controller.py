"""persistentvolume-binder: kube-controller-manager's PersistentVolume controller.

Claims: an unbound claim is bound to the volume pre-bound to it or to the smallest
Available volume that matches (FindMatchingVolume); without one, a claim of a class with
a provisioner gets a volume provisioned for it, at once for Immediate classes and, for
WaitForFirstConsumer classes, once the scheduler has written the selected-node
annotation (the scheduler's VolumeBinding PreBind). A bound claim whose volume is gone
is Lost. Volumes: Available without a claim, Bound with it, Released when their claim
is deleted (and deleted when their reclaim policy is Delete). Every write happens in
the controller's loop, in simulated time; the provisioner's work takes no time.
"""

# upstream: pkg/controller/volume/persistentvolume/pv_controller.go (syncClaim,
# syncUnboundClaim, syncBoundClaim, syncVolume, bind, provisionClaim, reclaimVolume)

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterable
from typing import Any, ClassVar

from kubesim.cluster import WatchEvent
from kubesim.cluster.storage_class import default_class
from kubesim.controllers import ReconcileController
from kubesim.errors import ApiError, NotFound
from kubesim.k8s.storage import (
    ANN_BETA_STORAGE_CLASS as ANN_BETA_CLASS,
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    NOT_SUPPORTED_PROVISIONER,
    Obj,
    annotations_of,
    claim_class,
    find_matching_volume,
    is_volume_bound_to_claim,
    name_of,
    namespace_of,
)

from .provisioning import provisioned_volume

__all__ = ["PersistentVolumeController"]

_CLAIM, _VOLUME = "PersistentVolumeClaim", "PersistentVolume"


def _uid(obj: Obj | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("uid") or "")


def _split(key: Hashable) -> tuple[str, str, str]:
    """A work-queue key: (kind, namespace, name)."""
    assert isinstance(key, tuple) and len(key) == 3
    return str(key[0]), str(key[1]), str(key[2])


def _phase(obj: Obj) -> str:
    return str((obj.get("status") or {}).get("phase") or "")


class PersistentVolumeController(ReconcileController):
    """Binds PersistentVolumeClaims to PersistentVolumes and provisions volumes for them."""

    name = "persistentvolume-binder"
    watches: ClassVar[tuple[tuple[str, str], ...]] = (
        ("v1", _CLAIM), ("v1", _VOLUME), ("storage.k8s.io/v1", "StorageClass"),
    )

    # --- keys ------------------------------------------------------------------------
    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self._keys(obj, None)

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        return self._keys(event.object, event.type)

    def _keys(self, obj: Obj, event_type: str | None) -> list[Hashable]:
        kind = obj.get("kind")
        if kind == _CLAIM:
            keys: list[Hashable] = [(_CLAIM, namespace_of(obj), name_of(obj))]
            volume = (obj.get("spec") or {}).get("volumeName")
            if volume:
                keys.append((_VOLUME, "", volume))
            if event_type == "DELETED":  # volumes that pointed at it are released
                keys.extend((_VOLUME, "", name_of(v)) for v in self.reader.list("v1", _VOLUME)
                            if ((v.get("spec") or {}).get("claimRef") or {}).get("uid") == _uid(obj))
            return keys
        if kind == _VOLUME:
            keys = [(_VOLUME, "", name_of(obj))]
            ref = (obj.get("spec") or {}).get("claimRef")
            if ref:
                keys.append((_CLAIM, ref.get("namespace") or "", ref.get("name") or ""))
            elif event_type is not None and event_type != "DELETED":
                keys.extend(self._waiting_claims())  # upstream's periodic claim resync finds it
            return keys
        return self._waiting_claims()  # a StorageClass appeared or changed

    def _waiting_claims(self) -> list[Hashable]:
        """The claims not bound yet, which a new volume or class may let through."""
        return [(_CLAIM, namespace_of(c), name_of(c)) for c in self.reader.list("v1", _CLAIM)
                if not annotations_of(c).get(ANN_BIND_COMPLETED)]

    def reconcile(self, key: Hashable) -> None:
        kind, namespace, name = _split(key)
        try:
            if kind == _CLAIM:
                self._sync_claim(namespace, name)
            else:
                self._sync_volume(name)
        except NotFound:
            pass  # the object went away meanwhile: its own event queued what follows
        except ApiError as exc:
            if exc.code != 409:
                raise
            self.queue.add(key)  # a conflict: try again with the new version

    # --- reads -------------------------------------------------------------------------
    def _get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        try:
            return self.reader.get("v1", kind, name, namespace)
        except NotFound:
            return None

    def _class(self, name: str) -> dict[str, Any] | None:
        if not name:
            return None
        try:
            return self.reader.get("storage.k8s.io/v1", "StorageClass", name)
        except NotFound:
            return None

    # --- claims --------------------------------------------------------------------------
    def _sync_claim(self, namespace: str, name: str) -> None:
        claim = self._get(_CLAIM, name, namespace)
        if claim is None:
            return
        if ANN_BIND_COMPLETED in annotations_of(claim):
            self._sync_bound_claim(claim)
        else:
            self._sync_unbound_claim(claim)

    def _sync_unbound_claim(self, claim: dict[str, Any]) -> None:
        volume_name = (claim.get("spec") or {}).get("volumeName") or ""
        if not volume_name and self._assign_default_class(claim):
            return  # the update's event syncs the claim again
        if not volume_name:
            sc = self._class(claim_class(claim))
            delay = bool(sc is not None and sc.get("volumeBindingMode") == "WaitForFirstConsumer")
            try:
                volume = find_matching_volume(claim, self.reader.list("v1", _VOLUME), None, {}, delay)
            except ValueError as exc:  # upstream: a sync error and a warning event; the claim waits
                self.log.warning("claim cannot be bound", claim=f"{namespace_of(claim)}/{name_of(claim)}",
                                 error=str(exc))
                self._set_claim_phase(claim, "Pending")
                return
            if volume is not None:
                self._bind(copy.deepcopy(dict(volume)), claim)
                return
            selected = annotations_of(claim).get(ANN_SELECTED_NODE)
            if delay and selected is None:
                self._set_claim_phase(claim, "Pending")  # WaitForFirstConsumer: the scheduler picks a node
                return
            provisioner = str((sc or {}).get("provisioner") or "")
            if sc is not None and provisioner and provisioner != NOT_SUPPORTED_PROVISIONER:
                self._provision(claim, sc, selected)
                return
            self._set_claim_phase(claim, "Pending")  # no class, or no provisioner: wait for a volume
            return
        volume = self._get(_VOLUME, volume_name)
        if volume is None or ((volume.get("spec") or {}).get("claimRef")
                              and not is_volume_bound_to_claim(volume, claim)):
            self._set_claim_phase(claim, "Pending")  # pre-bound to a missing or taken volume
            return
        self._bind(copy.deepcopy(volume), claim)

    def _assign_default_class(self, claim: dict[str, Any]) -> bool:
        """Retroactive default StorageClass: a claim created with no class at all gets the default
        class once there is one (an empty class name means "no class" and is kept)."""
        if (claim.get("spec") or {}).get("storageClassName") is not None or ANN_BETA_CLASS in annotations_of(claim):
            return False
        sc = default_class(self.reader.list("storage.k8s.io/v1", "StorageClass"))
        if sc is None:
            return False
        claim = copy.deepcopy(claim)
        claim["spec"]["storageClassName"] = name_of(sc)
        self.client.update(claim)
        return True

    def _sync_bound_claim(self, claim: dict[str, Any]) -> None:
        volume_name = (claim.get("spec") or {}).get("volumeName") or ""
        volume = self._get(_VOLUME, volume_name) if volume_name else None
        if volume is None:
            self._set_claim_phase(claim, "Lost")
            return
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref or is_volume_bound_to_claim(volume, claim):
            # (re)complete the binding, a no-op when done; a claimRef without uid (an imported
            # pair) gets the claim's uid
            self._bind(copy.deepcopy(volume), claim)
            return
        self._set_claim_phase(claim, "Lost")  # the volume is bound to another claim

    # --- volumes -------------------------------------------------------------------------
    def _sync_volume(self, name: str) -> None:
        volume = self._get(_VOLUME, name)
        if volume is None:
            return
        ref = (volume.get("spec") or {}).get("claimRef")
        if not ref:
            self._set_volume_phase(volume, "Available")
            return
        claim = self._get(_CLAIM, ref.get("name") or "", ref.get("namespace") or "")
        if not ref.get("uid"):
            if claim is not None and (claim.get("spec") or {}).get("volumeName") == name:
                self.queue.add((_CLAIM, namespace_of(claim), name_of(claim)))  # a bound pair without uid
                return
            self._set_volume_phase(volume, "Available")  # pre-bound by the user: the claim's sync binds it
            return
        if claim is None or _uid(claim) != ref.get("uid"):
            self._release(volume)
            return
        claimed = (claim.get("spec") or {}).get("volumeName") or ""
        if not claimed:
            return  # binding in progress (the scheduler's or ours): the claim's sync completes it
        if claimed == name:
            self._set_volume_phase(volume, "Bound")
            return
        if ANN_BOUND_BY_CONTROLLER in annotations_of(volume):
            # the claim went to another volume: undo our half of the binding
            volume = copy.deepcopy(volume)
            volume["spec"].pop("claimRef", None)
            volume["metadata"].get("annotations", {}).pop(ANN_BOUND_BY_CONTROLLER, None)
            volume = self.client.update(volume)
            self._set_volume_phase(volume, "Available")

    def _release(self, volume: dict[str, Any]) -> None:
        """reclaimVolume: the claim is gone; Delete removes the volume, Retain keeps it Released."""
        if _phase(volume) in ("Released", "Failed") and \
                (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") != "Delete":
            return
        volume = self._set_volume_phase(volume, "Released")
        if (volume.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete":
            self.client.delete("v1", _VOLUME, name_of(volume))

    # --- writes ----------------------------------------------------------------------------
    def _bind(self, volume: dict[str, Any], claim: dict[str, Any]) -> None:
        """bind: volume -> claim (claimRef), volume Bound, claim -> volume, claim Bound."""
        meta = claim.get("metadata") or {}
        ref = (volume.get("spec") or {}).get("claimRef") or {}
        if not is_volume_bound_to_claim(volume, claim) or not ref.get("uid"):
            volume.setdefault("spec", {})["claimRef"] = {
                "kind": _CLAIM, "apiVersion": "v1", "namespace": namespace_of(claim), "name": name_of(claim),
                "uid": meta.get("uid") or "", "resourceVersion": meta.get("resourceVersion") or "",
            }
            if not ref:
                volume.setdefault("metadata", {}).setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
            volume = self.client.update(volume)
        volume = self._set_volume_phase(volume, "Bound")
        claim = copy.deepcopy(claim)
        spec, anns = claim.setdefault("spec", {}), claim.setdefault("metadata", {}).setdefault("annotations", {})
        if spec.get("volumeName") != name_of(volume) or ANN_BIND_COMPLETED not in anns:
            if spec.get("volumeName") != name_of(volume):
                spec["volumeName"] = name_of(volume)
                anns[ANN_BOUND_BY_CONTROLLER] = "yes"
            anns[ANN_BIND_COMPLETED] = "yes"
            claim = self.client.update(claim)
        vspec = volume.get("spec") or {}
        status = claim.get("status") or {}
        wanted = {"phase": "Bound", "accessModes": list(vspec.get("accessModes") or ()),
                  "capacity": dict(vspec.get("capacity") or {})}
        if any(status.get(k) != v for k, v in wanted.items()):
            claim = copy.deepcopy(claim)
            claim["status"] = {**status, **wanted}
            self.client.update_status(claim)

    def _provision(self, claim: dict[str, Any], sc: Obj, selected: str | None) -> None:
        """provisionClaim with the external provisioner's part: annotate the claim, create its volume."""
        provisioner = str(sc.get("provisioner") or "")
        anns = annotations_of(claim)
        if anns.get(ANN_STORAGE_PROVISIONER) != provisioner:
            claim = copy.deepcopy(claim)
            new = claim.setdefault("metadata", {}).setdefault("annotations", {})
            new[ANN_STORAGE_PROVISIONER] = provisioner
            new[ANN_BETA_STORAGE_PROVISIONER] = provisioner
            claim = self.client.update(claim)
        self._set_claim_phase(claim, "Pending")
        node = csi_node = None
        if selected is not None:
            node = self._get("Node", selected)
            if node is None:
                self.log.info("selected node of claim is gone", claim=f"{namespace_of(claim)}/{name_of(claim)}",
                              node=selected)
                return
            try:
                csi_node = self.reader.get("storage.k8s.io/v1", "CSINode", selected)
            except NotFound:
                csi_node = None
        volume = provisioned_volume(claim, sc, node, csi_node)
        if self._get(_VOLUME, name_of(volume)) is None:
            self.client.create(volume)

    def _set_claim_phase(self, claim: dict[str, Any], phase: str) -> dict[str, Any]:
        if _phase(claim) == phase:
            return claim
        claim = copy.deepcopy(claim)
        claim.setdefault("status", {})["phase"] = phase
        return self.client.update_status(claim)

    def _set_volume_phase(self, volume: dict[str, Any], phase: str) -> dict[str, Any]:
        if _phase(volume) == phase:
            return volume
        volume = copy.deepcopy(volume)
        status = volume.setdefault("status", {})
        status["phase"] = phase
        status["lastPhaseTransitionTime"] = self.runtime.clock.timestamp()
        return self.client.update_status(volume)
