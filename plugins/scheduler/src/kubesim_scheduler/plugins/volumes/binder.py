"""The scheduler's volume binder: which claims a pod has, which volumes fit a node, and the
API updates that bind them (VolumeBinding's SchedulerVolumeBinder).

Upstream keeps assumed PV/PVC versions in an assume cache between Reserve and PreBind and
then polls until the PV controller has finished the binding. Here the assumed versions live
in `AssumeCache` (dropped as soon as the API object moves past the version they were made
from) and PreBind writes the updates; the PV controller completes them after the
scheduler's loop, in the same simulated instant.
"""

# upstream: pkg/scheduler/framework/plugins/volumebinding/binder.go, assume_cache.go

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from kubesim.k8s.selectors import SelectorError, label_selector_as_selector
from kubesim.k8s.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    Obj,
    annotations_of,
    check_node_affinity,
    claim_class,
    find_matching_volume,
    is_volume_bound_to_claim,
    match_topology_selector_terms,
    name_of,
    namespace_of,
    pod_claim_refs,
    quantity_bytes,
    storage_request,
    volume_class,
    volume_is_for_pod,
)

from .objects import NotFoundError, StorageView

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "AssumeCache",
    "BindingInfo",
    "DynamicProvision",
    "PodVolumeClaims",
    "PodVolumes",
    "VolumeBinder",
    "BindError",
]

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

ObjectWriter = Callable[[dict[str, Any]], Mapping[str, Any]]


class BindError(RuntimeError):
    """A failure of the binder (upstream returns it as an error: an Error status)."""


@attrs.define
class BindingInfo:
    """A static binding: claim -> an existing PersistentVolume."""

    pvc: Obj
    pv: Obj


@attrs.define
class DynamicProvision:
    """A claim to provision on the chosen node (with the CSIStorageCapacity that fits, if any)."""

    pvc: Obj
    node_capacity: Obj | None = None


@attrs.define
class PodVolumes:
    """What binding the pod's volumes on one node takes."""

    static_bindings: list[BindingInfo] = attrs.field(factory=list)
    dynamic_provisions: list[DynamicProvision] = attrs.field(factory=list)


@attrs.define
class PodVolumeClaims:
    """The pod's claims split by state, and the candidate volumes per class of the delayed ones."""

    bound: list[Obj] = attrs.field(factory=list)
    unbound_delay_binding: list[Obj] = attrs.field(factory=list)
    unbound_immediate: list[Obj] = attrs.field(factory=list)
    unbound_volumes_delay_binding: dict[str, list[Obj]] = attrs.field(factory=dict)


def _rv(obj: Obj | None) -> int:
    try:
        return int(((obj or {}).get("metadata") or {}).get("resourceVersion") or 0)
    except (TypeError, ValueError):
        return 0


class AssumeCache:
    """Assumed versions of PVs (by name) and PVCs (by namespace/name) over the API objects.

    An assumed version is kept while the API object is still the version it was made from;
    a newer API version replaces it (the informer's update wins), as upstream's AssumeCache.
    """

    def __init__(self) -> None:
        self._assumed: dict[tuple[str, str], tuple[int, Obj]] = {}

    def assume(self, kind: str, key: str, base: Obj, obj: Obj) -> None:
        self._assumed[(kind, key)] = (_rv(base), obj)

    def restore(self, kind: str, key: str) -> None:
        self._assumed.pop((kind, key), None)

    def get(self, kind: str, key: str, api: Obj) -> Obj:
        """The assumed version of `api` if it is still current, else `api` itself."""
        entry = self._assumed.get((kind, key))
        if entry is None:
            return api
        if _rv(api) > entry[0]:
            del self._assumed[(kind, key)]
            return api
        return entry[1]

    def __len__(self) -> int:
        return len(self._assumed)


def _claim_key(pvc: Obj) -> str:
    return f"{namespace_of(pvc)}/{name_of(pvc)}"


