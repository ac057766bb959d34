"""CSI migration as far as the scheduler needs it: which CSI driver an in-tree volume source
(inline in a pod or in a PersistentVolume) migrates to, its CSI volume handle, and whether
the migration is on for a node.

NodeVolumeLimits counts a migrated in-tree volume against the attach limit of its CSI driver,
so two pods using the same disk, one through `awsElasticBlockStore` and one through the
`ebs.csi.aws.com` CSI source, count once. Only the driver and the handle are translated:
topology, access modes and attributes of the translated volume are not needed here.
"""

# upstream: staging/src/k8s.io/csi-translation-lib/translate.go and plugins/*.go (v1.34),
# pkg/scheduler/framework/plugins/nodevolumelimits/utils.go (isCSIMigrationOn)

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from kubesim.k8s.storage import Obj, annotations_of, name_of

__all__ = [
    "MIGRATED_PLUGINS_ANNOTATION",
    "IN_TREE_PLUGINS",
    "InTreePlugin",
    "TranslationError",
    "plugin_by_name",
    "plugin_of_pv",
    "plugin_of_volume",
    "inline_volume_handle",
    "pv_volume_handle",
    "csi_migration_on",
]

#: v1.MigratedPluginsAnnotationKey: the in-tree plugins the node's kubelet migrated, comma-separated
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
_ZONE = "topology.kubernetes.io/zone"
_MULTI_ZONE_DELIMITER = "__"
_UNSPECIFIED = "UNSPECIFIED"


class TranslationError(ValueError):
    """The in-tree source cannot be translated (upstream's translator returns an error)."""


def _ebs_volume_id(kubernetes_id: str) -> str:
    """KubernetesVolumeIDToEBSVolumeID: `aws://<zone>/vol-x` -> `vol-x`; other IDs unchanged."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    # Go's url.Parse refuses bad %-escapes and control characters; urlsplit lets them through
    bad = re.search(r"%(?![0-9A-Fa-f]{2})|[\x00-\x1f\x7f]", kubernetes_id)
    try:
        if bad:
            raise ValueError(f"invalid URL escape or character {bad.group()!r}")
        url = urlsplit(kubernetes_id)
    except ValueError as exc:
        raise TranslationError(f"Invalid disk name ({kubernetes_id}): {exc}") from exc
    aws_id = unquote(url.path).strip("/")
    if not re.fullmatch(r"vol-[^/]*", aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _ebs_handle(src: Mapping[str, Any]) -> str:
    try:
        return _ebs_volume_id(str(src.get("volumeID") or ""))
    except TranslationError as exc:
        raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {exc}") from exc


def _ebs_inline(src: Mapping[str, Any], _vol: Obj, _ns: str) -> str:
    return _ebs_handle(src)


def _ebs_pv(src: Mapping[str, Any], _pv: Obj) -> str:
    return _ebs_handle(src)


def _gce_region(zones: list[str]) -> str:
    """gceGetRegionFromZones: the one region (`{locale}-{region}`) of `{locale}-{region}-{zone}` zones."""
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def _gce_inline(src: Mapping[str, Any], _vol: Obj, _ns: str) -> str:
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{src.get('pdName') or ''}"


def _gce_pv(src: Mapping[str, Any], pv: Obj) -> str:
    """Zonal handle for a PV labelled with one zone, regional for several, unspecified otherwise."""
    labels = (pv.get("metadata") or {}).get("labels") or {}
    zones_label = str(labels.get(_ZONE_BETA) or "") or str(labels.get(_ZONE) or "")
    zones = zones_label.split(_MULTI_ZONE_DELIMITER)
    pd = src.get("pdName") or ""
    if len(zones) == 1 and zones[0]:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pd}"
    if len(zones) > 1:
        try:
            region = _gce_region(zones)
        except TranslationError as exc:
            raise TranslationError(f"failed to get region from zones: {exc}") from exc
        return f"projects/{_UNSPECIFIED}/regions/{region}/disks/{pd}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd}"


def _azure_disk(src: Mapping[str, Any]) -> str:
    kind = src.get("kind")
    if kind is not None and str(kind).lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")
    return str(src.get("diskURI") or "")


def _azure_disk_inline(src: Mapping[str, Any], _vol: Obj, _ns: str) -> str:
    return _azure_disk(src)


def _azure_disk_pv(src: Mapping[str, Any], _pv: Obj) -> str:
    return _azure_disk(src)


def _azure_account(secret_name: str) -> str:
    """getStorageAccountName, falling back to the secret name as upstream's callers do."""
    m = re.search(r"azure-storage-account-(.+)-secret", secret_name)
    return m.group(1) if m else secret_name


def _azure_file_inline(src: Mapping[str, Any], vol: Obj, ns: str) -> str:
    account = _azure_account(str(src.get("secretName") or ""))
    return f"#{account}#{src.get('shareName') or ''}#{vol.get('name') or ''}#{ns or 'default'}"


def _azure_file_pv(src: Mapping[str, Any], pv: Obj) -> str:
    account = _azure_account(str(src.get("secretName") or ""))
    group = str(annotations_of(pv).get("kubernetes.io/azure-file-resource-group") or "")
    if src.get("secretNamespace") is not None:
        namespace = str(src.get("secretNamespace"))
    else:
        namespace = str(((pv.get("spec") or {}).get("claimRef") or {}).get("namespace") or "")
    if not namespace:
        raise TranslationError("could not find a secret namespace in PersistentVolumeSource or ClaimRef")
    return f"{group}#{account}#{src.get('shareName') or ''}#{name_of(pv)}#{namespace}"


