"""Discovery as kube-apiserver v1.34 serves it: aggregated and legacy documents, health checks,
and kubectl's read paths (api-resources, short names, categories, CRDs registered at run time)."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from kubesim.testing import KubesimServer
from kubesim.testing.watchstream import get

KubectlRun = Callable[..., "subprocess.CompletedProcess[str]"]

_AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
_AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
_KUBECTL_ACCEPT = f"{_AGGREGATED_V2},{_AGGREGATED_V2BETA1},application/json"

_WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wg], categories: [all, toys]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


def _get(server: KubesimServer, path: str, accept: str | None = None) -> tuple[str, Any]:
    content_type, body = get(server.url, path, accept)
    return content_type, json.loads(body)


def _resources(discovery_list: dict[str, Any], group: str) -> dict[str, dict[str, Any]]:
    item = next(i for i in discovery_list["items"] if i["metadata"].get("name", "") == group)
    return {r["resource"]: r for r in item["versions"][0]["resources"]}


def test_aggregated_discovery_of_the_core_group(server: KubesimServer) -> None:
    content_type, body = _get(server, "/api", _KUBECTL_ACCEPT)
    assert content_type == _AGGREGATED_V2
    assert (body["kind"], body["apiVersion"]) == ("APIGroupDiscoveryList", "apidiscovery.k8s.io/v2")
    assert [v["version"] for v in body["items"][0]["versions"]] == ["v1"]
    pods = _resources(body, "")["pods"]
    assert pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}  # as kube-apiserver: same GV
    assert (pods["scope"], pods["singularResource"], pods["shortNames"], pods["categories"]) == \
        ("Namespaced", "pod", ["po"], ["all"])
    assert pods["verbs"] == ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
    subs = {s["subresource"]: s for s in pods["subresources"]}
    assert subs["binding"]["verbs"] == ["create"]
    assert subs["eviction"]["responseKind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}
    assert subs["status"]["verbs"] == ["get", "patch", "update"]
    namespaces = _resources(body, "")["namespaces"]
    assert namespaces["scope"] == "Cluster" and "deletecollection" not in namespaces["verbs"]


def test_aggregated_discovery_of_the_named_groups(server: KubesimServer) -> None:
    content_type, body = _get(server, "/apis", _AGGREGATED_V2BETA1)
    assert content_type == _AGGREGATED_V2BETA1 and body["apiVersion"] == "apidiscovery.k8s.io/v2beta1"
    groups = [i["metadata"]["name"] for i in body["items"]]
    assert "apps" in groups and "" not in groups
    apps = _resources(body, "apps")
    assert apps["deployments"]["shortNames"] == ["deploy"] and apps["deployments"]["categories"] == ["all"]
    scale = next(s for s in apps["deployments"]["subresources"] if s["subresource"] == "scale")
    assert scale["responseKind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    assert next(s for s in apps["deployments"]["subresources"] if s["subresource"] == "status")["responseKind"] == \
        {"group": "", "version": "", "kind": "Deployment"}
    scenarios = _resources(body, "simulation.kube-scheduler-simulator.x-k8s.io")["scenarios"]
    assert (scenarios["scope"], scenarios["singularResource"]) == ("Cluster", "scenario")
    assert scenarios["responseKind"] == {"group": "simulation.kube-scheduler-simulator.x-k8s.io",
                                         "version": "v1alpha1", "kind": "Scenario"}


def test_legacy_discovery_documents(server: KubesimServer) -> None:
    content_type, versions = _get(server, "/api", "application/json")
    assert content_type == "application/json" and versions["kind"] == "APIVersions"
    assert versions["versions"] == ["v1"]
    _, groups = _get(server, "/apis")
    assert groups["kind"] == "APIGroupList"
    names = [g["name"] for g in groups["groups"]]  # kube-apiserver's group priority order, CRD groups last
    assert names.index("apps") < names.index("batch") < names.index("apiextensions.k8s.io") < \
        names.index("simulation.kube-scheduler-simulator.x-k8s.io")
    apps = next(g for g in groups["groups"] if g["name"] == "apps")
    assert apps["preferredVersion"] == {"groupVersion": "apps/v1", "version": "v1"}
    _, group = _get(server, "/apis/apps")
    assert group["kind"] == "APIGroup" and group["name"] == "apps"
    _, core = _get(server, "/api/v1")
    by_name = {r["name"]: r for r in core["resources"]}
    assert by_name["pods"]["shortNames"] == ["po"] and by_name["pods"]["singularName"] == "pod"
    assert by_name["pods/eviction"] == {"name": "pods/eviction", "singularName": "", "namespaced": True,
                                        "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}
    assert by_name["nodes/status"]["verbs"] == ["get", "patch", "update"]
    _, apps_v1 = _get(server, "/apis/apps/v1")
    assert {"deployments", "deployments/scale", "deployments/status"} <= {r["name"] for r in apps_v1["resources"]}


def test_unknown_group_versions_are_not_found(server: KubesimServer) -> None:
    for path in ("/apis/nothing.example.com", "/apis/apps/v9", "/api/v2"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + path, timeout=10)
        assert info.value.code == 404
        assert json.loads(info.value.read())["reason"] == "NotFound"


def test_health_checks_answer_ok(server: KubesimServer) -> None:
    for path in ("/healthz", "/livez", "/readyz", "/livez/ping"):
        with urllib.request.urlopen(server.url + path, timeout=10) as reply:
            assert reply.status == 200 and reply.read() == b"ok"
            assert reply.headers["Content-Type"].startswith("text/plain")
    with urllib.request.urlopen(server.url + "/readyz?verbose", timeout=10) as reply:
        assert reply.read() == b"[+]ping ok\nreadyz check passed\n"


def test_kubectl_api_resources_lists_short_names_and_crds(run_kubectl: KubectlRun) -> None:
    out = run_kubectl("api-resources", "--no-headers").stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert rows["pods"][1] == "po" and rows["deployments"][1] == "deploy"
    assert rows["customresourcedefinitions"][1] == "crd,crds"
    assert rows["scenarios"][-1] == "Scenario"
    namespaced = run_kubectl("api-resources", "--namespaced=false", "-o", "name").stdout.split()
    assert "nodes" in namespaced and "pods" not in namespaced


def test_a_crd_applied_at_run_time_is_discovered(server: KubesimServer, run_kubectl: KubectlRun,
                                                 tmp_path: Any) -> None:
    crd = tmp_path / "crd.yaml"
    crd.write_text(_WIDGET_CRD)
    run_kubectl("apply", "-f", str(crd))
    widget = tmp_path / "widget.yaml"
    widget.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\n"
                      "spec: {size: 3}\n")
    run_kubectl("apply", "-f", str(widget))
    assert run_kubectl("get", "wg", "-o", "name").stdout.split() == ["widget.example.com/w1"]
    assert "widget.example.com/w1" in run_kubectl("get", "toys", "-o", "name").stdout
    out = run_kubectl("api-resources", "--api-group", "example.com", "--no-headers").stdout
    assert out.split() == ["widgets", "wg", "example.com/v1", "true", "Widget"]
    _, body = _get(server, "/apis", _KUBECTL_ACCEPT)
    widgets = _resources(body, "example.com")["widgets"]
    assert (widgets["singularResource"], widgets["shortNames"], widgets["categories"]) == \
        ("widget", ["wg"], ["all", "toys"])
    assert [(s["subresource"], s["responseKind"]["kind"]) for s in widgets["subresources"]] == \
        [("scale", "Scale"), ("status", "Widget")]
    run_kubectl("scale", "widget", "w1", "--replicas=5")  # through the scale subresource discovery lists
    assert run_kubectl("get", "wg", "w1", "-o", "jsonpath={.spec.size}").stdout == "5"
    run_kubectl("delete", "-f", str(crd))
    gone = run_kubectl("get", "widgets", check=False)  # kubectl's discovery cache may still know the kind
    assert gone.returncode != 0
    assert "could not find the requested resource" in gone.stderr or "doesn't have a resource type" in gone.stderr


def test_kubectl_get_all_uses_the_all_category(run_kubectl: KubectlRun, tmp_path: Any) -> None:
    manifest = tmp_path / "objects.yaml"
    manifest.write_text("""\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
