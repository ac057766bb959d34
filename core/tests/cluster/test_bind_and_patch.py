"""pods/binding, and PATCH through the cluster (types, bodies, conflicts, errors)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, UnsupportedMediaType, WatchEvent
from kubesim.errors import BadRequest, Conflict, Invalid, NotFound

OPEN_SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


def test_bind_sets_node_and_condition(
    cluster: Cluster, clock: Clock, events: list[WatchEvent], build: Any
) -> None:
    cluster.create(build.pod("p"))
    clock.advance(timedelta(seconds=3))
    bound = cluster.bind("default", "p", "node-1")
    assert bound["spec"]["nodeName"] == "node-1"
    assert bound["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": "2025-01-01T00:00:03Z",
        }
    ]
    assert bound["metadata"]["generation"] == 1
    assert (events[-1].type, events[-1].actor, events[-1].subresource) == ("MODIFIED", "scheduler", "binding")


def test_bind_replaces_a_false_pod_scheduled_condition(cluster: Cluster, build: Any) -> None:
    p = cluster.create(build.pod("p"))
    cluster.update(
        {
            **p,
            "status": {
                "phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
            },
        },
        subresource="status",
    )
    conditions = cluster.bind("default", "p", "n")["status"]["conditions"]
    assert conditions == [
        {
            "type": "PodScheduled",
            "status": "True",
            "reason": "Unschedulable",
            "lastTransitionTime": "2025-01-01T00:00:00Z",
        }
    ]


def test_bind_conflicts(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    cluster.bind("default", "p", "n1")
    with pytest.raises(Conflict) as info:
        cluster.bind("default", "p", "n2")
    assert (
        info.value.message
        == 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"'
    )
    cluster.create(build.pod("gated", schedulingGates=[{"name": "wait"}]))
    with pytest.raises(Conflict, match="non-empty .spec.schedulingGates"):
        cluster.bind("default", "gated", "n1")
    with pytest.raises(NotFound):
        cluster.bind("default", "missing", "n1")


def test_merge_patch(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    patched = cluster.patch(
        "v1", "Pod", "p", '{"metadata": {"labels": {"a": "b"}}}', "application/merge-patch+json"
    )
    assert patched["metadata"]["labels"] == {"a": "b"}
    patched = cluster.patch("v1", "Pod", "p", "metadata:\n  labels:\n    a: null\n", "merge")
    assert patched["metadata"]["labels"] == {}


def test_merge_patch_replaces_lists(cluster: Cluster, build: Any) -> None:
    # a Deployment's template (a pod's own containers may not change: ValidatePodUpdate)
    cluster.create(build.deployment("d"))
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "x", "image": "y"}]}}}}
    patched = cluster.patch("apps/v1", "Deployment", "d", patch, "merge")
    assert [c["name"] for c in patched["spec"]["template"]["spec"]["containers"]] == ["x"]


def test_strategic_patch_merges_containers(cluster: Cluster, build: Any) -> None:
    cluster.create(build.deployment("d"))
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "x", "image": "y"}]}}}}
    patched = cluster.patch("apps/v1", "Deployment", "d", patch, "strategic")
    assert [c["name"] for c in patched["spec"]["template"]["spec"]["containers"]] == ["x", "app"]


def test_json_patch(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    patched = cluster.patch(
        "v1", "Pod", "p", [{"op": "add", "path": "/metadata/labels", "value": {"x": "1"}}], "json"
    )
    assert patched["metadata"]["labels"] == {"x": "1"}
    with pytest.raises(Invalid, match="the server rejected our request due to an error in our request"):
        cluster.patch("v1", "Pod", "p", [{"op": "test", "path": "/metadata/labels/x", "value": "2"}], "json")
    with pytest.raises(BadRequest):
        cluster.patch("v1", "Pod", "p", {"op": "add"}, "json")


def test_patch_with_stale_resource_version_conflicts(cluster: Cluster, build: Any) -> None:
    created = cluster.create(build.pod("p"))
    cluster.patch("v1", "Pod", "p", {"metadata": {"labels": {"a": "1"}}}, "merge")
    with pytest.raises(Conflict):
        cluster.patch(
            "v1",
            "Pod",
            "p",
            {"metadata": {"resourceVersion": created["metadata"]["resourceVersion"], "labels": {"a": "2"}}},
            "merge",
        )


def test_patch_cannot_rename(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    with pytest.raises(BadRequest, match="does not match the name on the URL"):
        cluster.patch("v1", "Pod", "p", {"metadata": {"name": "q"}}, "merge")


def test_status_patch_only_touches_status(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("p"))
    patched = cluster.patch(
        "v1",
        "Pod",
        "p",
        {"spec": {"nodeName": "n"}, "status": {"phase": "Running"}},
        "merge",
        subresource="status",
    )
    assert patched["status"]["phase"] == "Running" and "nodeName" not in patched["spec"]


def test_patch_types_and_custom_resources(cluster: Cluster) -> None:
    cluster.registry.register_crd(
        {
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA}],
            },
        }
    )
    cluster.create(
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": 1}}
    )
    with pytest.raises(UnsupportedMediaType) as info:
        cluster.patch("example.com/v1", "Widget", "w", {"spec": {"b": 2}}, "strategic")
    assert info.value.code == 415
    assert info.value.message.startswith(
        "the body of the request was in an unknown format - accepted media types "
        "include: application/json-patch+json, application/merge-patch+json"
    )
    assert cluster.patch("example.com/v1", "Widget", "w", {"spec": {"b": 2}}, "merge")["spec"] == {
        "a": 1,
        "b": 2,
    }
    with pytest.raises(UnsupportedMediaType):
        cluster.patch("v1", "Namespace", "default", {}, "application/xml")
