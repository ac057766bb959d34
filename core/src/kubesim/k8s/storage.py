"""Helpers over PersistentVolumes, claims and StorageClasses that the scheduler's volume
plugins and the PV controller share (component-helpers/storage in Kubernetes).

Claim and volume classes (with the beta annotation), IsVolumeBoundToClaim,
FindMatchingVolume, CheckNodeAffinity, MatchTopologySelectorTerms, storage sizes in bytes,
and the claim names of a pod's volumes (generic ephemeral volumes included).
"""

# upstream: k8s.io/component-helpers/storage/volume/helpers.go, pv_helpers.go,
# k8s.io/component-helpers/storage/ephemeral/ephemeral.go,
# k8s.io/component-helpers/scheduling/corev1/nodeaffinity (MatchNodeSelectorTerms),
# pkg/apis/core/v1/helper/helpers.go (MatchTopologySelectorTerms)

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesim.k8s.quantity import QuantityError, parse_nano
from kubesim.k8s.selectors import SelectorError, label_selector_as_selector, node_selector_requirements

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_SELECTED_NODE",
    "ANN_BETA_STORAGE_CLASS",
    "ANN_STORAGE_PROVISIONER",
    "ANN_BETA_STORAGE_PROVISIONER",
    "ANN_DYNAMICALLY_PROVISIONED",
    "NOT_SUPPORTED_PROVISIONER",
    "Obj",
    "claim_class",
    "volume_class",
    "claim_names",
    "pod_claim_refs",
    "ephemeral_claim_name",
    "volume_is_for_pod",
    "match_node_selector_terms",
    "check_node_affinity",
    "match_topology_selector_terms",
    "quantity_bytes",
    "storage_request",
    "storage_capacity",
    "is_volume_bound_to_claim",
    "find_matching_volume",
    "name_of",
    "namespace_of",
    "annotations_of",
]

Obj = Mapping[str, Any]

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


def _spec(obj: Obj | None) -> Mapping[str, Any]:
    return (obj or {}).get("spec") or {}


def name_of(obj: Obj | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("name") or "")


def namespace_of(obj: Obj | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("namespace") or "")


def annotations_of(obj: Obj | None) -> Mapping[str, str]:
    return ((obj or {}).get("metadata") or {}).get("annotations") or {}


def match_node_selector_terms(terms: Sequence[Obj], labels: Mapping[str, str], name: str = "") -> bool:
    """MatchNodeSelectorTerms: terms ORed; a term without requirements or with invalid ones never matches."""
    for term in terms or ():
        exprs, fields = term.get("matchExpressions") or (), term.get("matchFields") or ()
        if not exprs and not fields:
            continue
        try:
            reqs = node_selector_requirements(exprs)
        except SelectorError:
            continue
        if not all(r.matches(labels) for r in reqs):
            continue
        ok = True
        for f in fields:
            values, op = list(f.get("values") or ()), f.get("operator")
            if op not in ("In", "NotIn") or len(values) != 1:
                ok = False
                break
            got = name if f.get("key") == "metadata.name" else ""
            if (got == values[0]) != (op == "In"):
                ok = False
                break
        if ok:
            return True
    return False


def claim_class(claim: Obj) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    ann = annotations_of(claim)
    if ANN_BETA_STORAGE_CLASS in ann:
        return str(ann[ANN_BETA_STORAGE_CLASS])
    return str(_spec(claim).get("storageClassName") or "")


def volume_class(pv: Obj) -> str:
    """GetPersistentVolumeClass."""
    ann = annotations_of(pv)
    if ANN_BETA_STORAGE_CLASS in ann:
        return str(ann[ANN_BETA_STORAGE_CLASS])
    return str(_spec(pv).get("storageClassName") or "")


def ephemeral_claim_name(pod: Obj, volume: Obj) -> str:
    """ephemeral.VolumeClaimName: <pod name>-<volume name>."""
    return f"{name_of(pod)}-{volume.get('name', '')}"


def pod_claim_refs(pod: Obj) -> list[tuple[str, bool, Obj]]:
    """(claim name, is ephemeral, volume) of each PVC-backed volume of the pod, in order."""
    out = []
    for vol in _spec(pod).get("volumes") or ():
        if not isinstance(vol, Mapping):
            continue
        if vol.get("persistentVolumeClaim") is not None:
            out.append((str((vol.get("persistentVolumeClaim") or {}).get("claimName") or ""), False, vol))
        elif vol.get("ephemeral") is not None:
            out.append((ephemeral_claim_name(pod, vol), True, vol))
    return out


def claim_names(pod: Obj) -> list[str]:
    """The claims of the pod's persistentVolumeClaim volumes (not ephemeral ones)."""
    return [name for name, eph, _ in pod_claim_refs(pod) if not eph]


