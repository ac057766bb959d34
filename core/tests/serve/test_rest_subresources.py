"""Subresources: pods/binding, pods/eviction (PodDisruptionBudgets), */scale, */status."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException

from kubesim.testing import KubesimServer

from .rest_http import api_client, call

_PODS = "/api/v1/namespaces/default/pods"


def _pod(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def _binding(name: str, node: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


def test_binding(server: KubesimServer) -> None:
    call(server, "POST", _PODS, _pod("p"))
    code, body = call(server, "POST", f"{_PODS}/p/binding?dryRun=All", _binding("p", "n1"))
    assert code == 201 and call(server, "GET", f"{_PODS}/p")[1]["spec"].get("nodeName") is None
    code, body = call(server, "POST", f"{_PODS}/p/binding", _binding("p", "n1"))
    assert (code, body["status"], body["code"]) == (201, "Success", 201)
    pod = call(server, "GET", f"{_PODS}/p")[1]
    assert pod["spec"]["nodeName"] == "n1"
    assert {"type": "PodScheduled", "status": "True"}.items() <= pod["status"]["conditions"][0].items()
    code, body = call(server, "POST", f"{_PODS}/p/binding", _binding("p", "n2"))
    assert (code, body["reason"]) == (409, "Conflict")
    assert body["message"] == 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"'
    code, body = call(server, "POST", f"{_PODS}/p/binding", _binding("q", "n2"))
    assert code == 400 and body["message"] == "name in URL does not match name in Binding object"
    assert call(server, "POST", f"{_PODS}/missing/binding", _binding("missing", "n1"))[0] == 404
    code, body = call(server, "GET", f"{_PODS}/p/binding")
    assert code == 405
    # the official client posts the same Binding; the answer is a Status as upstream's (which the
    # client cannot read as a V1Binding, against kube-apiserver too: hence _preload_content=False)
    core = client.CoreV1Api(api_client(server))
    call(server, "POST", _PODS, _pod("q"))
    reply = core.create_namespaced_pod_binding("q", "default", _binding("q", "n3"), _request_timeout=20,
                                               _preload_content=False)
    assert reply.status == 201
    assert core.read_namespaced_pod("q", "default", _request_timeout=20).spec.node_name == "n3"


def _pdb(allowed: int, generation_seen: bool = True) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "budget"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}


def _set_pdb_status(server: KubesimServer, allowed: int) -> None:
    path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets/budget/status"
    status = {"status": {"observedGeneration": 1, "disruptionsAllowed": allowed, "currentHealthy": 2,
                         "desiredHealthy": 1, "expectedPods": 2}}
    code, body = call(server, "PATCH", path, status, content_type="application/merge-patch+json")
    assert code == 200, body


def test_eviction_respects_the_disruption_budget(server: KubesimServer) -> None:
    for name in ("a", "b"):
        call(server, "POST", _PODS, _pod(name, app="web"))
        call(server, "POST", f"{_PODS}/{name}/binding", _binding(name, "n1"))
        # a kubelet would report it running (a Pending pod is evicted without asking its budget)
        code, _ = call(server, "PATCH", f"{_PODS}/{name}/status", {"status": {"phase": "Running"}},
                       content_type="application/merge-patch+json")
        assert code == 200
    assert call(server, "POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", _pdb(1))[0] == 201
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "a", "namespace": "default"}}
    code, body = call(server, "POST", f"{_PODS}/a/eviction", eviction)  # status not observed yet
    assert (code, body["reason"]) == (429, "TooManyRequests")
    assert body["details"]["causes"] == [{"reason": "DisruptionBudget",
                                          "message": "The disruption budget budget is still being processed by the server."}]
    _set_pdb_status(server, 1)
    core = client.CoreV1Api(api_client(server))
    core.create_namespaced_pod_eviction("a", "default", eviction, _request_timeout=20)
    assert call(server, "GET", f"{_PODS}/a")[0] == 404
    pdb = call(server, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/budget")[1]
    assert pdb["status"]["disruptionsAllowed"] == 0 and list(pdb["status"]["disruptedPods"]) == ["a"]
    with pytest.raises(ApiException) as info:
        core.create_namespaced_pod_eviction("b", "default", {**eviction, "metadata": {"name": "b"}},
                                            _request_timeout=20)
    assert info.value.status == 429
    code, body = call(server, "POST", f"{_PODS}/b/eviction", {**eviction, "metadata": {"name": "b"}})
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"][0]["message"] == "The disruption budget budget needs 1 healthy pods and has 2 currently"
    assert call(server, "GET", f"{_PODS}/b")[0] == 200
    # a pod no budget covers is simply deleted; a mismatched name is 400
    call(server, "POST", _PODS, _pod("free"))
    assert call(server, "POST", f"{_PODS}/free/eviction", {**eviction, "metadata": {"name": "x"}})[0] == 400
    code, body = call(server, "POST", f"{_PODS}/free/eviction", {**eviction, "metadata": {"name": "free"}})
    assert (code, body["status"]) == (201, "Success") and call(server, "GET", f"{_PODS}/free")[0] == 404


def _deployment(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def test_scale(server: KubesimServer) -> None:
    apps = client.AppsV1Api(api_client(server))
    apps.create_namespaced_deployment("default", _deployment(1), _request_timeout=20)
    scale = apps.read_namespaced_deployment_scale("web", "default", _request_timeout=20)
    assert (scale.spec.replicas, scale.status.selector) == (1, "app=web")
    scale.spec.replicas = 4
    assert apps.replace_namespaced_deployment_scale("web", "default", scale, _request_timeout=20).spec.replicas == 4
    patched = apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 2}}, _request_timeout=20)
    assert patched.spec.replicas == 2
    assert apps.read_namespaced_deployment("web", "default", _request_timeout=20).spec.replicas == 2
    stale = {"apiVersion": "autoscaling/v1", "kind": "Scale",
             "metadata": {"name": "web", "resourceVersion": scale.metadata.resource_version}, "spec": {"replicas": 9}}
    code, body = call(server, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale", stale)
    assert (code, body["reason"]) == (409, "Conflict")
    code, body = call(server, "PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                      {**stale, "metadata": {"name": "web"}, "spec": {"replicas": -1}})
    assert (code, body["details"]["causes"][0]["field"]) == (422, "spec.replicas")
    code, body = call(server, "GET", "/api/v1/namespaces/default/configmaps/x/scale")
    assert code == 404


def test_status_subresource(server: KubesimServer) -> None:
    apps = "/apis/apps/v1/namespaces/default/deployments"
    call(server, "POST", apps, _deployment(1))
    code, body = call(server, "PUT", f"{apps}/web", {**_deployment(3), "status": {"replicas": 7}})
    assert code == 200 and body["spec"]["replicas"] == 3 and "replicas" not in body.get("status", {})
    code, body = call(server, "PATCH", f"{apps}/web/status", {"spec": {"replicas": 9}, "status": {"replicas": 7}},
                      content_type="application/merge-patch+json")
    assert code == 200 and body["status"]["replicas"] == 7 and body["spec"]["replicas"] == 3
    code, body = call(server, "GET", f"{apps}/web/status")
    assert code == 200 and body["status"]["replicas"] == 7
    assert call(server, "PUT", "/api/v1/namespaces/default/configmaps/x/status", {})[0] == 404


_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "pools.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "pools", "singular": "pool", "kind": "Pool"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "subresources": {"status": {}, "scale": {
                               "specReplicasPath": ".spec.size", "statusReplicasPath": ".status.ready",
                               "labelSelectorPath": ".status.selector"}},
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                               "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                               "status": {"type": "object", "properties": {
                                   "ready": {"type": "integer"}, "selector": {"type": "string"}}}}}}}]},
}


def test_scale_of_a_custom_resource(server: KubesimServer, kubectl: str) -> None:
    assert call(server, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", _CRD)[0] == 201
    pools = "/apis/example.com/v1/namespaces/default/pools"
    call(server, "POST", pools, {"apiVersion": "example.com/v1", "kind": "Pool", "metadata": {"name": "p"},
                                 "spec": {"size": 2}})
    call(server, "PATCH", f"{pools}/p/status", {"status": {"ready": 1, "selector": "app=p"}},
         content_type="application/merge-patch+json")
    custom = client.CustomObjectsApi(api_client(server))
    scale = custom.get_namespaced_custom_object_scale("example.com", "v1", "default", "pools", "p",
                                                      _request_timeout=20)
    assert (scale["spec"], scale["status"]) == ({"replicas": 2}, {"replicas": 1, "selector": "app=p"})
    done = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), "--request-timeout=20s",
                           "scale", "pools", "p", "--replicas", "5"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert call(server, "GET", f"{pools}/p")[1]["spec"] == {"size": 5}
    resources = call(server, "GET", "/apis/example.com/v1")[1]["resources"]
    assert {"name": "pools/scale", "group": "autoscaling", "version": "v1", "kind": "Scale"}.items() <= next(
        r for r in resources if r["name"] == "pools/scale").items()
