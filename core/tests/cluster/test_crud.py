"""Create, read, update, list: metadata, errors and messages as the API server has them."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.clock import Clock
from kubesim.cluster import Cluster, WatchEvent
from kubesim.errors import AlreadyExists, BadRequest, Conflict, Forbidden, Invalid, NotFound

OPEN_SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "1"}}


def test_default_namespaces_exist(cluster: Cluster) -> None:
    names = [ns["metadata"]["name"] for ns in cluster.list("v1", "Namespace")]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
    ns = cluster.get("v1", "Namespace", "default")
    assert ns["status"] == {"phase": "Active"}
    assert ns["spec"] == {"finalizers": ["kubernetes"]}
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "default"}


def test_create_fills_system_metadata(cluster: Cluster) -> None:
    created = cluster.create(CM)
    meta = created["metadata"]
    assert meta["namespace"] == "default"
    assert meta["generation"] == 1
    assert meta["creationTimestamp"] == "2025-01-01T00:00:00Z"
    assert meta["uid"] and meta["resourceVersion"].isdigit()
    assert cluster.get("v1", "ConfigMap", "cfg", "default") == created


def test_returned_objects_are_copies(cluster: Cluster) -> None:
    created = cluster.create(CM)
    created["data"]["a"] = "changed"
    got = cluster.get("v1", "ConfigMap", "cfg")
    got["data"]["a"] = "changed too"
    assert cluster.get("v1", "ConfigMap", "cfg")["data"] == {"a": "1"}
    assert CM["metadata"] == {"name": "cfg"}  # the caller's object is not touched either


def test_resource_versions_come_from_one_counter(cluster: Cluster) -> None:
    a = cluster.create(CM)
    b = cluster.create({**CM, "metadata": {"name": "other"}})
    assert int(b["metadata"]["resourceVersion"]) == int(a["metadata"]["resourceVersion"]) + 1


def test_uids_are_deterministic() -> None:
    uids = [Cluster(Clock()).create(CM)["metadata"]["uid"] for _ in range(2)]
    assert uids[0] == uids[1]
    assert (
        len(
            {
                Cluster(Clock()).create(CM)["metadata"]["uid"],
                Cluster(Clock()).get("v1", "Namespace", "default")["metadata"]["uid"],
            }
        )
        == 2
    )


def test_generate_name_is_deterministic_per_seed(build: Any) -> None:
    def names(seed: int) -> list[str]:
        c = Cluster(Clock(), seed=seed)
        return [
            c.create({**build.pod(""), "metadata": {"generateName": "web-"}})["metadata"]["name"]
            for _ in range(5)
        ]

    first = names(7)
    assert first == names(7)
    assert first != names(8)
    assert all(n.startswith("web-") and len(n) == 9 for n in first)
    assert all(c in "bcdfghjklmnpqrstvwxz2456789" for n in first for c in n[4:])


def test_generate_name_cuts_long_prefixes(cluster: Cluster, build: Any) -> None:
    created = cluster.create({**build.pod(""), "metadata": {"generateName": "a" * 70}})
    assert len(created["metadata"]["name"]) == 63


def test_name_is_required(cluster: Cluster) -> None:
    with pytest.raises(Invalid) as info:
        cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}})
    assert info.value.message == (
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required'
    )


def test_names_are_validated_with_upstream_messages(cluster: Cluster) -> None:
    with pytest.raises(Invalid) as info:
        cluster.create({**CM, "metadata": {"name": "Bad_Name"}})
    assert info.value.message == (
        'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    )
    with pytest.raises(Invalid, match="a DNS-1035 label"):
        cluster.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "1svc"}, "spec": {}})
    with pytest.raises(Invalid, match="must not contain dots"):
        cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}})


def test_labels_are_validated(cluster: Cluster) -> None:
    with pytest.raises(Invalid, match=r'metadata.labels: Invalid value: "bad value"'):
        cluster.create({**CM, "metadata": {"name": "x", "labels": {"a": "bad value"}}})
    with pytest.raises(BadRequest) as decoding:
        cluster.create({**CM, "metadata": {"name": "x", "labels": {"a": 1}}})
    assert decoding.value.message == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number '
        "into Go struct field ObjectMeta.metadata.labels of type string"
    )


def test_resource_version_on_create_is_a_bad_request(cluster: Cluster) -> None:
    with pytest.raises(BadRequest, match="resourceVersion should not be set on objects to be created"):
        cluster.create({**CM, "metadata": {"name": "x", "resourceVersion": "5"}})


def test_already_exists_and_not_found_messages(cluster: Cluster, build: Any) -> None:
    cluster.create(build.pod("x"))
    with pytest.raises(AlreadyExists) as exists:
        cluster.create(build.pod("x"))
    assert exists.value.message == 'pods "x" already exists'
    with pytest.raises(NotFound) as missing:
        cluster.get("v1", "Pod", "y")
    assert missing.value.message == 'pods "y" not found'
    with pytest.raises(NotFound, match='deployments.apps "d" not found'):
        cluster.get("apps/v1", "Deployment", "d")


def test_unknown_kind(cluster: Cluster) -> None:
    with pytest.raises(NotFound) as info:
        cluster.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    assert info.value.message == 'no matches for kind "Widget" in version "example.com/v1"'
    with pytest.raises(BadRequest, match="Object 'Kind' is missing"):
        cluster.create({"apiVersion": "v1", "metadata": {"name": "w"}})


def test_missing_and_terminating_namespaces(cluster: Cluster, build: Any) -> None:
    with pytest.raises(NotFound) as info:
        cluster.create(build.pod("p", "nope"))
    assert info.value.message == 'namespaces "nope" not found'
    cluster.create(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "finalizers": ["x/y"]}}
    )
    cluster.delete("v1", "Namespace", "team")
    with pytest.raises(Forbidden) as forbidden:
        cluster.create(build.pod("p", "team"))
    assert forbidden.value.message == (
        'pods "p" is forbidden: unable to create new content in namespace team because it is being terminated'
    )


def test_cluster_scoped_objects_drop_their_namespace(cluster: Cluster) -> None:
    node = cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "namespace": "x"}})
    assert "namespace" not in node["metadata"]
    assert cluster.get("v1", "Node", "n1", "ignored")["metadata"]["name"] == "n1"


def test_update_with_stale_resource_version_conflicts(cluster: Cluster) -> None:
    created = cluster.create(CM)
    fresh = cluster.update({**created, "data": {"a": "2"}})
    assert fresh["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]
    with pytest.raises(Conflict) as info:
        cluster.update({**created, "data": {"a": "3"}})
    assert info.value.message == (
        'Operation cannot be fulfilled on configmaps "cfg": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


def test_update_without_resource_version_is_unconditional(cluster: Cluster) -> None:
    cluster.create(CM)
    updated = cluster.update({**CM, "data": {"a": "9"}})
    assert updated["data"] == {"a": "9"}


def test_updating_a_stored_object_in_place_is_caught(cluster: Cluster) -> None:
    cluster.create(CM)
    stored = cluster.list("v1", "ConfigMap")[0]
    with pytest.raises(ValueError, match="copy it first"):
        cluster.update(stored)


def test_update_of_a_missing_object(cluster: Cluster) -> None:
    with pytest.raises(NotFound, match='configmaps "cfg" not found'):
        cluster.update(CM)


def test_update_keeps_system_fields(cluster: Cluster) -> None:
    created = cluster.create(CM)
    updated = cluster.update(
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "cfg", "creationTimestamp": "2000-01-01T00:00:00Z"}, "data": {}}
    )
    for field in ("uid", "creationTimestamp"):
        assert updated["metadata"][field] == created["metadata"][field]


def test_update_refuses_a_different_uid(cluster: Cluster) -> None:
    # ValidateObjectMetaUpdate: an absent uid is filled in, a different one is refused
    cluster.create(CM)
    with pytest.raises(Invalid) as err:
        cluster.update({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "uid": "forged"}})
    assert err.value.message == 'ConfigMap "cfg" is invalid: metadata.uid: Invalid value: "forged": field is immutable'


def test_generation_counts_spec_changes_only(cluster: Cluster, build: Any) -> None:
    d = cluster.create(build.deployment("d"))
    assert d["metadata"]["generation"] == 1
    d = cluster.update({**d, "metadata": {**d["metadata"], "labels": {"a": "b"}}})
    assert d["metadata"]["generation"] == 1
    d = cluster.update({**d, "spec": {**d["spec"], "replicas": 3}})
    assert d["metadata"]["generation"] == 2
    d = cluster.update({**d, "status": {"replicas": 3}}, subresource="status")
    assert d["metadata"]["generation"] == 2


def test_no_op_update_changes_nothing(cluster: Cluster, events: list[WatchEvent]) -> None:
    created = cluster.create(CM)
    same = cluster.update(created)
    assert same["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert [e.type for e in events] == ["ADDED"]


def test_status_subresource_rules(cluster: Cluster, build: Any) -> None:
    d = cluster.create({**build.deployment("d"), "status": {"replicas": 5}})
    assert d["status"] == {}  # PrepareForCreate resets the status
    d = cluster.update({**d, "spec": {**d["spec"], "replicas": 2}, "status": {"replicas": 7}})
    assert d["spec"]["replicas"] == 2 and d["status"] == {}  # main resource ignores status
    d = cluster.update(
        {**d, "spec": {**d["spec"], "replicas": 9}, "status": {"replicas": 2}}, subresource="status"
    )
    assert d["spec"]["replicas"] == 2 and d["status"] == {"replicas": 2}  # status only changes status
    with pytest.raises(NotFound):
        cluster.update({**CM, "metadata": {"name": "cfg"}}, subresource="status")


def test_nodes_keep_status_on_create_and_pods_start_pending(cluster: Cluster, build: Any) -> None:
    node = cluster.create(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "4"}},
        }
    )
    assert node["status"] == {"allocatable": {"cpu": "4"}}
    pod = cluster.create({**build.pod("p"), "status": {"phase": "Running"}})
    assert pod["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


def test_list_sorting_namespaces_and_selectors(cluster: Cluster, build: Any) -> None:
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}})
    for ns, name, labels in [("default", "b", {"app": "x"}), ("a", "z", {"app": "y"}), ("default", "a", {})]:
        cluster.create({**build.pod(name, ns), "metadata": {"name": name, "namespace": ns, "labels": labels}})
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in cluster.list("v1", "Pod")] == [
        ("a", "z"),
        ("default", "a"),
        ("default", "b"),
    ]
    assert [p["metadata"]["name"] for p in cluster.list("v1", "Pod", "default")] == ["a", "b"]
    assert [p["metadata"]["name"] for p in cluster.list("v1", "Pod", label_selector="app")] == ["z", "b"]
    assert [
        p["metadata"]["name"] for p in cluster.list("v1", "Pod", label_selector={"matchLabels": {"app": "y"}})
    ] == ["z"]
    assert [
        p["metadata"]["name"] for p in cluster.list("v1", "Pod", field_selector="metadata.namespace=a")
    ] == ["z"]
    assert [
        p["metadata"]["name"] for p in cluster.list("v1", "Pod", field_selector="status.phase=Pending")
    ] == ["z", "a", "b"]
    with pytest.raises(BadRequest):
        cluster.list("v1", "Pod", label_selector="a in (")


def test_objects_are_listed_in_registry_order(cluster: Cluster, build: Any) -> None:
    cluster.create(build.deployment("d"))
    cluster.create(build.pod("p"))
    kinds = [o["kind"] for o in cluster.objects()]
    assert kinds == ["Namespace"] * 4 + ["Pod", "Deployment"]


def test_created_crd_registers_its_kind(cluster: Cluster) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA, "subresources": {"status": {}}}],
        },
    }
    created = cluster.create(crd)
    assert {c["type"] for c in created["status"]["conditions"]} == {"Established", "NamesAccepted"}
    w = cluster.create(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"size": 1},
            "status": {"ok": True},
        }
    )
    assert "status" not in w and w["metadata"]["namespace"] == "default"
    cluster.delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.example.com")
    with pytest.raises(NotFound, match="no matches for kind"):
        cluster.list("example.com/v1", "Widget")


def test_crd_name_must_match(cluster: Cluster) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "x"},
        "spec": {
            "group": "example.com",
            "scope": "Cluster",
            "names": {"kind": "W", "plural": "ws"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA}],
        },
    }
    with pytest.raises(Invalid, match=r'must be spec.names.plural\+"."\+spec.group'):
        cluster.create(crd)


def test_reset_keeps_crds_and_restarts_identities(
    cluster: Cluster, events: list[WatchEvent], build: Any
) -> None:
    cluster.registry.register_crd(
        {
            "metadata": {"name": "things.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Cluster",
                "names": {"kind": "Thing", "plural": "things"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": OPEN_SCHEMA}],
            },
        }
    )
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "extra"}})
    cluster.create({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}})
    first = [cluster.create({**build.pod(""), "metadata": {"generateName": "p-"}}) for _ in range(2)]
    events.clear()
    cluster.reset()
    assert events == []
    assert [o["metadata"]["name"] for o in cluster.objects()] == [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
    ]
    assert cluster.list("example.com/v1", "Thing") == []
    again = [cluster.create({**build.pod(""), "metadata": {"generateName": "p-"}}) for _ in range(2)]
    assert [p["metadata"]["name"] for p in again] == [p["metadata"]["name"] for p in first]
    fresh = Cluster(Clock())
    expected = [
        fresh.create({**build.pod(""), "metadata": {"generateName": "p-"}})["metadata"]["uid"]
        for _ in range(2)
    ]
    assert [p["metadata"]["uid"] for p in again] == expected