def volume_is_for_pod(pod: Obj, pvc: Obj) -> str | None:
    """ephemeral.VolumeIsForPod: an error message when the claim is not owned by the pod."""
    uid = ((pod.get("metadata") or {}).get("uid")) or ""
    for ref in (pvc.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") and ref.get("uid") == uid:
            return None
    return (f"PVC {namespace_of(pvc)}/{name_of(pvc)} was not created for pod "
            f"{namespace_of(pod)}/{name_of(pod)} (pod is not owner)")


def check_node_affinity(pv: Obj, node_labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity: whether the node's labels satisfy the volume's required node affinity."""
    required = (_spec(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return True
    return match_node_selector_terms(required.get("nodeSelectorTerms") or (), node_labels)


def match_topology_selector_terms(terms: Sequence[Obj] | None, labels: Mapping[str, str]) -> bool:
    """MatchTopologySelectorTerms: no terms match everything; terms are ORed, expressions ANDed."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or ()
        if exprs and all(labels.get(e.get("key", "")) in (e.get("values") or ()) for e in exprs):
            return True
    return False


def quantity_bytes(q: Any) -> int:
    """Quantity.Value in bytes (0 for a missing or invalid quantity)."""
    if q is None:
        return 0
    try:
        nano = parse_nano(q)
    except (QuantityError, ValueError, TypeError):
        return 0
    return -(-nano // 1_000_000_000) if nano >= 0 else nano // 1_000_000_000


def storage_request(claim: Obj) -> int:
    """The claim's spec.resources.requests.storage in bytes."""
    return quantity_bytes(((_spec(claim).get("resources") or {}).get("requests") or {}).get("storage"))


def storage_capacity(pv: Obj) -> int:
    """The volume's spec.capacity.storage in bytes."""
    return quantity_bytes((_spec(pv).get("capacity") or {}).get("storage"))


def is_volume_bound_to_claim(pv: Obj, claim: Obj) -> bool:
    """IsVolumeBoundToClaim: the volume's claimRef names the claim (and its uid, when set)."""
    ref = _spec(pv).get("claimRef")
    if not ref:
        return False
    if ref.get("name") != name_of(claim) or (ref.get("namespace") or "") != namespace_of(claim):
        return False
    uid = ref.get("uid") or ""
    return not uid or uid == ((claim.get("metadata") or {}).get("uid") or "")


def _volume_mode(spec: Mapping[str, Any]) -> str:
    return str(spec.get("volumeMode") or "Filesystem")


def _access_modes_ok(claim: Obj, pv: Obj) -> bool:
    have = set(_spec(pv).get("accessModes") or ())
    return all(m in have for m in _spec(claim).get("accessModes") or ())


def find_matching_volume(
    claim: Obj, volumes: Iterable[Obj], node: Obj | None, excluded: Mapping[str, Obj], delay_binding: bool,
) -> Obj | None:
    """FindMatchingVolume: the volume pre-bound to the claim, else the smallest available one
    that fits its size, mode, class, selector, access modes and the node's labels.

    Raises ValueError for a claim whose selector cannot be parsed or that names a
    VolumeAttributesClass (the VolumeAttributesClass gate is off in v1.34).
    """
    spec = _spec(claim)
    if spec.get("volumeAttributesClassName"):
        raise ValueError(
            f"unsupported volumeAttributesClassName is set on claim {namespace_of(claim)}/{name_of(claim)} "
            "when the feature-gate VolumeAttributesClass is disabled")
    requested = storage_request(claim)
    requested_class = claim_class(claim)
    selector = None
    if spec.get("selector") is not None:
        try:
            selector = label_selector_as_selector(spec["selector"])
        except SelectorError as exc:
            raise ValueError(f"error creating internal label selector for claim: "
                             f"{namespace_of(claim)}/{name_of(claim)}: {exc}") from exc
    node_labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    smallest: Obj | None = None
    smallest_qty = 0
    for pv in volumes:
        vspec = _spec(pv)
        if name_of(pv) in excluded:
            continue
        if vspec.get("claimRef") and not is_volume_bound_to_claim(pv, claim):
            continue
        qty = storage_capacity(pv)
        if qty < requested:
            continue
        if _volume_mode(spec) != _volume_mode(vspec):
            continue
        if vspec.get("volumeAttributesClassName"):
            continue
        if (pv.get("metadata") or {}).get("deletionTimestamp"):
            continue
        affinity_ok = node is None or check_node_affinity(pv, node_labels)
        if is_volume_bound_to_claim(pv, claim):
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if ((pv.get("status") or {}).get("phase")) != "Available":
            continue
        if selector is not None and not selector.matches(((pv.get("metadata") or {}).get("labels")) or {}):
            continue
        if volume_class(pv) != requested_class:
            continue
        if not affinity_ok:
            continue
        if node is not None and not _access_modes_ok(claim, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest
