"""`kubesim serve` answers the official `kubernetes` client and kubectl: CRUD and Status errors."""

from __future__ import annotations

import subprocess

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from kubesim.testing import KubesimServer


def _api(server: KubesimServer) -> client.ApiClient:
    return config.new_client_from_config(config_file=str(server.kubeconfig))


def test_python_client_creates_reads_lists_and_deletes(server: KubesimServer) -> None:
    core = client.CoreV1Api(_api(server))
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    created = core.create_namespaced_pod("team-a", pod)
    assert created.metadata.namespace == "team-a" and created.metadata.uid
    assert core.read_namespaced_pod("p1", "team-a").spec.containers[0].image == "x"
    listed = core.list_pod_for_all_namespaces(label_selector="app=web")
    assert [p.metadata.name for p in listed.items] == ["p1"]
    assert int(listed.metadata.resource_version) >= int(created.metadata.resource_version)
    core.delete_namespaced_pod("p1", "team-a")
    with pytest.raises(ApiException) as info:
        core.read_namespaced_pod("p1", "team-a")
    assert info.value.status == 404
    assert '"reason":"NotFound"' in info.value.body


def test_errors_are_status_objects(server: KubesimServer) -> None:
    core = client.CoreV1Api(_api(server))
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dup"}}
    core.create_namespace(ns)
    with pytest.raises(ApiException) as info:
        core.create_namespace(ns)
    assert info.value.status == 409 and '"reason":"AlreadyExists"' in info.value.body
    with pytest.raises(ApiException) as info:
        core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "Bad_Name"}})
    assert info.value.status == 422 and '"reason":"Invalid"' in info.value.body


def test_requests_without_the_token_are_refused_off_loopback_only(server: KubesimServer) -> None:
    import json
    import urllib.error
    import urllib.request

    with urllib.request.urlopen(f"{server.url}/api/v1/namespaces", timeout=10) as reply:  # loopback: no token needed
        assert json.load(reply)["kind"] == "NamespaceList"
    request = urllib.request.Request(f"{server.url}/api/v1/namespaces", headers={"Authorization": "Bearer wrong"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 401


def test_kubectl_applies_and_gets(server: KubesimServer, kubectl: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    manifest = tmp_path / "ns.yaml"
    manifest.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: from-kubectl\n")
    base = [kubectl, "--kubeconfig", str(server.kubeconfig)]
    applied = subprocess.run([*base, "apply", "-f", str(manifest)], capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stderr
    got = subprocess.run([*base, "get", "namespace", "from-kubectl", "-o", "jsonpath={.metadata.name}"],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0 and got.stdout == "from-kubectl", got.stderr
