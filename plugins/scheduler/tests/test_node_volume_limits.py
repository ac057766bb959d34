"""NodeVolumeLimits, ported from upstream's csi_test.go tables (TestCSILimits with its in-tree
migration cases, and the queueing-hint tables)."""

# upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import make_node, make_pod
from volume_builders import ObjectStore, make_csinode, make_pv, make_pvc, make_sc, pvc_pod, volume_framework

from kubesim_scheduler.framework import Code, QueueingHint, Status
from kubesim_scheduler.plugins.volumes import csi_translation, limits

EBS = "ebs.csi.aws.com"
AWS_IN_TREE = "kubernetes.io/aws-ebs"
GCE = "pd.csi.storage.gke.io"
NODE = "node-for-max-pd-test-1"
HOSTPATH = "kubernetes.io/hostpath"
EXCEEDED = Status(Code.UNSCHEDULABLE, limits.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


def fake_objects(drivers: list[str], va_count: int) -> list[dict[str, Any]]:
    """getFakeCSIPVLister, getFakeCSIPVCLister, getFakeCSIStorageClassLister and the VolumeAttachments."""
    out: list[dict[str, Any]] = [make_sc("csi-sc", provisioner=drivers[0])]
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            if driver == HOSTPATH:  # a volume of an in-tree plugin that cannot migrate to CSI
                out.append({**make_pv(name), "spec": {"hostPath": {"path": "/tmp"}}})
            elif driver == AWS_IN_TREE:  # an in-tree volume that migrates to ebs.csi.aws.com
                out.append({**make_pv(name), "spec": {"awsElasticBlockStore": {"volumeID": name}}})
            else:
                out.append(make_pv(name, csi=(driver, name)))
            out.append(make_pvc(name, volume=name))
        for j in range(va_count):
            out.append({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
                        "metadata": {"name": f"va-{driver}-{j}"},
                        "spec": {"nodeName": NODE, "attacher": driver,
                                 "source": {"persistentVolumeName": f"csi-{driver}-{j}"}}})
    out.append(make_pvc("csi-4", storage_class="csi-sc"))
    out.append(make_pvc("csi-5"))
    out.append(make_pvc("csi-6", storage_class="csi-sc", volume="missing-in-action"))
    return out


def csi_node(source: str, drivers: list[str], limit: int) -> dict[str, Any] | None:
    """getNodeWithPodAndVolumeLimits's CSINode, with enableMigrationOnNode's annotation."""
    migrated = {csi_translation.MIGRATED_PLUGINS_ANNOTATION: AWS_IN_TREE}
    if source == "csinode":
        return make_csinode(NODE, dict.fromkeys(drivers, limit), annotations=migrated)
    if source == "csinode-with-no-limit":
        return make_csinode(NODE, dict.fromkeys(drivers, None), annotations=migrated)
    return None


def ephemeral_pod(uid: str, *volumes: str, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    pod = make_pod("abc", spec_extra={"volumes": [*(extra or []), *({"name": v, "ephemeral": {}} for v in volumes)]})
    pod["metadata"].update(namespace="test", uid=uid)
    return pod


def ephemeral_claim(volume: str, owner: str | None) -> dict[str, Any]:
    return make_pvc(f"abc-{volume}", namespace="test", storage_class="csi-sc", owner_uid=owner or "")


def inline_pod(name: str, volume_id: str, extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A pod with an inline awsElasticBlockStore volume (no name, as upstream's)."""
    return make_pod(name, spec_extra={"volumes": [*(extra or []), {"awsElasticBlockStore": {"volumeID": volume_id}}]})


CM_SECRET = [{"name": "cm", "configMap": {}}, {"name": "secret", "secret": {}}]
RUNNING = pvc_pod("running", f"csi-{EBS}-3")
PENDING = pvc_pod("pending", "csi-4")
PENDING2 = pvc_pod("pending2", "csi-4")
MISSING_PV = pvc_pod("missing-pv", "csi-6")
NO_SC = pvc_pod("no-sc", "csi-5")
GCE_TWO = pvc_pod("gce-two", f"csi-{GCE}-1", f"csi-{GCE}-2")
EBS_ONE = pvc_pod("ebs-one", f"csi-{EBS}-0")
EBS_TWO = pvc_pod("ebs-two", f"csi-{EBS}-1", f"csi-{EBS}-2")
IN_TREE_ONE = pvc_pod("in-tree-one", f"csi-{AWS_IN_TREE}-0")
IN_TREE_TWO = pvc_pod("in-tree-two", f"csi-{AWS_IN_TREE}-1", f"csi-{AWS_IN_TREE}-2")
INLINE = inline_pod("inline", "aws-inline1")
INLINE_SAME_ID = inline_pod("inline-same-id", f"csi-{EBS}-1")
MIGRATING = [AWS_IN_TREE, EBS]
EPHEMERAL = ephemeral_pod("12345", "xyz")
EPHEMERAL_TWO = ephemeral_pod("12345II", "x", "y")
NOT_FOUND = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                   'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found')

# (test, new pod, existing pods, extra claims, max volumes, VolumeAttachments per driver, drivers, limit source,
#  want PreFilter, want Filter)
CASES: list[tuple[Any, ...]] = [
    ("should count VolumeAttachments towards volume limit when no pods exist", EBS_ONE, [], [], 2, 2, [EBS],
     "csinode", None, EXCEEDED),
    ("should schedule pod when VolumeAttachments count does not exceed limit", EBS_ONE, [], [], 2, 1, [EBS],
     "csinode", None, None),
    ("fits when node volume limit >= new pods CSI volume", EBS_ONE, [RUNNING, EBS_TWO], [], 4, 0, [EBS],
     "csinode", None, None),
    ("doesn't when node volume limit <= pods CSI volume", EBS_ONE, [RUNNING, EBS_TWO], [], 2, 0, [EBS],
     "csinode", None, EXCEEDED),
    ("should when driver does not support volume limits", EBS_ONE, [RUNNING, EBS_TWO], [], 2, 0, [EBS],
     "csinode-with-no-limit", None, None),
    ("count pending PVCs towards volume limit <= pods CSI volume", EBS_ONE, [PENDING, EBS_TWO], [], 2, 0, [EBS],
     "csinode", None, EXCEEDED),
    ("count multiple pending pvcs towards volume limit >= pods CSI volume", EBS_ONE, [PENDING, PENDING2, EBS_TWO], [],
     4, 0, [EBS], "csinode", None, None),
    ("should count PVCs with invalid PV name but valid SC", EBS_ONE, [MISSING_PV, EBS_TWO], [], 2, 0, [EBS],
     "csinode", None, EXCEEDED),
    ("don't count pvcs with missing SC towards volume limit", EBS_ONE, [RUNNING, NO_SC], [], 2, 0, [EBS],
     "csinode", None, None),
    ("count pvcs with the same type towards volume limit", EBS_ONE, [GCE_TWO, EBS_TWO], [], 2, 0, [EBS, GCE],
     "csinode", None, EXCEEDED),
    ("don't count pvcs with different type towards volume limit", GCE_TWO, [EBS_TWO, RUNNING], [], 2, 0, [EBS, GCE],
     "csinode", None, None),
    # in-tree volume migration (the 10 cases the first port left out)
    ("should count in-tree volumes if migration is enabled", IN_TREE_ONE, [IN_TREE_TWO], [], 2, 0, MIGRATING,
     "csinode", None, EXCEEDED),
    ("nil csi node", INLINE, [IN_TREE_TWO], [], 0, 0, MIGRATING, "", None, None),
    ("should count unbound in-tree volumes if migration is enabled", PENDING, [IN_TREE_TWO], [], 2, 0, MIGRATING,
     "csinode", None, EXCEEDED),
    ("should not limit pod if volume used does not report limits", IN_TREE_ONE, [IN_TREE_TWO], [], 2, 0, MIGRATING,
     "csinode-with-no-limit", None, None),
    ("should count in-tree inline volumes if migration is enabled", INLINE, [IN_TREE_TWO], [], 2, 0, MIGRATING,
     "csinode", None, EXCEEDED),
    ("should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)", IN_TREE_ONE,
     [EBS_TWO], [], 2, 0, MIGRATING, "csinode", None, EXCEEDED),
    ("should count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)", INLINE,
     [EBS_TWO, IN_TREE_ONE], [], 3, 0, MIGRATING, "csinode", None, EXCEEDED),
    ("should not count in-tree, inline and csi volumes if migration is enabled (when scheduling in-tree volumes)",
     INLINE_SAME_ID, [EBS_TWO, IN_TREE_ONE], [], 3, 0, MIGRATING, "csinode", None, None),
    ("should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)", EBS_ONE,
     [IN_TREE_TWO], [], 2, 0, MIGRATING, "csinode", None, EXCEEDED),
    ("don't skip Filter when the pod has inline migratable volumes", inline_pod("inline-cm", "aws-inline1", CM_SECRET),
     [IN_TREE_TWO], [], 2, 0, MIGRATING, "csinode", None, EXCEEDED),
    ("should not count non-migratable in-tree volumes", pvc_pod("hostpath", f"csi-{HOSTPATH}-0"), [EBS_TWO], [], 2, 0,
     [HOSTPATH, EBS], "csinode", None, None),
    ("ephemeral volume missing", EPHEMERAL, [], [], 0, 0, [EBS], "csinode-with-no-limit", None, NOT_FOUND),
    ("ephemeral volume not owned", EPHEMERAL, [], [ephemeral_claim("xyz", None)], 0, 0, [EBS],
     "csinode-with-no-limit", None,
     Status.from_error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")),
    ("ephemeral volume unbound", EPHEMERAL, [], [ephemeral_claim("xyz", "12345")], 0, 0, [EBS],
     "csinode-with-no-limit", None, None),
    ("ephemeral doesn't when node volume limit <= pods CSI volume", EPHEMERAL, [RUNNING, EBS_TWO],
     [ephemeral_claim("xyz", "12345")], 2, 0, [EBS], "csinode", None, EXCEEDED),
    ("ephemeral doesn't when node volume limit <= pods ephemeral CSI volume", EBS_ONE, [RUNNING, EPHEMERAL_TWO],
     [ephemeral_claim("x", "12345II"), ephemeral_claim("y", "12345II")], 2, 0, [EBS], "csinode", None, EXCEEDED),
    ("persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume", EBS_ONE,
     [RUNNING, EPHEMERAL, EBS_TWO], [ephemeral_claim("xyz", "12345")], 3, 0, [EBS], "csinode", None, EXCEEDED),
    ("persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume", EBS_ONE,
     [RUNNING, EPHEMERAL, EBS_TWO], [ephemeral_claim("xyz", "12345")], 5, 0, [EBS], "csinode", None, None),
    ("skip Filter when the pod only uses secrets and configmaps", make_pod("cm", spec_extra={"volumes": CM_SECRET}),
     [], [], 2, 0, [EBS], "csinode", Status(Code.SKIP), None),
    ("don't skip Filter when the pod has pvcs", pvc_pod("pvc-cm", f"csi-{EBS}-0", extra_volumes=CM_SECRET), [], [],
     2, 0, [EBS], "csinode", None, None),
    ("don't skip Filter when the pod has ephemeral volumes", ephemeral_pod("12345", "xyz", extra=CM_SECRET), [], [],
     0, 0, [EBS], "csinode-with-no-limit", None, NOT_FOUND),
]


def _on_node(pod: dict[str, Any]) -> dict[str, Any]:
    return {**pod, "spec": {**pod["spec"], "nodeName": NODE}}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_csi_limits(case: tuple[Any, ...]) -> None:
    name, pod, existing, claims, max_vols, va_count, drivers, source, want_pre, want_filter = case
    objects = fake_objects(drivers, va_count) + claims
    node_obj = csi_node(source, drivers, max_vols)
    if node_obj is not None:
        objects.append(node_obj)
    fw = volume_framework("NodeVolumeLimits", ObjectStore(objects), [make_node(NODE)], [_on_node(p) for p in existing])
    pl: Any = fw.plugin("NodeVolumeLimits")
    state = fw.cycle_state(pod)
    _res, pre = pl.pre_filter(state, pod, None)
    assert pre == want_pre
    if pre is None:
        got = pl.filter(state, pod, fw.scheduler.handle.get_node_info(NODE))
        assert (None if got is None else got.with_plugin("")) == want_filter


def test_nil_csi_node() -> None:
    """A node without a CSINode has no limits (upstream: "nil csi node")."""
    objects = fake_objects([EBS], 0)
    fw = volume_framework("NodeVolumeLimits", ObjectStore(objects), [make_node(NODE)], [_on_node(EBS_TWO)])
    pl: Any = fw.plugin("NodeVolumeLimits")
    state = fw.cycle_state(EBS_ONE)
    assert pl.pre_filter(state, EBS_ONE, None)[1] is None
    assert pl.filter(state, EBS_ONE, fw.scheduler.handle.get_node_info(NODE)) is None


@pytest.mark.parametrize("deleted,scheduled,want", [
    (pvc_pod("d", "placeholder"), True, QueueingHint.QUEUE),
    (make_pod("d", spec_extra={"volumes": [{"awsElasticBlockStore": {}}]}), True, QueueingHint.QUEUE),
    (make_pod("d"), True, QueueingHint.QUEUE_SKIP),
    (pvc_pod("d", f"csi-{EBS}-0"), False, QueueingHint.QUEUE_SKIP),
], ids=["return a Queue when a deleted pod has a PVC",
        "return a Queue when a deleted pod has a inline migratable volume",
        "return a QueueSkip when a deleted pod doesn't have any volume",
        "return a QueueSkip when a deleted pod is not scheduled."])
def test_csi_limits_qhint(deleted: dict[str, Any], scheduled: bool, want: QueueingHint) -> None:
    if scheduled:
        deleted = _on_node(deleted)
    assert limits._pod_deleted_hint(pvc_pod("new", f"csi-{EBS}-2"), deleted, None) == want


def _ns_pod(ns: str, *volumes: dict[str, Any]) -> dict[str, Any]:
    pod = make_pod("pod1", spec_extra={"volumes": list(volumes)} if volumes else None)
    pod["metadata"]["namespace"] = ns
    return pod


@pytest.mark.parametrize("pod,claim,want", [
    (_ns_pod("ns1"), make_pvc("x", namespace="ns2"), QueueingHint.QUEUE_SKIP),
    (_ns_pod("ns1", {"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}), make_pvc("pvc1", namespace="ns1"),
     QueueingHint.QUEUE),
    (_ns_pod("ns1", {"name": "ephemeral", "ephemeral": {}}), make_pvc("pod1-ephemeral", namespace="ns1"),
     QueueingHint.QUEUE),
    (_ns_pod("ns1", {"name": "v", "persistentVolumeClaim": {"claimName": "pvc1"}}), make_pvc("pvc2", namespace="ns1"),
     QueueingHint.QUEUE_SKIP),
    (_ns_pod("ns1"), make_pvc("pvc2", namespace="ns1"), QueueingHint.QUEUE_SKIP),
], ids=["a pod isn't in the same namespace as an added PVC", "a pod is in the same namespace as an added PVC",
        "a pod has an ephemeral volume related to an added PVC", "a pod doesn't have the same PVC as an added PVC",
        "a pod doesn't have any PVC attached"])
def test_csi_limits_added_pvc_qhint(pod: dict[str, Any], claim: dict[str, Any], want: QueueingHint) -> None:
    assert limits._pvc_added_hint(pod, None, claim) == want


def _va(attacher: str, pv: str | None = None) -> dict[str, Any]:
    """st.MakeVolumeAttachment(): of a PV, or of an inline volume translated for `attacher`."""
    source: dict[str, Any] = ({"persistentVolumeName": pv} if pv is not None
                              else {"inlineVolumeSpec": {"csi": {"driver": attacher}}})
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "volumeattachment1"},
            "spec": {"nodeName": "fake-node", "attacher": attacher, "source": source}}


PVC1 = {"name": "pvc", "persistentVolumeClaim": {"claimName": "pvc1"}}
AWS_INLINE = {"name": "aws", "awsElasticBlockStore": {"volumeID": "test"}}
GCE_INLINE = {"name": "gce", "gcePersistentDisk": {"pdName": "test"}}


@pytest.mark.parametrize("volumes,va,want", [
    ([PVC1], _va("test.storage.gke.io", "pv1"), QueueingHint.QUEUE),
    ([AWS_INLINE], _va(EBS), QueueingHint.QUEUE),
    ([GCE_INLINE], _va(EBS), QueueingHint.QUEUE_SKIP),
    ([AWS_INLINE, PVC1], _va(EBS), QueueingHint.QUEUE),
    ([AWS_INLINE, PVC1], _va("test.storage.gke.io", "pv1"), QueueingHint.QUEUE),
    ([], _va("test.storage.gke.io", "pv1"), QueueingHint.QUEUE_SKIP),
], ids=["a pod has PVC when VolumeAttachment is deleting",
        "a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment (AWSEBSDriver) is deleting (match)",
        "a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment (AWSEBSDriver) is deleting "
        "(no match)",
        "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (AWSEBSDriver) is deleting",
        "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment (other driver) is deleting",
        "a pod has no PVC when VolumeAttachment is deleting"])
def test_csi_limits_deleted_volume_attachment_qhint(volumes: list[dict[str, Any]], va: dict[str, Any],
                                                    want: QueueingHint) -> None:
    assert limits._va_deleted_hint(_ns_pod("ns1", *volumes), va, None) == want


def test_csi_limits_va_qhint_untranslatable_volume_queues() -> None:
    """An inline volume that cannot be translated (a bad aws:// ID): upstream returns Queue with its error."""
    pod = _ns_pod("ns1", {"name": "bad", "awsElasticBlockStore": {"volumeID": "aws://us-west-2a/02399794"}})
    assert limits._va_deleted_hint(pod, _va("pd.csi.storage.gke.io"), None) == QueueingHint.QUEUE


@pytest.mark.parametrize("old,new,want", [
    ({EBS: 1}, {EBS: 2}, QueueingHint.QUEUE),
    ({EBS: 2}, {EBS: 1}, QueueingHint.QUEUE_SKIP),
    ({EBS: 1}, {EBS: 1}, QueueingHint.QUEUE_SKIP),
    ({}, {EBS: 1}, QueueingHint.QUEUE),
], ids=["limit increased, queue", "limit decreased, skip queueing", "limit unchanged, skip queueing",
        "new driver with a limit, queue"])
def test_csi_limits_csinode_updated_qhint(old: dict[str, int], new: dict[str, int], want: QueueingHint) -> None:
    got = limits._csinode_updated_hint(make_pod("p"), make_csinode("test-node", old), make_csinode("test-node", new))
    assert got == want
