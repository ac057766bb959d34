"""The Pod bucket's spec.nodeName index: `list(field_selector="spec.nodeName=...")` answers from
it and must give exactly what a walk over every pod gives, through binds, deletes and resets."""

from __future__ import annotations

from typing import Any

from kubesim.cluster import Cluster
from kubesim.k8s.selectors import FieldSelector


def _walk(cluster: Cluster, selector: str, namespace: str | None = None) -> list[tuple[str, str]]:
    """What the selector selects when every pod is looked at (the reference)."""
    fields = FieldSelector.parse(selector)
    return [(p["metadata"]["namespace"], p["metadata"]["name"])
            for p in cluster.list("v1", "Pod", namespace) if fields.matches(p)]


def _listed(cluster: Cluster, selector: str, namespace: str | None = None) -> list[tuple[str, str]]:
    return [(p["metadata"]["namespace"], p["metadata"]["name"])
            for p in cluster.list("v1", "Pod", namespace, field_selector=selector)]


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "pods": "110"}}}


def _check_all(cluster: Cluster) -> None:
    for selector in ("spec.nodeName=n1", "spec.nodeName=n2", "spec.nodeName=", "spec.nodeName=gone",
                     "spec.nodeName=n1,status.phase=Pending", "spec.nodeName=n1,metadata.name!=p1",
                     "spec.nodeName!=n1"):
        for namespace in (None, "default", "other"):
            assert _listed(cluster, selector, namespace) == _walk(cluster, selector, namespace), (selector, namespace)


def test_node_index_follows_creates_binds_and_deletes(cluster: Cluster, build: Any) -> None:
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    for n in ("n1", "n2"):
        cluster.create(_node(n))
    for i in range(6):
        cluster.create(build.pod(f"p{i}", "default" if i % 2 else "other"))
    cluster.create(build.pod("pre", "default", nodeName="n2"))
    _check_all(cluster)
    assert _listed(cluster, "spec.nodeName=") == [("default", "p1"), ("default", "p3"), ("default", "p5"),
                                                ("other", "p0"), ("other", "p2"), ("other", "p4")]

    for i, node in ((5, "n1"), (0, "n1"), (3, "n2")):
        cluster.bind("default" if i % 2 else "other", f"p{i}", node)
    _check_all(cluster)
    assert _listed(cluster, "spec.nodeName=n1") == [("default", "p5"), ("other", "p0")]
    assert _listed(cluster, "spec.nodeName=n2", "default") == [("default", "p3"), ("default", "pre")]

    cluster.delete("v1", "Pod", "p5", "default")
    cluster.delete("v1", "Pod", "p1", "default")
    cluster.patch("v1", "Pod", "p0", {"metadata": {"labels": {"a": "b"}}}, "merge", namespace="other")
    _check_all(cluster)
    assert _listed(cluster, "spec.nodeName=n1") == [("other", "p0")]

    cluster.reset()
    _check_all(cluster)
    assert _listed(cluster, "spec.nodeName=n1") == []


def test_graceful_deletion_keeps_the_pod_on_its_node(cluster: Cluster, build: Any) -> None:
    cluster.graceful_pod_deletion = True
    cluster.create(_node("n1"))
    cluster.create(build.pod("p1", nodeName="n1"))
    cluster.delete("v1", "Pod", "p1", "default")
    assert _listed(cluster, "spec.nodeName=n1") == [("default", "p1")]
    cluster.delete("v1", "Pod", "p1", "default", grace_period_seconds=0)
    assert _listed(cluster, "spec.nodeName=n1") == []


def test_restored_pods_are_indexed(clock: Any, build: Any) -> None:
    source = Cluster(clock)
    source.create(_node("n1"))
    source.create(build.pod("p1", nodeName="n1"))
    target = Cluster(clock)
    target.restore(source.objects())
    assert _listed(target, "spec.nodeName=n1") == [("default", "p1")]
