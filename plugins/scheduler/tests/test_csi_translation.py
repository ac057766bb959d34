"""CSI migration translation: driver names and volume handles of in-tree sources, and which
plugins a node migrates (upstream's csi-translation-lib tests plus cases of our own)."""

# upstream: staging/src/k8s.io/csi-translation-lib/plugins/aws_ebs_test.go, gce_pd_test.go (v1.34)

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node
from volume_builders import ObjectStore, make_csinode, make_pv, make_pvc, make_sc, pvc_pod, volume_framework

from kubesim_scheduler.framework import Code, Status
from kubesim_scheduler.plugins.volumes import limits
from kubesim_scheduler.plugins.volumes.csi_translation import (
    IN_TREE_PLUGINS,
    MIGRATED_PLUGINS_ANNOTATION,
    TranslationError,
    csi_migration_on,
    inline_volume_handle,
    plugin_by_name,
    plugin_of_pv,
    plugin_of_volume,
    pv_volume_handle,
)

VOL_ID = "vol-02399794d890f9375"


@pytest.mark.parametrize("volume_id,want", [
    (VOL_ID, VOL_ID),
    ("aws:///vol-02399794d890f9375", VOL_ID),
    ("aws://us-west-2a/vol-02399794d890f9375", VOL_ID),
    ("aws://us-west-2a/02399794d890f9375", None),
], ids=["Normal ID format", "aws:///{volumeId} format", "aws://{zone}/{volumeId} format",
        "fails on invalid volume ID"])
def test_ebs_volume_id(volume_id: str, want: str | None) -> None:
    """TestKubernetesVolumeIDToEBSVolumeID / TestTranslateInTreeInlineVolumeToCSI (handle part)."""
    vol = {"name": "volume", "awsElasticBlockStore": {"volumeID": volume_id}}
    pv = {"metadata": {"name": "pv"}, "spec": {"awsElasticBlockStore": {"volumeID": volume_id}}}
    if want is None:
        with pytest.raises(TranslationError, match=r"Invalid format for AWS volume \(aws://us-west-2a/0239"):
            inline_volume_handle(vol, "")
        with pytest.raises(TranslationError):
            pv_volume_handle(pv)
    else:
        assert inline_volume_handle(vol, "") == ("ebs.csi.aws.com", want)
        assert pv_volume_handle(pv) == ("ebs.csi.aws.com", want)


def test_ebs_volume_id_that_is_not_a_url() -> None:
    """url.Parse's error (a bad %-escape) is a translation error, as upstream's "Invalid disk name"."""
    with pytest.raises(TranslationError, match=r"Invalid disk name \(aws://zone%zz/vol-1\)"):
        inline_volume_handle({"name": "v", "awsElasticBlockStore": {"volumeID": "aws://zone%zz/vol-1"}}, "")


def test_empty_volume_source_is_not_translated() -> None:
    """"fails on empty volume source": no in-tree plugin, no translation."""
    assert plugin_of_volume({"name": "volume"}) is None
    with pytest.raises(TranslationError, match="could not find in-tree plugin translation logic"):
        inline_volume_handle({"name": "volume"}, "")
    with pytest.raises(TranslationError):
        pv_volume_handle({"metadata": {"name": "pv"}, "spec": {"hostPath": {"path": "/tmp"}}})


@pytest.mark.parametrize("label,value,want", [
    ("failure-domain.beta.kubernetes.io/zone", "us-east1-a", "projects/UNSPECIFIED/zones/us-east1-a/disks/pd-name"),
    ("topology.kubernetes.io/zone", "us-east1-a", "projects/UNSPECIFIED/zones/us-east1-a/disks/pd-name"),
    ("failure-domain.beta.kubernetes.io/zone", "us-central1-a__us-central1-c",
     "projects/UNSPECIFIED/regions/us-central1/disks/pd-name"),
    ("topology.kubernetes.io/zone", "us-central1-a__us-central1-c",
     "projects/UNSPECIFIED/regions/us-central1/disks/pd-name"),
    ("other", "x", "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/pd-name"),
], ids=["beta topology key zonal", "v1 topology key zonal", "beta topology key regional", "v1 topology key regional",
        "no zone label"])
def test_gce_pv_volume_handle(label: str, value: str, want: str) -> None:
    """TestTranslateInTreePVToCSIVolIDFmt, plus a PV without zone labels."""
    pv = make_pv("pv", labels={label: value})
    pv["spec"] = {"gcePersistentDisk": {"pdName": "pd-name"}}
    assert pv_volume_handle(pv) == ("pd.csi.storage.gke.io", want)