def _field(name: str) -> tuple[Callable[[Mapping[str, Any], Obj, str], str], Callable[[Mapping[str, Any], Obj], str]]:
    """Translators whose handle is one field of the source (cinder, portworx, vSphere)."""
    def inline(src: Mapping[str, Any], _vol: Obj, _ns: str) -> str:
        return str(src.get(name) or "")

    def pv(src: Mapping[str, Any], _pv: Obj) -> str:
        return str(src.get(name) or "")
    return inline, pv


@dataclass(frozen=True)
class InTreePlugin:
    """One migratable in-tree plugin: its volume source field, plugin name and CSI driver."""

    source: str
    plugin: str
    driver: str
    inline_handle: Callable[[Mapping[str, Any], Obj, str], str]
    pv_handle: Callable[[Mapping[str, Any], Obj], str]


_CINDER, _PORTWORX, _VSPHERE = _field("volumeID"), _field("volumeID"), _field("volumePath")

#: translate.go's inTreePlugins (upstream iterates a map; a source matches one plugin only)
IN_TREE_PLUGINS: tuple[InTreePlugin, ...] = (
    InTreePlugin("gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", _gce_inline, _gce_pv),
    InTreePlugin("awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", _ebs_inline, _ebs_pv),
    InTreePlugin("cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", *_CINDER),
    InTreePlugin("azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", _azure_disk_inline, _azure_disk_pv),
    InTreePlugin("azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", _azure_file_inline, _azure_file_pv),
    InTreePlugin("vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", *_VSPHERE),
    InTreePlugin("portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", *_PORTWORX),
)
_BY_NAME = {p.plugin: p for p in IN_TREE_PLUGINS}


def plugin_by_name(plugin_name: str) -> InTreePlugin | None:
    """IsMigratableIntreePluginByName / GetCSINameFromInTreeName (e.g. a StorageClass provisioner)."""
    return _BY_NAME.get(plugin_name)


def _source_plugin(spec: Mapping[str, Any]) -> InTreePlugin | None:
    for p in IN_TREE_PLUGINS:
        if spec.get(p.source) is not None:
            return p
    return None


def plugin_of_volume(volume: Mapping[str, Any]) -> InTreePlugin | None:
    """IsInlineMigratable / GetInTreePluginNameFromSpec(nil, vol): the plugin of a pod volume."""
    return _source_plugin(volume) if isinstance(volume, Mapping) else None


def plugin_of_pv(pv: Obj) -> InTreePlugin | None:
    """IsPVMigratable / GetInTreePluginNameFromSpec(pv, nil): the plugin of a PersistentVolume."""
    spec = pv.get("spec")
    return _source_plugin(spec) if isinstance(spec, Mapping) else None


def _source(spec: Mapping[str, Any], plugin: InTreePlugin) -> Mapping[str, Any]:
    src = spec.get(plugin.source)
    return src if isinstance(src, Mapping) else {}


def inline_volume_handle(volume: Obj, pod_namespace: str) -> tuple[str, str]:
    """TranslateInTreeInlineVolumeToCSI: (driver, volume handle) of a migratable pod volume."""
    plugin = plugin_of_volume(volume)
    if plugin is None:
        raise TranslationError(f"could not find in-tree plugin translation logic for {volume.get('name') or ''!r}")
    return plugin.driver, plugin.inline_handle(_source(volume, plugin), volume, pod_namespace)


def pv_volume_handle(pv: Obj) -> tuple[str, str]:
    """TranslateInTreePVToCSI: (driver, volume handle) of a PersistentVolume with an in-tree source."""
    plugin = plugin_of_pv(pv)
    if plugin is None:
        raise TranslationError(f"could not find in-tree plugin translation logic for {name_of(pv)!r}")
    return plugin.driver, plugin.pv_handle(_source(pv.get("spec") or {}, plugin), pv)


#: v1.34: CSIMigrationAWS/GCE/AzureDisk/OpenStack are GA and removed (always on);
#: CSIMigrationPortworx is GA and locked on, but still needs the node's annotation
_ALWAYS_MIGRATED = frozenset({"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd", "kubernetes.io/azure-disk",
                              "kubernetes.io/cinder"})
_ANNOTATED = frozenset({"kubernetes.io/portworx-volume"})


def csi_migration_on(csi_node: Obj | None, plugin_name: str) -> bool:
    """isCSIMigrationOn: whether the node counts `plugin_name`'s volumes against its CSI driver.

    No CSINode: never. AWS EBS, GCE PD, Azure Disk and Cinder: always. Portworx: when listed in
    the CSINode's `storage.alpha.kubernetes.io/migrated-plugins` annotation. Azure File and
    vSphere (and anything else): never, as upstream's scheduler.
    """
    if csi_node is None or not plugin_name:
        return False
    if plugin_name in _ALWAYS_MIGRATED:
        return True
    if plugin_name not in _ANNOTATED:
        return False
    migrated = str(annotations_of(csi_node).get(MIGRATED_PLUGINS_ANNOTATION) or "")
    return plugin_name in migrated.split(",") if migrated else False
