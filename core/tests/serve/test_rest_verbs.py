"""Every verb on built-in kinds and custom resources, URL scope rules, dry-run and Status errors."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from kubesim.testing import KubesimServer

from .rest_http import api_client, call


def _pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def _cm(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels},
            "data": {"k": "v"}}


_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]},
}


def test_verbs_on_a_built_in_kind_with_the_python_client(server: KubesimServer) -> None:
    apps = client.AppsV1Api(api_client(server))
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    created = apps.create_namespaced_deployment("default", deploy, _request_timeout=20)
    assert created.metadata.generation == 1
    got = apps.read_namespaced_deployment("web", "default", _request_timeout=20)
    got.spec.replicas = 2
    replaced = apps.replace_namespaced_deployment("web", "default", got, _request_timeout=20)
    assert replaced.spec.replicas == 2 and replaced.metadata.generation == 2
    patched = apps.patch_namespaced_deployment("web", "default", {"metadata": {"labels": {"tier": "a"}}},
                                               _request_timeout=20)
    assert patched.metadata.labels == {"app": "web", "tier": "a"}
    stale = apps.read_namespaced_deployment("web", "default", _request_timeout=20)
    stale.metadata.resource_version = created.metadata.resource_version
    with pytest.raises(ApiException) as info:
        apps.replace_namespaced_deployment("web", "default", stale, _request_timeout=20)
    assert info.value.status == 409 and '"reason":"Conflict"' in info.value.body
    assert apps.list_deployment_for_all_namespaces(_request_timeout=20).items[0].metadata.name == "web"
    status = apps.delete_namespaced_deployment("web", "default", _request_timeout=20)
    assert status["status"] == "Success" and status["details"]["kind"] == "deployments"
    assert apps.list_namespaced_deployment("default", _request_timeout=20).items == []


def test_verbs_on_a_custom_resource(server: KubesimServer) -> None:
    assert call(server, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", _CRD)[0] == 201
    custom = client.CustomObjectsApi(api_client(server))
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 1}}
    custom.create_namespaced_custom_object("example.com", "v1", "default", "widgets", widget, _request_timeout=20)
    patched = custom.patch_namespaced_custom_object("example.com", "v1", "default", "widgets", "w1",
                                                    {"spec": {"size": 3}}, _request_timeout=20)
    assert patched["spec"]["size"] == 3
    listed = custom.list_cluster_custom_object("example.com", "v1", "widgets", _request_timeout=20)
    assert [w["metadata"]["name"] for w in listed["items"]] == ["w1"]
    code, body = call(server, "PATCH", "/apis/example.com/v1/namespaces/default/widgets/w1", {"spec": {}},
                      content_type="application/strategic-merge-patch+json")
    assert code == 415 and "merge patch" in body["message"]
    code, body = call(server, "DELETE", "/apis/example.com/v1/namespaces/default/widgets/w1")
    assert code == 200 and body["details"] == {"name": "w1", "group": "example.com", "kind": "widgets",
                                               "uid": patched["metadata"]["uid"]}


def test_url_scope_rules(server: KubesimServer) -> None:
    # a cluster-scoped kind under namespaces/NS/ does not exist
    assert call(server, "GET", "/api/v1/namespaces/default/nodes")[0] == 404
    # a namespaced kind without a namespace: listed across namespaces, nothing else
    assert call(server, "POST", "/api/v1/namespaces/kube-system/configmaps", _cm("a"))[0] == 201
    assert call(server, "POST", "/api/v1/namespaces/default/configmaps", _cm("b"))[0] == 201
    code, body = call(server, "GET", "/api/v1/configmaps")
    assert code == 200 and [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in body["items"]] == [
        ("default", "b"), ("kube-system", "a")]
    code, body = call(server, "POST", "/api/v1/configmaps", _cm("c"))
    assert code == 405 and body["reason"] == "MethodNotAllowed"
    assert call(server, "GET", "/api/v1/configmaps/a")[0] == 404
    code, body = call(server, "POST", "/api/v1/namespaces/default/configmaps",
                      {**_cm("d"), "metadata": {"name": "d", "namespace": "other"}})
    assert code == 400 and "does not match the namespace" in body["message"]
    code, body = call(server, "GET", "/api/v1/namespaces/default/configmaps/b/frobnicate")
    assert code == 404 and body["reason"] == "NotFound"
    code, body = call(server, "PUT", "/api/v1/namespaces/default/configmaps", _cm("b"))
    assert code == 405 and body["message"] == "the server does not allow this method on the requested resource"


def test_status_errors_carry_upstream_details(server: KubesimServer) -> None:
    code, body = call(server, "GET", "/api/v1/namespaces/default/pods/x")
    assert (code, body["message"], body["details"]) == (404, 'pods "x" not found', {"name": "x", "kind": "pods"})
    code, body = call(server, "GET", "/apis/apps/v1/namespaces/default/deployments/x")
    assert body["details"] == {"name": "x", "group": "apps", "kind": "deployments"}
    call(server, "POST", "/api/v1/namespaces/default/configmaps", _cm("a"))
    code, body = call(server, "POST", "/api/v1/namespaces/default/configmaps", _cm("a"))
    assert (code, body["reason"], body["details"]) == (409, "AlreadyExists", {"name": "a", "kind": "configmaps"})
    code, body = call(server, "POST", "/api/v1/namespaces/default/configmaps", _cm("Bad_Name"))
    assert code == 422 and body["reason"] == "Invalid"
    assert body["details"]["kind"] == "ConfigMap" and body["details"]["name"] == "Bad_Name"
    cause = body["details"]["causes"][0]
    assert cause["reason"] == "FieldValueInvalid" and cause["field"] == "metadata.name"
    assert cause["message"].startswith('Invalid value: "Bad_Name": ')
    assert body["message"] == f'ConfigMap "Bad_Name" is invalid: metadata.name: {cause["message"]}'


def test_malformed_and_unsupported_bodies(server: KubesimServer) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    code, body = call(server, "POST", path, raw=b'{"kind": ')
    assert code == 400 and body["reason"] == "BadRequest"
    assert body["message"].startswith("the object provided is unrecognized (must be of type ConfigMap): couldn't "
                                      "get version/kind; json parse error: ")
    assert body["message"].endswith('({"kind": )')
    code, body = call(server, "POST", path, raw=b"k8s\x00\x0a\x0f", content_type="application/vnd.kubernetes.protobuf")
    assert code == 415 and "send the request body as JSON" in body["message"]
    call(server, "POST", path, _cm("a"))
    code, body = call(server, "PATCH", f"{path}/a", raw=b"data: {k: w}\n", content_type="application/apply-patch+yaml")
    assert code == 415 and body["reason"] == "UnsupportedMediaType"
    assert "application/merge-patch+json" in body["message"] and "server-side apply is not modelled" in body["message"]
    code, body = call(server, "POST", path, raw=b'{"kind": "ConfigMap", "data": "' + b"x" * (3 * 1024 * 1024) + b'"}')
    assert (code, body["reason"]) == (413, "RequestEntityTooLarge")
    code, body = call(server, "POST", path, raw=b"<ConfigMap/>", content_type="application/xml")
    assert (code, body["reason"]) == (415, "UnsupportedMediaType")
    code, body = call(server, "PATCH", f"{path}/a", [{"op": "test", "path": "/data/k", "value": "nope"}],
                      content_type="application/json-patch+json")
    assert (code, body["kind"]) == (422, "Status")
    code, body = call(server, "PATCH", f"{path}/a", [{"op": "replace", "path": "/data/k", "value": "w"}],
                      content_type="application/json-patch+json")
    assert code == 200 and body["data"] == {"k": "w"}


def test_delete_options_and_delete_collection(server: KubesimServer) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    for name, tier in (("a", "x"), ("b", "x"), ("c", "y")):
        assert call(server, "POST", path, _cm(name, tier=tier))[0] == 201
    code, body = call(server, "DELETE", f"{path}/a", {"preconditions": {"uid": "nope"}})
    assert code == 409 and body["message"].startswith(
        'Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: nope')
    code, body = call(server, "DELETE", f"{path}/a", {"preconditions": {"resourceVersion": "1"}})
    assert code == 409 and "ResourceVersion in precondition: 1" in body["message"]
    code, body = call(server, "DELETE", f"{path}/a", {"propagationPolicy": "Sideways"})
    assert code == 400 and 'propagationPolicy: Unsupported value: "Sideways"' in body["message"]
    code, body = call(server, "DELETE", f"{path}?labelSelector=tier%3Dx")
    assert code == 200 and body["kind"] == "ConfigMapList"
    assert [i["metadata"]["name"] for i in body["items"]] == ["a", "b"]
    code, body = call(server, "GET", path)
    assert [i["metadata"]["name"] for i in body["items"]] == ["c"]
    code, body = call(server, "DELETE", f"{path}?fieldSelector=metadata.name%3Dc")
    assert [i["metadata"]["name"] for i in body["items"]] == ["c"]
    assert call(server, "GET", path)[1]["items"] == []


def test_dry_run_checks_everything_and_commits_nothing(server: KubesimServer) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    call(server, "POST", path, _cm("keep"))
    before = call(server, "GET", path)[1]
    rv = before["metadata"]["resourceVersion"]
    code, body = call(server, "POST", f"{path}?dryRun=All", _cm("new"))
    assert code == 201 and body["metadata"]["name"] == "new" and body["metadata"]["uid"]
    code, body = call(server, "POST", f"{path}?dryRun=All", _cm("Bad_Name"))
    assert code == 422
    code, body = call(server, "POST", f"{path}?dryRun=All", _cm("keep"))
    assert code == 409
    code, body = call(server, "PUT", f"{path}/keep?dryRun=All", {**_cm("keep"), "data": {"k": "dry"}})
    assert code == 200 and body["data"] == {"k": "dry"}
    code, body = call(server, "PATCH", f"{path}/keep?dryRun=All", {"data": {"k": "dry"}},
                      content_type="application/merge-patch+json")
    assert code == 200 and body["data"] == {"k": "dry"}
    code, body = call(server, "DELETE", f"{path}/keep", {"dryRun": ["All"]})
    assert code == 200
    code, body = call(server, "DELETE", f"{path}?dryRun=All")
    assert [i["metadata"]["name"] for i in body["items"]] == ["keep"]
    code, body = call(server, "POST", f"{path}?dryRun=Some", _cm("x"))
    assert code == 400 and body["message"] == 'dryRun: Unsupported value: "Some": supported values: "All"'
    after = call(server, "GET", path)[1]
    assert after["metadata"]["resourceVersion"] == rv and after["items"] == before["items"]
    # the uid sequence did not move either: a real create gets the uid the dry run showed
    dry_uid = call(server, "POST", f"{path}?dryRun=All", _cm("new"))[1]["metadata"]["uid"]
    assert call(server, "POST", path, _cm("new"))[1]["metadata"]["uid"] == dry_uid


def test_delete_of_an_object_kept_by_a_finalizer(server: KubesimServer) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    held = {**_cm("held"), "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}
    assert call(server, "POST", path, held)[0] == 201
    code, body = call(server, "DELETE", f"{path}/held")
    assert code == 200 and body["metadata"]["deletionTimestamp"] and body["kind"] == "ConfigMap"
    code, body = call(server, "DELETE", f"{path}/held", {"orphanDependents": False})
    assert code == 202 and body["metadata"]["finalizers"] == ["example.com/hold"]
    code, body = call(server, "PATCH", f"{path}/held", {"metadata": {"finalizers": None}},
                      content_type="application/merge-patch+json")
    assert code == 200 and call(server, "GET", f"{path}/held")[0] == 404