def test_gce_pv_zones_of_two_regions_fail() -> None:
    pv = make_pv("pv", labels={"topology.kubernetes.io/zone": "us-central1-a__europe-west1-b"})
    pv["spec"] = {"gcePersistentDisk": {"pdName": "pd"}}
    with pytest.raises(TranslationError, match="failed to get region from zones"):
        pv_volume_handle(pv)


@pytest.mark.parametrize("source,namespace,want", [
    ({"gcePersistentDisk": {"pdName": "foo"}}, "", ("pd.csi.storage.gke.io",
                                                    "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/foo")),
    ({"cinder": {"volumeID": "c1"}}, "", ("cinder.csi.openstack.org", "c1")),
    ({"azureDisk": {"diskURI": "/subscriptions/s/disks/d", "kind": "Managed"}}, "",
     ("disk.csi.azure.com", "/subscriptions/s/disks/d")),
    ({"azureFile": {"secretName": "azure-storage-account-st-secret", "shareName": "share"}}, "",
     ("file.csi.azure.com", "#st#share#v#default")),
    ({"azureFile": {"secretName": "secretname", "shareName": "share"}}, "test",
     ("file.csi.azure.com", "#secretname#share#v#test")),
    ({"vsphereVolume": {"volumePath": "[ds] vols/v.vmdk"}}, "", ("csi.vsphere.vmware.com", "[ds] vols/v.vmdk")),
    ({"portworxVolume": {"volumeID": "px1"}}, "", ("pxd.portworx.com", "px1")),
], ids=["gce pd", "cinder", "azure disk", "azure file (account from the secret name)",
        "azure file (pod namespace)", "vsphere", "portworx"])
def test_inline_volume_handles(source: dict[str, Any], namespace: str, want: tuple[str, str]) -> None:
    assert inline_volume_handle({"name": "v", **source}, namespace) == want


def test_azure_disk_of_another_kind_is_not_migrated() -> None:
    vol = {"name": "v", "azureDisk": {"diskURI": "https://a/vhds/d.vhd", "kind": "Dedicated"}}
    with pytest.raises(TranslationError, match=r"kind\(Dedicated\) is not supported in csi migration"):
        inline_volume_handle(vol, "")


@pytest.mark.parametrize("spec,annotations,want", [
    ({"shareName": "s", "secretName": "secretname", "secretNamespace": "ns"}, {}, "#secretname#s#pv#ns"),
    ({"shareName": "s", "secretName": "secretname", "secretNamespace": "ns"},
     {"kubernetes.io/azure-file-resource-group": "rg"}, "rg#secretname#s#pv#ns"),
    ({"shareName": "s", "secretName": "secretname"}, {}, None),
], ids=["secret namespace", "resource group annotation", "no secret namespace nor claimRef"])
def test_azure_file_pv_handle(spec: dict[str, Any], annotations: dict[str, str], want: str | None) -> None:
    pv = make_pv("pv", annotations=annotations)
    pv["spec"] = {"azureFile": spec}
    if want is None:
        with pytest.raises(TranslationError, match="could not find a secret namespace"):
            pv_volume_handle(pv)
        pv["spec"]["claimRef"] = {"namespace": "claims", "name": "c"}
        assert pv_volume_handle(pv) == ("file.csi.azure.com", "#secretname#s#pv#claims")
    else:
        assert pv_volume_handle(pv) == ("file.csi.azure.com", want)


def test_plugin_names() -> None:
    """Every in-tree plugin is found by its name, its pod volume source and its PV source."""
    for p in IN_TREE_PLUGINS:
        assert plugin_by_name(p.plugin) is p
        assert plugin_of_volume({p.source: {}}) is p
        assert plugin_of_pv({"spec": {p.source: {}}}) is p
    assert plugin_by_name("ebs.csi.aws.com") is None
    assert plugin_by_name("kubernetes.io/hostpath") is None
    assert len({p.driver for p in IN_TREE_PLUGINS}) == 7


@pytest.mark.parametrize("plugin,annotation,want", [
    ("kubernetes.io/aws-ebs", None, True),
    ("kubernetes.io/gce-pd", None, True),
    ("kubernetes.io/azure-disk", None, True),
    ("kubernetes.io/cinder", None, True),
    ("kubernetes.io/portworx-volume", None, False),
    ("kubernetes.io/portworx-volume", "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume", True),
    ("kubernetes.io/portworx-volume", "kubernetes.io/aws-ebs", False),
    ("kubernetes.io/azure-file", "kubernetes.io/azure-file", False),
    ("kubernetes.io/vsphere-volume", "kubernetes.io/vsphere-volume", False),
    ("", None, False),
], ids=["aws ebs: GA", "gce pd: GA", "azure disk: GA", "cinder: GA", "portworx without annotation",
        "portworx listed", "portworx not listed", "azure file: never in the scheduler", "vsphere: never",
        "no plugin"])
