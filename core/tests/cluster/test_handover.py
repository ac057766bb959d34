"""copy=False writes: the caller hands its object over and gets the stored object back."""

from __future__ import annotations

from typing import Any

from kubesim.cluster import Cluster, WatchEvent


def test_create_without_copy_stores_the_given_object(cluster: Cluster, build: Any) -> None:
    obj = build.pod("p")
    created = cluster.create(obj, copy=False)
    [stored] = cluster.list("v1", "Pod")
    assert created is stored is obj
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    # the default path still copies both ways
    other = build.pod("q")
    copied = cluster.create(other)
    assert copied is not other and "uid" not in other["metadata"]
    assert copied is not cluster.list("v1", "Pod")[1]


def test_update_without_copy_stores_the_given_status(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    cluster.create(build.pod("p"))
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "status": status}
    updated = cluster.update(body, subresource="status", copy=False)
    [stored] = cluster.list("v1", "Pod")
    assert updated is stored and stored["status"] is status
    assert stored["spec"]["containers"][0]["name"] == "app"  # the spec stays as stored
    assert events[-1].object is stored and events[-1].subresource == "status"
    assert events[-1].old_object is not None and events[-1].old_object["status"]["phase"] == "Pending"


def test_bind_without_copy_returns_the_stored_pod(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    bound = cluster.bind("default", "p", "node-1", copy=False)
    [stored] = cluster.list("v1", "Pod")
    assert bound is stored and bound["spec"]["nodeName"] == "node-1"
    assert cluster.get("v1", "Pod", "p", "default") is not stored  # get() still copies


def test_client_bind_without_copy(cluster: Cluster, build: Any) -> None:
    from kubesim.controllers.client import Client

    cluster.create(build.pod("p"))
    bound = Client(cluster, "scheduler").bind("default", "p", "node-1", copy=False)
    assert bound is cluster.list("v1", "Pod")[0] and bound["spec"]["nodeName"] == "node-1"
