"""OpenAPI v2 and v3 as kube-apiserver serves them, enough for kubectl's explain, validation and apply."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from typing import Any

from kubesim.testing import KubesimServer
from kubesim.testing.watchstream import get

KubectlRun = Callable[..., "subprocess.CompletedProcess[str]"]

_SCENARIO_GV = "apis/simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
_SMP = "application/strategic-merge-patch+json"

_GADGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the gadget should do.
            properties:
              power: {type: integer, description: Watts drawn by the gadget.}
"""


def _fetch(server: KubesimServer, path: str, accept: str = "application/json") -> tuple[str, bytes]:
    return get(server.url, path, accept, timeout=30)


def _v3(server: KubesimServer, gv: str) -> dict[str, Any]:
    index = json.loads(_fetch(server, "/openapi/v3")[1])
    url = index["paths"][gv]["serverRelativeURL"]
    assert url.startswith(f"/openapi/v3/{gv}?hash=")
    doc: dict[str, Any] = json.loads(_fetch(server, url)[1])
    return doc


def _patch_of(doc: dict[str, Any], path: str) -> dict[str, Any]:
    op: dict[str, Any] = doc["paths"][path]["patch"]
    return op


def test_openapi_v3_documents_of_built_in_kinds(server: KubesimServer) -> None:
    doc = _v3(server, "api/v1")
    assert doc["openapi"].startswith("3.")
    pod = doc["components"]["schemas"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    containers = doc["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert containers["x-kubernetes-patch-merge-key"] == "name"
    assert containers["items"]["$ref"] == "#/components/schemas/io.k8s.api.core.v1.Container"
    patch = _patch_of(doc, "/api/v1/namespaces/{namespace}/pods/{name}")
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert {"name": "fieldValidation", "in": "query"}.items() <= next(
        p for p in patch["parameters"] if p["name"] == "fieldValidation").items()
    assert _SMP in patch["requestBody"]["content"]
    assert "/api/v1/nodes/{name}" in doc["paths"]


def test_openapi_v3_documents_of_crds(server: KubesimServer, run_kubectl: KubectlRun, tmp_path: Any) -> None:
    doc = _v3(server, _SCENARIO_GV)
    name = "io.x-k8s.kube-scheduler-simulator.simulation.v1alpha1.Scenario"
    scenario = doc["components"]["schemas"][name]
    assert scenario["x-kubernetes-group-version-kind"] == [
        {"group": "simulation.kube-scheduler-simulator.x-k8s.io", "version": "v1alpha1", "kind": "Scenario"}]
    assert scenario["properties"]["metadata"]["$ref"] == \
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in doc["components"]["schemas"]
    patch = _patch_of(doc, f"/{_SCENARIO_GV}/scenarios/{{name}}")
    assert _SMP not in patch["requestBody"]["content"]  # custom resources take merge patches, not strategic
    index = json.loads(_fetch(server, "/openapi/v3")[1])["paths"]
    assert "apis/example.com/v1" not in index
    crd = tmp_path / "crd.yaml"
    crd.write_text(_GADGET_CRD)
    run_kubectl("apply", "-f", str(crd))
    gadget = _v3(server, "apis/example.com/v1")["components"]["schemas"]["com.example.v1.Gadget"]
    assert gadget["properties"]["spec"]["properties"]["power"]["description"] == "Watts drawn by the gadget."


def test_openapi_v2_is_json_and_protobuf_requests_get_a_schemaless_document(server: KubesimServer) -> None:
    content_type, raw = _fetch(server, "/openapi/v2")
    assert content_type == "application/json"
    doc = json.loads(raw)
    assert doc["swagger"] == "2.0" and "x-kubesim-go-types" not in doc
    assert "io.k8s.api.apps.v1.Deployment" in doc["definitions"]
    assert "io.x-k8s.kube-scheduler-simulator.simulation.v1alpha1.Scenario" in doc["definitions"]
    content_type, raw = _fetch(server, "/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
    assert content_type == "application/octet-stream" and raw == b"\x0a\x032.0"


def test_kubectl_explain_built_in_and_custom_kinds(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    out = run_kubectl("explain", "pod.spec.containers").stdout
    assert "FIELD: containers <[]Container>" in out and "List of containers belonging to the pod." in out
    assert "KIND:       Scenario" in run_kubectl("explain", "scenarios").stdout
    crd = tmp_path / "crd.yaml"
    crd.write_text(_GADGET_CRD)
    run_kubectl("apply", "-f", str(crd))
    out = run_kubectl("explain", "gadget.spec.power").stdout
    assert "FIELD: power <integer>" in out and "Watts drawn by the gadget." in out


def test_kubectl_apply_validates_on_the_server_and_patches_strategically(run_kubectl: KubectlRun,
                                                                         tmp_path: Any) -> None:
    manifest = tmp_path / "deploy.yaml"
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "app:IMAGE"}
      - {name: sidecar, image: proxy}
"""
    manifest.write_text(deployment.replace("IMAGE", "1"))
    first = run_kubectl("apply", "-f", str(manifest), "-v=6")
    assert "deployment.apps/web created" in first.stdout
    assert "fieldValidation=Strict" in first.stderr  # the server validates (kubectl read that from OpenAPI v3)
    manifest.write_text(deployment.replace("IMAGE", "2"))
    second = run_kubectl("apply", "-f", str(manifest), "-v=8")
    assert "deployment.apps/web configured" in second.stdout
    assert f"Content-Type: {_SMP}" in second.stderr and "warning" not in second.stderr.lower()
    images = run_kubectl("get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].image}")
    assert images.stdout == "app:2 proxy"
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: default}\nbogus: 1\n")
    refused = run_kubectl("apply", "-f", str(bad), check=False)
    assert refused.returncode != 0 and 'unknown field "bogus"' in refused.stderr


def test_kubectl_apply_merge_patches_custom_resources(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    crd = tmp_path / "crd.yaml"
    crd.write_text(_GADGET_CRD)
    run_kubectl("apply", "-f", str(crd))
    gadget = tmp_path / "gadget.yaml"
    gadget.write_text("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {power: 5}\n")
    run_kubectl("apply", "-f", str(gadget))
    gadget.write_text("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {power: 7}\n")
    second = run_kubectl("apply", "-f", str(gadget), "-v=8")
    assert "gadget.example.com/g1 configured" in second.stdout
    assert "Content-Type: application/merge-patch+json" in second.stderr  # custom resources: no strategic merge
    assert run_kubectl("get", "gadget", "g1", "-o", "jsonpath={.spec.power}").stdout == "7"
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g2}\nspec: {volts: 5}\n")
    refused = run_kubectl("apply", "-f", str(bad), check=False)
    assert refused.returncode != 0 and 'unknown field "spec.volts"' in refused.stderr


def test_openapi_caching_headers(server: KubesimServer) -> None:
    import http.client
    import urllib.parse

    index = json.loads(_fetch(server, "/openapi/v3")[1])["paths"]
    current = index["api/v1"]["serverRelativeURL"]
    address = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=30)
    try:
        connection.request("GET", current)
        reply = connection.getresponse()
        reply.read()
        etag = reply.getheader("ETag")
        assert reply.status == 200 and reply.getheader("Cache-Control") == "public, immutable"
        assert etag == f'"{current.split("hash=")[1]}"'
        connection.request("GET", current, headers={"If-None-Match": etag})
        reply = connection.getresponse()
        assert (reply.status, reply.read()) == (304, b"")
        connection.request("GET", "/openapi/v3/api/v1?hash=STALE")
        reply = connection.getresponse()
        reply.read()
        assert (reply.status, reply.getheader("Location")) == (301, current)
    finally:
        connection.close()