def test_csi_migration_on(plugin: str, annotation: str | None, want: bool) -> None:
    node = make_csinode("n", {}, annotations={MIGRATED_PLUGINS_ANNOTATION: annotation} if annotation else None)
    assert csi_migration_on(node, plugin) is want
    assert csi_migration_on(None, plugin) is False


NODE = "n1"


def _filter(pod: dict[str, Any], existing: list[dict[str, Any]], objects: list[dict[str, Any]]) -> Status | None:
    fw = volume_framework("NodeVolumeLimits", ObjectStore(objects), [make_node(NODE)],
                          [{**p, "spec": {**p["spec"], "nodeName": NODE}} for p in existing])
    pl: Any = fw.plugin("NodeVolumeLimits")
    state = fw.cycle_state(pod)
    assert pl.pre_filter(state, pod, None)[1] is None
    got = pl.filter(state, pod, fw.scheduler.handle.get_node_info(NODE))
    return None if got is None else got.with_plugin("")


def _inline(name: str, **source: Any) -> dict[str, Any]:
    pod = pvc_pod(name)
    pod["spec"]["volumes"] = [{"name": f"{name}-vol", **source}]
    return pod


EXCEEDED = Status(Code.UNSCHEDULABLE, limits.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


def test_portworx_counts_only_on_nodes_that_migrated_it() -> None:
    """Portworx volumes count against pxd.portworx.com only where the CSINode lists the plugin."""
    px = "pxd.portworx.com"
    existing = [_inline("a", portworxVolume={"volumeID": "px-a"})]
    new = _inline("b", portworxVolume={"volumeID": "px-b"})
    annotated = make_csinode(NODE, {px: 1}, annotations={MIGRATED_PLUGINS_ANNOTATION: "kubernetes.io/portworx-volume"})
    assert _filter(new, existing, [annotated]) == EXCEEDED
    assert _filter(new, existing, [make_csinode(NODE, {px: 1})]) is None


def test_same_gce_disk_inline_and_in_a_pv_counts_once() -> None:
    """A zone-less GCE PV and an inline volume of the same disk share the CSI handle."""
    gce = "pd.csi.storage.gke.io"
    pv = make_pv("disk-pv")
    pv["spec"] = {"gcePersistentDisk": {"pdName": "disk-1"}}
    objects = [pv, make_pvc("disk-claim", volume="disk-pv"), make_csinode(NODE, {gce: 1})]
    existing = [pvc_pod("a", "disk-claim")]
    assert _filter(_inline("b", gcePersistentDisk={"pdName": "disk-1"}), existing, objects) is None
    assert _filter(_inline("c", gcePersistentDisk={"pdName": "disk-2"}), existing, objects) == EXCEEDED


def test_in_tree_provisioner_counts_against_its_csi_driver() -> None:
    """An unbound claim of a class provisioned by kubernetes.io/azure-disk counts for disk.csi.azure.com;
    one provisioned by kubernetes.io/azure-file (not migrated in the scheduler) does not count."""
    disk = "disk.csi.azure.com"
    objects = [make_sc("disk", provisioner="kubernetes.io/azure-disk"),
               make_sc("file", provisioner="kubernetes.io/azure-file"),
               make_pvc("d1", storage_class="disk"), make_pvc("d2", storage_class="disk"),
               make_pvc("f1", storage_class="file"),
               make_csinode(NODE, {disk: 1, "file.csi.azure.com": 0})]
    assert _filter(pvc_pod("new", "d2"), [pvc_pod("old", "d1")], objects) == EXCEEDED
    assert _filter(pvc_pod("new", "d2"), [pvc_pod("old", "f1")], objects) is None
    assert _filter(pvc_pod("new", "f1"), [pvc_pod("old", "d1")], objects) is None


def test_untranslatable_inline_volume_is_an_error() -> None:
    """checkAttachableInlineVolume's error: the Filter fails with it (not a plain rejection)."""
    pod = _inline("bad", awsElasticBlockStore={"volumeID": "aws://us-west-2a/02399794"})
    got = _filter(pod, [], [make_csinode(NODE, {"ebs.csi.aws.com": 1})])
    assert got == Status.from_error(
        "converting volume(bad-vol) from inline to csi: failed to translate Kubernetes ID to EBS Volume ID "
        "Invalid format for AWS volume (aws://us-west-2a/02399794)")
