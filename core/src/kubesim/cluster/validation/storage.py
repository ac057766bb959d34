"""PersistentVolumes, PersistentVolumeClaims (core/v1) and StorageClasses, CSINodes and
CSIDrivers (storage.k8s.io/v1), as the API server defaults and validates them.

Ports k8s.io/kubernetes pkg/apis/core/validation/validation.go (ValidatePersistentVolumeSpec,
ValidatePersistentVolumeUpdate, ValidatePersistentVolumeClaimSpec,
ValidatePersistentVolumeClaimUpdate, ValidateTopologySelectorTerm),
pkg/apis/storage/validation/validation.go (ValidateStorageClass[Update], ValidateCSINode,
ValidateCSIDriver[Update]) and the v1 defaults of both groups. The VolumeAttributesClass
gate is off in v1.34, so volumeAttributesClassName is not checked on create.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.k8s.quantity import NANO, QuantityError, parse
from kubesim.k8s.validation import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    required,
)

from .affinity import validate_label_selector_field, validate_node_selector
from .values import NEGATIVE, as_int, as_list, as_map, immutable, not_supported

__all__ = [
    "default_persistent_volume",
    "default_persistent_volume_claim",
    "default_storage_class",
    "default_csi_driver",
    "validate_persistent_volume",
    "validate_persistent_volume_update",
    "validate_persistent_volume_claim",
    "validate_persistent_volume_claim_update",
    "validate_storage_class",
    "validate_storage_class_update",
    "validate_csi_node",
    "validate_csi_driver",
    "validate_csi_driver_update",
]

ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
VOLUME_MODES = ("Block", "Filesystem")
PV_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
SC_RECLAIM_POLICIES = ("Delete", "Retain")
BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
# the PersistentVolumeSource members: exactly one per volume
PV_SOURCES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte",
    "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk",
    "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi",
)
LIFECYCLE_MODES = ("Ephemeral", "Persistent")
FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")
_MAX_PARAMETERS_LEN = 256 * (1 << 10)
_MAX_CSI_DRIVER_NAME = 63
_MAX_CSI_NODE_ID = 192


def _spec(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


# --- defaults ---------------------------------------------------------------------------------

def default_persistent_volume(pv: dict[str, Any]) -> None:
    """SetDefaults_PersistentVolume: reclaim policy Retain, volume mode Filesystem."""
    spec = pv.get("spec")
    if isinstance(spec, dict):
        spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        spec.setdefault("volumeMode", "Filesystem")


def default_persistent_volume_claim(pvc: dict[str, Any]) -> None:
    """SetDefaults_PersistentVolumeClaim(Spec): volume mode Filesystem."""
    spec = pvc.get("spec")
    if isinstance(spec, dict):
        spec.setdefault("volumeMode", "Filesystem")


def default_storage_class(sc: dict[str, Any]) -> None:
    """SetDefaults_StorageClass: reclaim policy Delete, binding mode Immediate."""
    if sc.get("reclaimPolicy") is None:
        sc["reclaimPolicy"] = "Delete"
    if sc.get("volumeBindingMode") is None:
        sc["volumeBindingMode"] = "Immediate"


def default_csi_driver(driver: dict[str, Any]) -> None:
    """SetDefaults_CSIDriver."""
    spec = driver.get("spec")
    if not isinstance(spec, dict):
        spec = driver["spec"] = {}
    for field, value in (("attachRequired", True), ("podInfoOnMount", False), ("requiresRepublish", False),
                         ("storageCapacity", False), ("fsGroupPolicy", "ReadWriteOnceWithFSType"),
                         ("seLinuxMount", False)):
        if spec.get(field) is None:
            spec[field] = value
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]


# --- shared checks ------------------------------------------------------------------------------

def _access_modes(modes: Any, path: str, detail: str) -> list[FieldError]:
    modes = as_list(modes)
    errs: list[FieldError] = []
    if not modes:
        errs.append(required(path, detail))
    rwop = other = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(not_supported(path, mode, ACCESS_MODES))
        elif mode == "ReadWriteOncePod":
            rwop = True
        else:
            other = True
    if rwop and other:
        errs.append(forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _positive_quantity(q: Any, path: str) -> list[FieldError]:
    """ValidatePositiveQuantityValue (with the quantity parsed first)."""
    try:
        nano = parse(q)[0]
    except QuantityError as err:
        return [invalid(path, q, f"must be a valid resource quantity: {err}")]
    if nano <= 0:
        return [invalid(path, q, "must be greater than zero")]
    return []


def _class_name(name: Any, path: str) -> list[FieldError]:
    """ValidateClassName: a DNS subdomain."""
    if not isinstance(name, str) or not name:
        return []
    return [invalid(path, name, m) for m in is_dns1123_subdomain(name)]


def _csi_driver_name(name: Any, path: str) -> list[FieldError]:
    """ValidateCSIDriverName."""
    if not isinstance(name, str) or not name:
        return [required(path, "")]
    errs: list[FieldError] = []
    if len(name) > _MAX_CSI_DRIVER_NAME:
        errs.append(FieldError("Too long", path, detail=f"may not be more than {_MAX_CSI_DRIVER_NAME} bytes"))
    errs.extend(invalid(path, name, m) for m in is_dns1123_subdomain(name.lower()))
    return errs


# --- PersistentVolume ----------------------------------------------------------------------------

def validate_persistent_volume(pv: Mapping[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeSpec (not inline)."""
    spec = _spec(pv)
    errs = _access_modes(spec.get("accessModes"), "spec.accessModes", "")
    capacity = as_map(spec.get("capacity"))
    if not capacity:
        errs.append(required("spec.capacity", ""))
    if "storage" not in capacity or len(capacity) > 1:
        errs.append(not_supported("spec.capacity", dict(capacity), ["storage"]))
    for name in sorted(capacity, key=str):
        errs.extend(_positive_quantity(capacity[name], f"spec.capacity[{name}]"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in PV_RECLAIM_POLICIES:
        errs.append(not_supported("spec.persistentVolumeReclaimPolicy", policy, PV_RECLAIM_POLICIES))
    affinity_given = False
    if spec.get("nodeAffinity") is not None:
        req = as_map(spec["nodeAffinity"]).get("required")
        if req is None:
            errs.append(required("spec.nodeAffinity.required", "must specify required node constraints"))
        else:
            affinity_given = True
            errs.extend(validate_node_selector(req, "spec.nodeAffinity.required"))
    sources = [s for s in PV_SOURCES if spec.get(s) is not None]
    for extra in sources[1:]:
        errs.append(forbidden(f"spec.{extra}", "may not specify more than 1 volume type"))
    if not sources:
        errs.append(required("spec", "must specify a volume type"))
    elif sources[0] == "local":
        if not as_map(spec["local"]).get("path"):
            errs.append(required("spec.local.path", ""))
        if not affinity_given:
            errs.append(required("spec.nodeAffinity", "Local volume requires node affinity"))
    elif sources[0] == "csi":
        csi = as_map(spec["csi"])
        errs.extend(_csi_driver_name(csi.get("driver"), "spec.csi.driver"))
        if not csi.get("volumeHandle"):
            errs.append(required("spec.csi.volumeHandle", ""))
    elif sources[0] == "hostPath" and not as_map(spec["hostPath"]).get("path"):
        errs.append(required("spec.hostPath.path", ""))
    elif sources[0] == "nfs":
        nfs = as_map(spec["nfs"])
        if not nfs.get("server"):
            errs.append(required("spec.nfs.server", ""))
        if not nfs.get("path"):
            errs.append(required("spec.nfs.path", ""))
    errs.extend(_class_name(spec.get("storageClassName"), "spec.storageClassName"))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    return errs


def validate_persistent_volume_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeUpdate: the volume source and mode are immutable, node affinity once set."""
    errs = validate_persistent_volume(new)
    ns, os_ = _spec(new), _spec(old)
    if {s: ns.get(s) for s in PV_SOURCES} != {s: os_.get(s) for s in PV_SOURCES}:
        errs.append(forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"))
    errs.extend(immutable(ns.get("volumeMode"), os_.get("volumeMode"), "volumeMode"))
    if os_.get("nodeAffinity") is not None:
        errs.extend(immutable(ns.get("nodeAffinity"), os_.get("nodeAffinity"), "nodeAffinity"))
    return errs


# --- PersistentVolumeClaim ------------------------------------------------------------------------

def validate_persistent_volume_claim(pvc: Mapping[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeClaimSpec."""
    spec = _spec(pvc)
    errs = _access_modes(spec.get("accessModes"), "spec.accessModes", "at least 1 access mode is required")
    if spec.get("selector") is not None:
        errs.extend(validate_label_selector_field(spec["selector"], "spec.selector"))
    requests = as_map(as_map(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        errs.append(required("spec.resources[storage]", ""))
    else:
        errs.extend(_positive_quantity(requests["storage"], "spec.resources[storage]"))
    errs.extend(_class_name(spec.get("storageClassName"), "spec.storageClassName"))
    mode = spec.get("volumeMode")
    if mode is not None and mode not in VOLUME_MODES:
        errs.append(not_supported("spec.volumeMode", mode, VOLUME_MODES))
    for field in ("dataSource", "dataSourceRef"):
        ref = spec.get(field)
        if ref is None:
            continue
        ref = as_map(ref)
        for key in ("name", "kind"):
            if not ref.get(key):
                errs.append(required(f"spec.{field}.{key}", ""))
        if not ref.get("apiGroup") and ref.get("kind") != "PersistentVolumeClaim":
            errs.append(invalid(f"spec.{field}", ref.get("kind"),
                                "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    return errs


def _storage_bytes(spec: Mapping[str, Any]) -> int | None:
    q = as_map(as_map(spec.get("resources")).get("requests")).get("storage")
    try:
        return None if q is None else parse(q)[0] // NANO
    except QuantityError:
        return None


def validate_persistent_volume_claim_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeClaimUpdate: the spec is immutable but for volumeName (set once),
    a storage class set from nil, and the storage request (which may only grow)."""
    errs = validate_persistent_volume_claim(new)
    ns, os_ = dict(_spec(new)), dict(_spec(old))
    if not os_.get("volumeName"):  # volumeName may be set once (the PV controller binds)
        os_.pop("volumeName", None)
        if "volumeName" in ns:
            os_["volumeName"] = ns["volumeName"]
    if os_.get("storageClassName") is None and ns.get("storageClassName") is not None:
        os_["storageClassName"] = ns["storageClassName"]  # validateStorageClassUpgradeFromNil
    compare_new, compare_old = dict(ns), dict(os_)
    for spec in (compare_new, compare_old):
        resources = dict(as_map(spec.get("resources")))
        requests = dict(as_map(resources.get("requests")))
        requests.pop("storage", None)
        resources["requests"] = requests
        spec["resources"] = resources
        spec.pop("volumeAttributesClassName", None)
    if compare_new != compare_old:
        errs.append(forbidden("spec", "spec is immutable after creation except resources.requests and "
                                      "volumeAttributesClassName for bound claims"))
    new_size, old_size = _storage_bytes(ns), _storage_bytes(os_)
    if new_size is not None and old_size is not None and new_size < old_size:
        errs.append(forbidden("spec.resources.requests.storage", "field can not be less than previous value"))
    errs.extend(immutable(ns.get("volumeMode"), os_.get("volumeMode"), "volumeMode"))
    return errs


# --- StorageClass -----------------------------------------------------------------------------------

def _topology_term(term: Any, path: str) -> list[FieldError]:
    """ValidateTopologySelectorTerm: label keys with at least one valid value each, no duplicates."""
    errs: list[FieldError] = []
    exprs = as_list(as_map(term).get("matchLabelExpressions"))
    if not exprs:
        errs.append(required(f"{path}.matchLabelExpressions", "must contain at least one key"))
    keys: set[str] = set()
    for j, expr in enumerate(exprs):
        p = f"{path}.matchLabelExpressions[{j}]"
        expr = as_map(expr)
        key = str(expr.get("key") or "")
        errs.extend(invalid(f"{p}.key", key, m) for m in is_qualified_name(key))
        values = as_list(expr.get("values"))
        if not values:
            errs.append(required(f"{p}.values", "must specify as least one value"))
        seen: set[str] = set()
        for k, v in enumerate(values):
            errs.extend(invalid(f"{p}.values[{k}]", v, m) for m in is_label_value(str(v)))
            if v in seen:
                errs.append(duplicate(f"{p}.values[{k}]", v))
            seen.add(str(v))
        if key in keys:
            errs.append(duplicate(f"{p}.key", key))
        keys.add(key)
    return errs


def validate_storage_class(sc: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStorageClass: provisioner, parameters, reclaim policy, binding mode, allowed topologies."""
    errs: list[FieldError] = []
    provisioner = sc.get("provisioner")
    if not isinstance(provisioner, str) or not provisioner:
        errs.append(required("provisioner", ""))
    else:
        errs.extend(invalid("provisioner", provisioner, m) for m in is_qualified_name(provisioner.lower()))
    params = as_map(sc.get("parameters"))
    if sum(len(str(k)) + len(str(v)) for k, v in params.items()) > _MAX_PARAMETERS_LEN:
        errs.append(FieldError("Too long", "parameters", detail=f"may not be more than {_MAX_PARAMETERS_LEN} bytes"))
    for k in params:
        if not k:
            errs.append(invalid("parameters", k, "field can not be empty."))
    policy = sc.get("reclaimPolicy")
    if policy is not None and policy not in SC_RECLAIM_POLICIES:
        errs.append(not_supported("reclaimPolicy", policy, SC_RECLAIM_POLICIES))
    mode = sc.get("volumeBindingMode")
    if mode is None:
        errs.append(required("volumeBindingMode", ""))
    elif mode not in BINDING_MODES:
        errs.append(not_supported("volumeBindingMode", mode, BINDING_MODES))
    terms = as_list(sc.get("allowedTopologies"))
    seen: list[Any] = []
    for i, term in enumerate(terms):
        errs.extend(_topology_term(term, f"allowedTopologies[{i}]"))
        if term in seen:
            errs.append(duplicate(f"allowedTopologies[{i}]", term))
        seen.append(term)
    return errs


def validate_storage_class_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidateStorageClassUpdate: parameters, provisioner, reclaim policy and binding mode are fixed."""
    errs = validate_storage_class(new)
    if (new.get("parameters") or {}) != (old.get("parameters") or {}):
        errs.append(forbidden("parameters", "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errs.append(forbidden("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    errs.extend(immutable(new.get("volumeBindingMode"), old.get("volumeBindingMode"), "volumeBindingMode"))
    return errs


# --- CSINode and CSIDriver ---------------------------------------------------------------------------

def validate_csi_node(node: Mapping[str, Any]) -> list[FieldError]:
    """ValidateCSINode: each driver's name, nodeID, topology keys and allocatable count; unique names."""
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, driver in enumerate(as_list(_spec(node).get("drivers"))):
        p = f"spec.drivers[{i}]"
        driver = as_map(driver)
        name = driver.get("name")
        errs.extend(_csi_driver_name(name, f"{p}.name"))
        if isinstance(name, str) and name:
            if name in names:
                errs.append(duplicate(f"{p}.name", name))
            names.add(name)
        node_id = driver.get("nodeID")
        if not node_id:
            errs.append(required(f"{p}.nodeID", ""))
        elif len(str(node_id)) > _MAX_CSI_NODE_ID:
            errs.append(FieldError("Too long", f"{p}.nodeID", detail=f"may not be more than {_MAX_CSI_NODE_ID} bytes"))
        keys: set[str] = set()
        for j, key in enumerate(as_list(driver.get("topologyKeys"))):
            errs.extend(invalid(f"{p}.topologyKeys[{j}]", key, m) for m in is_qualified_name(str(key)))
            if key in keys:
                errs.append(duplicate(f"{p}.topologyKeys", key))
            keys.add(str(key))
        count = as_map(driver.get("allocatable")).get("count")
        n = as_int(count)
        if count is not None and (n is None or n < 0):
            errs.append(invalid(f"{p}.allocatable.count", count, NEGATIVE))
    return errs


def validate_csi_driver(driver: Mapping[str, Any]) -> list[FieldError]:
    """ValidateCSIDriver: the name, the required booleans, lifecycle modes and fsGroupPolicy."""
    errs = _csi_driver_name((driver.get("metadata") or {}).get("name"), "metadata.name")
    spec = _spec(driver)
    for field in ("attachRequired", "podInfoOnMount", "requiresRepublish", "storageCapacity", "seLinuxMount"):
        if spec.get(field) is None:
            errs.append(required(f"spec.{field}", ""))
    for mode in as_list(spec.get("volumeLifecycleModes")):
        if mode not in LIFECYCLE_MODES:
            errs.append(not_supported("spec.volumeLifecycleModes", mode, LIFECYCLE_MODES))
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in FS_GROUP_POLICIES:
        errs.append(not_supported("spec.fsGroupPolicy", policy, FS_GROUP_POLICIES))
    return errs


def validate_csi_driver_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """ValidateCSIDriverUpdate: attachRequired, fsGroupPolicy and the lifecycle modes are immutable."""
    errs = validate_csi_driver(new)
    ns, os_ = _spec(new), _spec(old)
    errs.extend(immutable(ns.get("attachRequired"), os_.get("attachRequired"), "spec.attachRequired"))
    errs.extend(immutable(ns.get("fsGroupPolicy"), os_.get("fsGroupPolicy"), "spec.fsGroupPolicy"))
    errs.extend(immutable(ns.get("volumeLifecycleModes"), os_.get("volumeLifecycleModes"), "spec.volumeLifecycleModes"))
    return errs
