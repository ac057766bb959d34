"""Live mode: between scenarios the installed in-process controllers react to API writes, as on a
real cluster (a ReplicaSet's pods are created by the replicaset controller and bound by the scheduler)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client, config

from kubesim.testing import KubesimServer

WAIT = 30.0


def _node(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _replica_set(replicas: int) -> dict[str, object]:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": "1"}}}]}}}}


def _bound(core: client.CoreV1Api, want: int) -> dict[str, str]:
    """pod name -> node once `want` pods of app=web exist and are all bound (at most WAIT seconds)."""
    deadline = time.monotonic() + WAIT
    while True:
        pods = core.list_namespaced_pod("default", label_selector="app=web", _request_timeout=20).items
        placed = {p.metadata.name: p.spec.node_name for p in pods}
        if len(placed) == want and all(placed.values()):
            return placed
        if time.monotonic() > deadline:
            raise AssertionError(f"after {WAIT}s: {placed}")
        time.sleep(0.05)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[KubesimServer]:
    """A `kubesim serve` in live mode (the default; the shared `server` fixture turns it off)."""
    with KubesimServer(tmp_path) as running:
        yield running


@pytest.mark.needs_plugins
def test_replica_set_pods_are_created_and_scheduled(live_server: KubesimServer) -> None:
    api = config.new_client_from_config(config_file=str(live_server.kubeconfig))
    core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
    for name in ("node-a", "node-b"):
        core.create_node(_node(name), _request_timeout=20)
    # _preload_content=False: a new ReplicaSet has no status.replicas yet, which the client's model requires
    apps.create_namespaced_replica_set("default", _replica_set(6), _request_timeout=20, _preload_content=False)
    placed = _bound(core, 6)
    assert sorted(set(placed.values())) == ["node-a", "node-b"]  # 4 cpus each: both nodes hold some
    apps.patch_namespaced_replica_set("web", "default", {"spec": {"replicas": 8}}, _request_timeout=20,
                                      _preload_content=False)
    assert len(_bound(core, 8)) == 8
    # no room for a ninth pod (8 cpus): it stays pending, the others stay where they were
    apps.patch_namespaced_replica_set("web", "default", {"spec": {"replicas": 9}}, _request_timeout=20,
                                      _preload_content=False)
    deadline = time.monotonic() + WAIT
    while len(core.list_namespaced_pod("default", label_selector="app=web", _request_timeout=20).items) < 9:
        assert time.monotonic() < deadline, "the ninth pod was not created"
        time.sleep(0.05)
    pods = core.list_namespaced_pod("default", label_selector="app=web", _request_timeout=20).items
    assert sum(1 for p in pods if not p.spec.node_name) == 1


def test_no_live_leaves_writes_alone(tmp_path: Path) -> None:
    with KubesimServer(tmp_path, "--no-live") as server:
        api = config.new_client_from_config(config_file=str(server.kubeconfig))
        core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
        core.create_node(_node("node-a"), _request_timeout=20)
        apps.create_namespaced_replica_set("default", _replica_set(2), _request_timeout=20, _preload_content=False)
        time.sleep(1.0)  # time for live mode to act, were it on
        assert core.list_namespaced_pod("default", _request_timeout=20).items == []


@pytest.mark.needs_plugins
def test_kubectl_delete_of_a_running_pod_returns_at_once(live_server: KubesimServer, kubectl: str) -> None:
    """A bound pod's graceful deletion ends in live mode: the clock jumps to its deletionTimestamp
    (the kubelet removes it), so `kubectl delete` (which waits until the pod is gone) returns."""
    api = config.new_client_from_config(config_file=str(live_server.kubeconfig))
    core = client.CoreV1Api(api)
    core.create_node(_node("node-a"), _request_timeout=20)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"terminationGracePeriodSeconds": 45, "containers": [{"name": "c", "image": "x"}]}}
    core.create_namespaced_pod("default", pod, _request_timeout=20)
    deadline = time.monotonic() + WAIT
    while core.read_namespaced_pod_status("p", "default", _request_timeout=20).status.phase != "Running":
        assert time.monotonic() < deadline, "the pod did not start"
        time.sleep(0.05)
    started = time.monotonic()
    done = subprocess.run([kubectl, "--kubeconfig", str(live_server.kubeconfig), "--request-timeout=20s",
                           "delete", "pod", "p", "--timeout=20s"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and 'pod "p" deleted' in done.stdout, done.stderr
    assert time.monotonic() - started < 10
    assert core.list_namespaced_pod("default", _request_timeout=20).items == []
