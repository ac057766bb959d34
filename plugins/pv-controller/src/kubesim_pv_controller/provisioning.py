"""The PersistentVolume a CSI external-provisioner would create for a claim.

Named pvc-<claim uid>, sized as the claim asks, with the class's reclaim policy and mount
options, a CSI source of the class's provisioner, and node affinity for the topology it
was provisioned in: the selected node's values of the driver's CSINode topologyKeys (or,
without them, of the keys of the class's allowedTopologies); a claim provisioned without
a selected node (Immediate binding) gets the class's allowedTopologies.
"""

# upstream: kubernetes-csi/external-provisioner pkg/controller/controller.go (Provision,
# GenerateAccessibilityRequirements), pkg/controller/volume/persistentvolume/pv_controller.go
# (provisionClaimOperationExternal)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesim.k8s.storage import ANN_DYNAMICALLY_PROVISIONED, Obj, claim_class, name_of, namespace_of

__all__ = ["provisioned_volume", "volume_name_for"]


def volume_name_for(claim: Obj) -> str:
    """The provisioner's volume name: pvc-<claim uid>."""
    return f"pvc-{(claim.get('metadata') or {}).get('uid') or ''}"


def _topology_keys(driver: str, csi_node: Obj | None) -> list[str]:
    for d in ((csi_node or {}).get("spec") or {}).get("drivers") or ():
        if d.get("name") == driver:
            return [str(k) for k in d.get("topologyKeys") or ()]
    return []


def _node_affinity(sc: Obj, driver: str, node: Obj | None, csi_node: Obj | None) -> dict[str, Any] | None:
    allowed: Sequence[Mapping[str, Any]] = sc.get("allowedTopologies") or ()
    if node is None:
        if not allowed:
            return None
        terms = [{"matchExpressions": [{"key": e.get("key"), "operator": "In", "values": list(e.get("values") or ())}
                                       for e in t.get("matchLabelExpressions") or ()]} for t in allowed]
        return {"required": {"nodeSelectorTerms": terms}}
    keys = _topology_keys(driver, csi_node)
    if not keys:
        keys = sorted({str(e.get("key")) for t in allowed for e in t.get("matchLabelExpressions") or ()})
    labels = (node.get("metadata") or {}).get("labels") or {}
    exprs = [{"key": k, "operator": "In", "values": [labels[k]]} for k in keys if k in labels]
    if not exprs:
        return None
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}


def provisioned_volume(claim: Obj, sc: Obj, node: Obj | None, csi_node: Obj | None) -> dict[str, Any]:
    """The PV provisioned for `claim` of class `sc` on `node` (None: no selected node), pre-bound to the claim."""
    provisioner = str(sc.get("provisioner") or "")
    spec_in = claim.get("spec") or {}
    meta = claim.get("metadata") or {}
    name = volume_name_for(claim)
    spec: dict[str, Any] = {
        "capacity": {"storage": ((spec_in.get("resources") or {}).get("requests") or {}).get("storage", "0")},
        "accessModes": list(spec_in.get("accessModes") or ()),
        "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": namespace_of(claim),
                     "name": name_of(claim), "uid": meta.get("uid") or "",
                     "resourceVersion": meta.get("resourceVersion") or ""},
        "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
        "storageClassName": claim_class(claim),
        "volumeMode": spec_in.get("volumeMode") or "Filesystem",
        "csi": {"driver": provisioner, "volumeHandle": name},
    }
    if sc.get("parameters"):
        spec["csi"]["volumeAttributes"] = dict(sc["parameters"])
    if sc.get("mountOptions"):
        spec["mountOptions"] = list(sc["mountOptions"])
    affinity = _node_affinity(sc, provisioner, node, csi_node)
    if affinity is not None:
        spec["nodeAffinity"] = affinity
    return {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {ANN_DYNAMICALLY_PROVISIONED: provisioner}},
        "spec": spec,
    }
