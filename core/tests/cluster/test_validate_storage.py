"""Defaulting and validation of PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes
and CSIDrivers, and the DefaultStorageClass admission: cases of upstream's validation_test.go tables
(core TestValidatePersistentVolumes, TestValidatePersistentVolumeClaim, TestValidatePVCUpdate;
storage TestValidateStorageClass, TestValidateStorageClassUpdate, TestValidateCSINode,
TestValidateCSIDriver) with the API server's messages."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, copy_tree
from kubesim.errors import Invalid

SC_API = "storage.k8s.io/v1"


def create_error(obj: dict[str, Any], cluster: Cluster | None = None) -> str:
    with pytest.raises(Invalid) as err:
        (cluster or Cluster(Clock())).create(obj)
    return err.value.message


def pv(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"capacity": {"storage": "10G"}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": "/foo"}}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "foo"},
            "spec": {k: v for k, v in base.items() if v is not None}}


def pvc(**spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10G"}}}
    base.update(spec)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "foo", "namespace": "default"},
            "spec": {k: v for k, v in base.items() if v is not None}}


def sc(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"apiVersion": SC_API, "kind": "StorageClass", "metadata": {"name": "foo"},
                            "provisioner": "kubernetes.io/foo-provisioner"}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


LOCAL_AFFINITY = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}


@pytest.mark.parametrize(("obj", "message"), [
    (pv(accessModes=None), "spec.accessModes: Required value"),
    (pv(accessModes=["fakemode"]), 'spec.accessModes: Unsupported value: "fakemode": supported values: '
     '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'),
    (pv(accessModes=["ReadWriteOncePod", "ReadWriteMany"]),
     "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"),
    (pv(capacity=None), '[spec.capacity: Required value, spec.capacity: Unsupported value: {}: supported values: '
     '"storage"]'),
    (pv(capacity={"storage": "0"}), 'spec.capacity[storage]: Invalid value: "0": must be greater than zero'),
    (pv(persistentVolumeReclaimPolicy="fakeReclaimPolicy"), 'spec.persistentVolumeReclaimPolicy: Unsupported '
     'value: "fakeReclaimPolicy": supported values: "Delete", "Recycle", "Retain"'),
    (pv(hostPath=None), "spec: Required value: must specify a volume type"),
    (pv(gcePersistentDisk={"pdName": "foo"}), "spec.gcePersistentDisk: Forbidden: may not specify more than 1 volume type"),
    (pv(hostPath=None, local={"path": "/foo"}), "spec.nodeAffinity: Required value: Local volume requires node affinity"),
    (pv(nodeAffinity={}), "spec.nodeAffinity.required: Required value: must specify required node constraints"),
    (pv(nodeAffinity={"required": {"nodeSelectorTerms": []}}),
     "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term"),
    (pv(hostPath=None, csi={"driver": "", "volumeHandle": ""}),
     "[spec.csi.driver: Required value, spec.csi.volumeHandle: Required value]"),
    (pv(storageClassName="-invalid-"), "spec.storageClassName: Invalid value: \"-invalid-\": a lowercase RFC 1123 "
     "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
     "alphanumeric character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    (pv(volumeMode="Unknown"), 'spec.volumeMode: Unsupported value: "Unknown": supported values: "Block", "Filesystem"'),
    (pvc(accessModes=[]), "spec.accessModes: Required value: at least 1 access mode is required"),
    (pvc(resources={}), "spec.resources[storage]: Required value"),
    (pvc(resources={"requests": {"storage": "0"}}), 'spec.resources[storage]: Invalid value: "0": must be greater '
     "than zero"),
    (pvc(selector={"matchExpressions": [{"key": "k", "operator": "Wrong"}]}),
     'spec.selector.matchExpressions[0].operator: Invalid value: "Wrong": not a valid selector operator'),
    (pvc(dataSource={"kind": "Secret", "name": "s"}),
     'spec.dataSource: Invalid value: "Secret": must be \'PersistentVolumeClaim\' when referencing the default apiGroup'),
    (sc(provisioner=""), "provisioner: Required value"),
    (sc(provisioner="kubernetes.io/-bad"), None),
    (sc(reclaimPolicy="Recycle"), 'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"'),
    (sc(volumeBindingMode="Sometimes"), 'volumeBindingMode: Unsupported value: "Sometimes": supported values: '
     '"Immediate", "WaitForFirstConsumer"'),
    (sc(allowedTopologies=[{"matchLabelExpressions": []}]),
     "allowedTopologies[0].matchLabelExpressions: Required value: must contain at least one key"),
    (sc(allowedTopologies=[{"matchLabelExpressions": [{"key": "zone", "values": []}]}]),
     "allowedTopologies[0].matchLabelExpressions[0].values: Required value: must specify as least one value"),
    (sc(allowedTopologies=[{"matchLabelExpressions": [{"key": "zone", "values": ["a", "a"]}]}]),
     'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"'),
    ({"apiVersion": SC_API, "kind": "CSINode", "metadata": {"name": "n1"},
      "spec": {"drivers": [{"name": "d.example.com", "nodeID": "n1", "allocatable": {"count": -1}},
                           {"name": "d.example.com", "nodeID": ""}]}},
     '[spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0, '
     'spec.drivers[1].name: Duplicate value: "d.example.com", spec.drivers[1].nodeID: Required value]'),
    ({"apiVersion": SC_API, "kind": "CSIDriver", "metadata": {"name": "d.example.com"},
      "spec": {"volumeLifecycleModes": ["Sometimes"], "fsGroupPolicy": "All"}},
     '[spec.volumeLifecycleModes: Unsupported value: "Sometimes": supported values: "Ephemeral", "Persistent", '
     'spec.fsGroupPolicy: Unsupported value: "All": supported values: "File", "None", "ReadWriteOnceWithFSType"]'),
])
def test_invalid_objects(obj: dict[str, Any], message: str | None) -> None:
    got = create_error(obj)
    if message is None:  # only that the field is named
        assert "provisioner: Invalid value" in got
    else:
        assert got.endswith(message), got


def test_valid_objects_and_defaults() -> None:
    c = Cluster(Clock())
    stored = c.create(pv())
    assert stored["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert stored["spec"]["volumeMode"] == "Filesystem"
    assert stored["status"]["phase"] == "Pending"
    claim = c.create(pvc())
    assert claim["spec"]["volumeMode"] == "Filesystem" and claim["status"] == {"phase": "Pending"}
    klass = c.create(sc())
    assert (klass["reclaimPolicy"], klass["volumeBindingMode"]) == ("Delete", "Immediate")
    driver = c.create({"apiVersion": SC_API, "kind": "CSIDriver", "metadata": {"name": "d.example.com"}})
    assert driver["spec"] == {"attachRequired": True, "podInfoOnMount": False, "requiresRepublish": False,
                              "storageCapacity": False, "fsGroupPolicy": "ReadWriteOnceWithFSType",
                              "seLinuxMount": False, "volumeLifecycleModes": ["Persistent"]}
    c.create(pv(hostPath=None, local={"path": "/mnt"}, nodeAffinity=LOCAL_AFFINITY) | {"metadata": {"name": "local"}})


def _update_error(c: Cluster, obj: dict[str, Any]) -> str:
    with pytest.raises(Invalid) as err:
        c.update(obj)
    return err.value.message


def test_claim_updates() -> None:
    c = Cluster(Clock())
    claim = c.create(pvc(storageClassName="fast"))
    bound = copy_tree(claim)
    bound["spec"]["volumeName"] = "pv-1"  # volumeName may be set once
    bound = c.update(bound)
    again = copy_tree(bound)
    again["spec"]["volumeName"] = "pv-2"
    assert "spec: Forbidden: spec is immutable after creation" in _update_error(c, again)
    bigger = copy_tree(bound)
    bigger["spec"]["resources"]["requests"]["storage"] = "20G"
    bigger = c.update(bigger)
    smaller = copy_tree(bigger)
    smaller["spec"]["resources"]["requests"]["storage"] = "5G"
    assert _update_error(c, smaller).endswith(
        "spec.resources.requests.storage: Forbidden: field can not be less than previous value")
    modes = copy_tree(bigger)
    modes["spec"]["accessModes"] = ["ReadOnlyMany"]
    assert "spec is immutable after creation" in _update_error(c, modes)


def test_claim_class_may_be_set_from_nil() -> None:
    c = Cluster(Clock())
    claim = c.create(pvc())
    claim["spec"]["storageClassName"] = "late"
    assert c.update(claim)["spec"]["storageClassName"] == "late"
    claim = copy_tree(c.get("v1", "PersistentVolumeClaim", "foo", "default"))
    claim["spec"]["storageClassName"] = "other"
    assert "spec is immutable after creation" in _update_error(c, claim)


def test_volume_and_class_updates() -> None:
    c = Cluster(Clock())
    vol = c.create(pv())
    vol["spec"]["hostPath"] = {"path": "/bar"}
    assert "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable" in _update_error(c, vol)
    vol = copy_tree(c.get("v1", "PersistentVolume", "foo"))
    vol["spec"]["claimRef"] = {"namespace": "default", "name": "foo"}
    c.update(vol)  # binding is an ordinary update
    klass = c.create(sc(parameters={"type": "ssd"}))
    for field, value, message in (
        ("parameters", {"type": "hdd"}, "parameters: Forbidden: updates to parameters are forbidden."),
        ("provisioner", "other.example.com", "provisioner: Forbidden: updates to provisioner are forbidden."),
        ("reclaimPolicy", "Retain", "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."),
        ("volumeBindingMode", "WaitForFirstConsumer",
         'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable'),
    ):
        changed = copy_tree(klass)
        changed[field] = value
        assert _update_error(c, changed).endswith(message)


def test_default_storage_class_admission() -> None:
    c = Cluster(Clock())
    c.create(sc(metadata={"name": "standard",
                          "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}}))
    assert c.create(pvc())["spec"]["storageClassName"] == "standard"
    named = pvc(storageClassName="")
    named["metadata"]["name"] = "no-class"
    assert c.create(named)["spec"]["storageClassName"] == ""  # "" asks for no class
    annotated = pvc()
    annotated["metadata"].update(name="beta", annotations={"volume.beta.kubernetes.io/storage-class": "x"})
    assert "storageClassName" not in c.create(annotated)["spec"]