def is_pvc_fully_bound(pvc: Obj) -> bool:
    """isPVCFullyBound: spec.volumeName set and the bind-completed annotation present."""
    return bool((pvc.get("spec") or {}).get("volumeName")) and ANN_BIND_COMPLETED in annotations_of(pvc)


class VolumeBinder:
    """Finds and binds the PersistentVolumes of a pod's claims (one per scheduler profile)."""

    def __init__(self, writer: ObjectWriter | None = None) -> None:
        self.cache = AssumeCache()
        self._writer = writer

    # --- reads through the assume cache -------------------------------------------------
    def claim(self, view: StorageView, namespace: str, name: str) -> Obj:
        api = view.claim(namespace, name)
        return self.cache.get("PersistentVolumeClaim", f"{namespace}/{name}", api)

    def volume(self, view: StorageView, name: str) -> Obj:
        return self.cache.get("PersistentVolume", name, view.volume(name))

    def volumes_of_class(self, view: StorageView, class_name: str) -> list[Obj]:
        """ListPVs(storageClassName) through the cache, by name."""
        out = []
        for api in view.volumes():
            pv = self.cache.get("PersistentVolume", name_of(api), api)
            if volume_class(pv) == class_name:
                out.append(pv)
        return out

    # --- claims of a pod ----------------------------------------------------------------
    def is_delay_binding_mode(self, view: StorageView, claim: Obj) -> bool:
        """IsDelayBindingMode: the claim's class binds WaitForFirstConsumer (no class: Immediate)."""
        name = claim_class(claim)
        if not name:
            return False
        try:
            sc = view.storage_class(name)
        except NotFoundError:
            return False
        mode = sc.get("volumeBindingMode")
        if mode is None:
            raise BindError(f'VolumeBindingMode not set for StorageClass "{name}"')
        return bool(mode == "WaitForFirstConsumer")

    def get_pod_volume_claims(self, view: StorageView, pod: Obj) -> PodVolumeClaims:
        """GetPodVolumeClaims: the pod's claims as bound, delayed-unbound and immediate-unbound."""
        out = PodVolumeClaims()
        ns = namespace_of(pod) or "default"
        for name, ephemeral, _vol in pod_claim_refs(pod):
            try:
                pvc = self.claim(view, ns, name)
            except NotFoundError as exc:
                raise BindError(f'error getting PVC "{ns}/{name}": {exc}') from exc
            if ephemeral:
                err = volume_is_for_pod(pod, pvc)
                if err:
                    raise BindError(err)
            if is_pvc_fully_bound(pvc):
                out.bound.append(pvc)
            elif self.is_delay_binding_mode(view, pvc) and not (pvc.get("spec") or {}).get("volumeName"):
                out.unbound_delay_binding.append(pvc)
            else:
                out.unbound_immediate.append(pvc)
        for pvc in out.unbound_delay_binding:
            cls = claim_class(pvc)
            if cls not in out.unbound_volumes_delay_binding:
                out.unbound_volumes_delay_binding[cls] = self.volumes_of_class(view, cls)
        return out

    def are_pod_volumes_bound(self, view: StorageView, pod: Obj) -> bool:
        ns = namespace_of(pod) or "default"
        for name, _eph, _vol in pod_claim_refs(pod):
            try:
                if not is_pvc_fully_bound(self.claim(view, ns, name)):
                    return False
            except NotFoundError:
                return False
        return True

    # --- Filter ---------------------------------------------------------------------------
    def find_pod_volumes(self, view: StorageView, pod: Obj, claims: PodVolumeClaims, node: Obj) -> tuple[PodVolumes, list[str]]:
        """FindPodVolumes: the bindings and provisions that would satisfy the pod on `node`,
        or the conflict reasons (upstream order) when there are none. BindError on errors."""
        pv = PodVolumes()
        node_name = name_of(node)
        labels = (node.get("metadata") or {}).get("labels") or {}
        bound_ok, bound_found = True, True
        unbound_ok, sufficient = True, True
        for pvc in claims.bound:
            name = (pvc.get("spec") or {}).get("volumeName") or ""
            try:
                vol = self.volume(view, name)
            except NotFoundError:
                bound_found = False
                break
            if not check_node_affinity(vol, labels):
                bound_ok = False
                break
        if claims.unbound_delay_binding:
            to_match: list[Obj] = []
            to_provision: list[Obj] = []
            for pvc in claims.unbound_delay_binding:
                selected = annotations_of(pvc).get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node_name:
                        unbound_ok = False
                        break
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if unbound_ok:
                if to_match:
                    unbound_ok, pv.static_bindings, unmatched = self._find_matching_volumes(
                        to_match, claims.unbound_volumes_delay_binding, node)
                    to_provision.extend(unmatched)
                if to_provision:
                    unbound_ok, sufficient, pv.dynamic_provisions = self._check_volume_provisions(
                        view, to_provision, node)
        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not bound_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pv, reasons

    def _find_matching_volumes(
        self, claims: list[Obj], volumes: Mapping[str, list[Obj]], node: Obj,
    ) -> tuple[bool, list[BindingInfo], list[Obj]]:
        """findMatchingVolumes: smallest claims first, each volume chosen at most once."""
        chosen: dict[str, Obj] = {}
        bindings: list[BindingInfo] = []
        unmatched: list[Obj] = []
        found = True
        for pvc in sorted(claims, key=storage_request):
            try:
                vol = find_matching_volume(pvc, volumes.get(claim_class(pvc), ()), node, chosen, True)
            except ValueError as exc:
                raise BindError(str(exc)) from exc
            if vol is None:
                unmatched.append(pvc)
                found = False
                continue
            chosen[name_of(vol)] = vol
            bindings.append(BindingInfo(pvc=pvc, pv=vol))
        return found, bindings, unmatched

    def _check_volume_provisions(
        self, view: StorageView, claims: list[Obj], node: Obj,
    ) -> tuple[bool, bool, list[DynamicProvision]]:
        """checkVolumeProvisions: (provisionable, enough capacity, provisions)."""
        out: list[DynamicProvision] = []
        labels = (node.get("metadata") or {}).get("labels") or {}
        for pvc in claims:
            cls = claim_class(pvc)
            if not cls:
                raise BindError(f'no class for claim "{_claim_key(pvc)}"')
            try:
                sc = view.storage_class(cls)
            except NotFoundError as exc:
                raise BindError(f'failed to find storage class "{cls}"') from exc
            provisioner = sc.get("provisioner") or ""
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(sc.get("allowedTopologies"), labels):
                return False, True, []
            enough, capacity = self._has_enough_capacity(view, provisioner, pvc, sc, node)
            if not enough:
                return True, False, []
            out.append(DynamicProvision(pvc=pvc, node_capacity=capacity))
        return True, True, out

    def _has_enough_capacity(self, view: StorageView, provisioner: str, pvc: Obj, sc: Obj, node: Obj) -> tuple[bool, Obj | None]:
        """hasEnoughCapacity: CSIStorageCapacity checks, for drivers that ask for them."""
        requests = ((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}
        if "storage" not in requests:
            return True, None
        driver = view.csi_driver(provisioner)
        if driver is None or not (driver.get("spec") or {}).get("storageCapacity"):
            return True, None
        size = storage_request(pvc)
        labels = (node.get("metadata") or {}).get("labels") or {}
        for cap in view.capacities():
            if cap.get("storageClassName") != name_of(sc):
                continue
            limit = cap.get("maximumVolumeSize", cap.get("capacity"))
            if limit is None or quantity_bytes(limit) < size:
                continue
            topology = cap.get("nodeTopology")
            if topology is None:
                continue
            try:
                if not label_selector_as_selector(topology).matches(labels):
                    continue
            except SelectorError:
                continue
            return True, cap
        return False, None

    # --- Reserve / Unreserve ----------------------------------------------------------------
    def assume_pod_volumes(self, view: StorageView, pod: Obj, node_name: str, volumes: PodVolumes) -> bool:
        """AssumePodVolumes: the bindings as assumed PV/PVC versions; True when all are bound."""
        if self.are_pod_volumes_bound(view, pod):
            return True
        bindings: list[BindingInfo] = []
        for b in volumes.static_bindings:
            new_pv, dirty = _bind_volume_to_claim(b.pv, b.pvc)
            if dirty:
                self.cache.assume("PersistentVolume", name_of(new_pv), b.pv, new_pv)
            bindings.append(BindingInfo(pvc=b.pvc, pv=new_pv))
        provisions: list[DynamicProvision] = []
        for d in volumes.dynamic_provisions:
            clone = copy.deepcopy(dict(d.pvc))
            clone.setdefault("metadata", {}).setdefault("annotations", {})[ANN_SELECTED_NODE] = node_name
            self.cache.assume("PersistentVolumeClaim", _claim_key(clone), d.pvc, clone)
            provisions.append(DynamicProvision(pvc=clone))
        volumes.static_bindings = bindings
        volumes.dynamic_provisions = provisions
        return False

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        for b in volumes.static_bindings:
            self.cache.restore("PersistentVolume", name_of(b.pv))
        for d in volumes.dynamic_provisions:
            self.cache.restore("PersistentVolumeClaim", _claim_key(d.pvc))

    # --- PreBind ------------------------------------------------------------------------------
    def bind_pod_volumes(self, pod: Obj, volumes: PodVolumes) -> None:
        """bindAPIUpdate: write the PVs' claimRefs and the claims' selected-node annotation.

        The PV controller then binds the claims (static) or provisions volumes for them
        (dynamic); upstream's PreBind waits for that, which here happens right after the
        scheduler's loop. Raises BindError when a write fails (the rest is reverted).
        """
        done = 0
        items: list[tuple[str, str, Obj]] = (
            [("PersistentVolume", name_of(b.pv), b.pv) for b in volumes.static_bindings]
            + [("PersistentVolumeClaim", _claim_key(d.pvc), d.pvc) for d in volumes.dynamic_provisions])
        try:
            for kind, key, obj in items:
                if self._writer is not None:
                    self._writer(copy.deepcopy(dict(obj)))
                self.cache.restore(kind, key)
                done += 1
        except Exception as exc:  # noqa: BLE001 - any API error fails PreBind with its message
            for kind, key, _ in items[done:]:
                self.cache.restore(kind, key)
            raise BindError(str(getattr(exc, "message", exc))) from exc


def _bind_volume_to_claim(pv: Obj, pvc: Obj) -> tuple[Obj, bool]:
    """GetBindVolumeToClaim: the volume with its claimRef pointing at the claim."""
    set_bound_by_controller = not is_volume_bound_to_claim(pv, pvc)
    clone = copy.deepcopy(dict(pv))
    spec = clone.setdefault("spec", {})
    ref = spec.get("claimRef") or {}
    meta = pvc.get("metadata") or {}
    dirty = False
    if (not ref or ref.get("name") != meta.get("name") or (ref.get("namespace") or "") != (meta.get("namespace") or "")
            or (ref.get("uid") or "") != (meta.get("uid") or "")):
        spec["claimRef"] = {
            "kind": "PersistentVolumeClaim", "namespace": meta.get("namespace") or "", "name": meta.get("name") or "",
            "uid": meta.get("uid") or "", "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion") or "",
        }
        dirty = True
    if set_bound_by_controller:
        anns = clone.setdefault("metadata", {}).setdefault("annotations", {})
        if ANN_BOUND_BY_CONTROLLER not in anns:
            anns[ANN_BOUND_BY_CONTROLLER] = "yes"
            dirty = True
    return clone, dirty
