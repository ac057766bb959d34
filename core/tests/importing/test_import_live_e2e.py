"""`kubesim import` from a live cluster: `kubesim serve` with objects written by the official
`kubernetes` client; the import equals the import of the same objects listed into a file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config

from kubesim.testing import KubesimServer, namespace, node, pod, priority_class
from kubesim.testing.cli import KubesimRun

TIMEOUT = 20
SECRET_VALUE = "bGl2ZS1zZWNyZXQtdmFsdWU="
CONFIG_VALUE = "live-config-value-never-copied"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[KubesimServer]:
    """A server whose controllers do not react to writes: it holds what the test wrote."""
    with KubesimServer(tmp_path, "--no-live") as server:
        api = config.new_client_from_config(config_file=str(server.kubeconfig))
        core = client.CoreV1Api(api)
        opts: dict[str, Any] = {"_request_timeout": TIMEOUT, "_preload_content": False}
        core.create_namespace(namespace("team-a"), **opts)
        client.SchedulingV1Api(api).create_priority_class(priority_class("high", 1000), **opts)
        for name, cpu in (("node-1", "2"), ("node-2", "3")):
            core.create_node(node(name, cpu=cpu, labels={"kubernetes.io/hostname": name}), **opts)
        core.create_namespaced_pod("team-a", pod("web-1", namespace="team-a", cpu="1", node_name="node-1",
                                                 labels={"app": "web"}), **opts)
        core.create_namespaced_pod("team-a", pod("web-2", namespace="team-a", cpu="1", labels={"app": "web"},
                                                 priority_class_name="high"), **opts)
        core.create_namespaced_pod("default", pod("other", cpu="3", node_name="node-2"), **opts)
        core.create_namespaced_secret("team-a", {"metadata": {"name": "token"}, "data": {"t": SECRET_VALUE}}, **opts)
        core.create_namespaced_config_map("team-a", {"metadata": {"name": "cfg"}, "data": {"k": CONFIG_VALUE}},
                                          **opts)
        client.PolicyV1Api(api).create_namespaced_pod_disruption_budget(
            "team-a", {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
                       "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}, **opts)
        api.close()
        yield server


def _dump(server: KubesimServer, path: Path) -> None:
    """What `kubectl get ... -A -o json` writes for the imported kinds: one List."""
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    core, custom = client.CoreV1Api(api), client.CustomObjectsApi(api)
    opts: dict[str, Any] = {"_request_timeout": TIMEOUT, "_preload_content": False}
    items = []
    for kind, call in (("Namespace", core.list_namespace), ("Node", core.list_node),
                       ("Pod", core.list_pod_for_all_namespaces), ("Secret", core.list_secret_for_all_namespaces),
                       ("ConfigMap", core.list_config_map_for_all_namespaces)):
        items += [{"apiVersion": "v1", "kind": kind, **o} for o in json.loads(call(**opts).data)["items"]]
    for group, plural, kind in (("scheduling.k8s.io", "priorityclasses", "PriorityClass"),
                                ("policy", "poddisruptionbudgets", "PodDisruptionBudget")):
        listed = json.loads(custom.list_cluster_custom_object(group, "v1", plural, **opts).data)["items"]
        items += [{"apiVersion": f"{group}/v1", "kind": kind, **o} for o in listed]
    api.close()
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")


def _imported(result: KubesimRun, path: Path) -> list[dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    return [op["createOperation"]["object"] for op in yaml.safe_load(path.read_text())["spec"]["operations"]
            if "createOperation" in op]


@pytest.mark.needs_plugins
def test_live_import_equals_the_import_of_its_dump(live: KubesimServer, run_kubesim: Any, tmp_path: Path) -> None:
    kubeconfig = str(live.kubeconfig)
    objs = _imported(run_kubesim("import", "--kubeconfig", kubeconfig, "-o", "live.yaml"), tmp_path / "live.yaml")
    _dump(live, tmp_path / "dump.json")
    _imported(run_kubesim("import", "--from", "dump.json", "-o", "file.yaml"), tmp_path / "file.yaml")
    assert (tmp_path / "live.yaml").read_text() == (tmp_path / "file.yaml").read_text()
    assert [(o["kind"], o["metadata"]["name"]) for o in objs] == [
        ("Namespace", "team-a"), ("PriorityClass", "high"), ("Node", "node-1"), ("Node", "node-2"),
        ("PodDisruptionBudget", "web"), ("Pod", "other"), ("Pod", "web-1"), ("Pod", "web-2")]
    text = (tmp_path / "live.yaml").read_text()
    assert SECRET_VALUE not in text and CONFIG_VALUE not in text and "kind: Secret" not in text
    # the scenario reproduces the cluster: bound pods where they were, the pending one placed by the scheduler
    replay = run_kubesim("run", "live.yaml", "--export-cluster", "replayed.yaml")
    assert replay.returncode == 0, replay.stderr
    placed = {o["metadata"]["name"]: o["spec"].get("nodeName") for o in replay.exported if o["kind"] == "Pod"}
    assert placed == {"other": "node-2", "web-1": "node-1", "web-2": "node-1"}  # node-2 is full


def test_namespace_and_selector_limit_namespaced_objects(live: KubesimServer, run_kubesim: Any,
                                                         tmp_path: Path) -> None:
    kubeconfig = str(live.kubeconfig)
    by_ns = _imported(run_kubesim("import", "--kubeconfig", kubeconfig, "-n", "team-a", "-o", "ns.yaml"),
                      tmp_path / "ns.yaml")
    assert [(o["kind"], o["metadata"]["name"]) for o in by_ns] == [
        ("Namespace", "team-a"), ("PriorityClass", "high"), ("Node", "node-1"), ("Node", "node-2"),
        ("PodDisruptionBudget", "web"), ("Pod", "web-1"), ("Pod", "web-2")]
    by_label = _imported(run_kubesim("import", "--kubeconfig", kubeconfig, "-l", "app=web", "-o", "l.yaml"),
                         tmp_path / "l.yaml")
    assert [o["metadata"]["name"] for o in by_label if o["kind"] == "Pod"] == ["web-1", "web-2"]
    assert not [o for o in by_label if o["kind"] == "PodDisruptionBudget"]  # it has no app=web label


def test_unreachable_cluster_and_bad_kubeconfig(run_kubesim: Any, tmp_path: Path) -> None:
    kubeconfig = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
                  "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
                  "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                  "users": [{"name": "u", "user": {"token": "t"}}]}
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(kubeconfig))
    down = run_kubesim("import", "--kubeconfig", "kubeconfig", timeout=120)
    assert down.returncode == 1 and "error: cannot reach the API server" in down.stderr, down.stderr
    wrong = run_kubesim("import", "--kubeconfig", "kubeconfig", "--context", "nope")
    assert wrong.returncode == 2 and "error: kubeconfig kubeconfig:" in wrong.stderr, wrong.stderr
    assert "nope" in wrong.stderr


def test_lists_are_read_page_by_page(tmp_path: Path, run_kubesim: Any) -> None:
    with KubesimServer(tmp_path, "--no-live") as server:
        api = config.new_client_from_config(config_file=str(server.kubeconfig))
        core = client.CoreV1Api(api)
        for i in range(510):  # more than a page (PAGE_SIZE 500)
            core.create_node(node(f"node-{i:03}"), _request_timeout=TIMEOUT, _preload_content=False)
        api.close()
        objs = _imported(run_kubesim("import", "--kubeconfig", str(server.kubeconfig), "-o", "s.yaml"),
                         tmp_path / "s.yaml")
    assert [o["metadata"]["name"] for o in objs] == [f"node-{i:03}" for i in range(510)]
