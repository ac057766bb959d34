"""End-to-end: `kubesim capacity --kubeconfig` on a live cluster (`kubesim serve`, written by the
official `kubernetes` client) gives the answer computed by hand, and bad kubeconfigs exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config

from kubesim.testing import KubesimRun, KubesimServer

from .cases import node, pod, write

RunKubesim = Callable[..., KubesimRun]
TIMEOUT = 20


@pytest.fixture
def live(tmp_path: Path) -> Iterator[KubesimServer]:
    """n1 (4 cpu, 1 used by a bound pod), n2 (2 cpu, tainted), and a pending pod of 1 cpu."""
    with KubesimServer(tmp_path, "--no-live") as server:
        api = config.new_client_from_config(config_file=str(server.kubeconfig))
        core = client.CoreV1Api(api)
        opts: dict[str, Any] = {"_request_timeout": TIMEOUT, "_preload_content": False}
        core.create_node(node("n1", cpu="4"), **opts)
        core.create_node(node("n2", cpu="2", taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]),
                         **opts)
        core.create_namespaced_pod("default", pod("busy", cpu="1", node_name="n1"), **opts)
        core.create_namespaced_pod("default", pod("waiting", cpu="1"), **opts)
        api.close()
        yield server


@pytest.mark.needs_plugins
def test_pod_copies_on_a_live_cluster(run_kubesim: RunKubesim, live: KubesimServer, tmp_path: Path) -> None:
    # n1: 4 cpu - 1 (busy) = 3 -> 6 copies of 500m; n2's taint is not tolerated. The pending pod is
    # not counted as placed: cluster-capacity only adds copies to what is bound.
    write(tmp_path / "pod.json", pod("web"))
    run = run_kubesim("capacity", "--kubeconfig", str(live.kubeconfig), "--pod", "pod.json", "-o", "json")
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["replicas"] == 6
    assert {r["nodeName"]: r["replicas"] for r in answer["replicasOnNodes"]} == {"n1": 6}
    assert "1 node(s) had untolerated taint {gpu: yes}" in answer["failReason"]["failMessage"]


@pytest.mark.needs_plugins
def test_add_nodes_on_a_live_cluster(run_kubesim: RunKubesim, live: KubesimServer, tmp_path: Path) -> None:
    # the pending pod fits on n1 already: with 8 copies of 1 cpu besides it, n1 takes 2 more (3 free)
    # and each 2-cpu template node takes 2: (1 + 8 - 3) / 2 = 3 nodes
    write(tmp_path / "node.json", node("template", cpu="2"))
    write(tmp_path / "pod.json", pod("batch", cpu="1"))
    run = run_kubesim("capacity", "--kubeconfig", str(live.kubeconfig), "--add-nodes", "node.json",
                      "--pod", "pod.json", "--count", "8", "-o", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["nodesToAdd"] == 3, run.stdout


@pytest.mark.parametrize("args, message", [
    (("--kubeconfig", "missing-kubeconfig"), "missing-kubeconfig"),
    (("--cluster", "c.json", "--kubeconfig", "k"), "not both"),
    ((), "give the cluster: --cluster FILE, or --kubeconfig/--context"),
])
def test_bad_cluster_source(run_kubesim: RunKubesim, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    write(tmp_path / "pod.json", pod("web"))
    run = run_kubesim("capacity", *args, "--pod", "pod.json")
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert message in run.stderr
    assert "Traceback" not in run.stderr