""")
    run_kubectl("apply", "-f", str(manifest))
    names = run_kubectl("get", "all", "-o", "name").stdout.split()
    assert "pod/web" in names and "service/web" in names
    assert not any(n.startswith("configmap/") for n in names)


def test_the_python_clients_dynamic_discovery(server: KubesimServer) -> None:
    from kubernetes import config, dynamic

    api = dynamic.DynamicClient(config.new_client_from_config(config_file=str(server.kubeconfig)))
    pods = api.resources.get(api_version="v1", kind="Pod")
    assert (pods.name, pods.namespaced, pods.short_names) == ("pods", True, ["po"])
    deployments = api.resources.get(api_version="apps/v1", kind="Deployment")
    assert deployments.subresources["scale"].kind == "Scale"
    scenarios = api.resources.get(api_version="simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1",
                                  kind="Scenario")
    assert scenarios.name == "scenarios" and not scenarios.namespaced
    assert [i.metadata.name for i in api.get(scenarios).items] == []
    assert "default" in [i.metadata.name for i in api.get(api.resources.get(api_version="v1",
                                                                            kind="Namespace")).items]


def test_aggregated_discovery_etags(server: KubesimServer) -> None:
    request = urllib.request.Request(server.url + "/apis", headers={"Accept": _KUBECTL_ACCEPT})
    with urllib.request.urlopen(request, timeout=10) as reply:
        etag = reply.headers["ETag"]
        assert etag and reply.headers["Vary"] == "Accept"
    request.add_header("If-None-Match", etag)
    with pytest.raises(urllib.error.HTTPError) as info:  # urllib reports a 304 as an error
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 304
