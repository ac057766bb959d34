"""Record a live cluster (`kubesim serve`) whose scheduler spreads pods, replay the recording with
a bin-packing configuration, and `kubesim compare --recorded` shows where the two differ: per pod
created while recording, and per workload and node at the end, against what the server reports."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config

from kubesim.testing import KubesimServer
from kubesim.testing.cli import kubesim_command

from .test_record_e2e import _node, _pod, _wait_bound

pytestmark = pytest.mark.needs_plugins  # runs the scheduler (and kubelet) plugins

WAIT = 30.0
REPO = Path(__file__).resolve().parents[3]
MOST_ALLOCATED = REPO / "examples" / "compare" / "most-allocated.yaml"


def _deployment(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": "500m"}}}]}}}}


def _running(core: client.CoreV1Api) -> dict[tuple[str, str], int]:
    """(workload, node) -> running pods, as the server lists them (a Deployment's pods by its name)."""
    counts: Counter[tuple[str, str]] = Counter()
    for pod in core.list_namespaced_pod("default", _request_timeout=20).items:
        if not pod.spec.node_name or pod.metadata.deletion_timestamp:
            continue
        app = (pod.metadata.labels or {}).get("app")
        workload = f"Deployment default/{app}" if app else f"Pod default/{pod.metadata.name}"
        counts[(workload, pod.spec.node_name)] += 1
    return dict(counts)


def _wait_replicas(apps: client.AppsV1Api, name: str, replicas: int) -> None:
    deadline = time.monotonic() + WAIT
    while (apps.read_namespaced_deployment(name, "default", _request_timeout=20).status.ready_replicas or 0) < replicas:
        assert time.monotonic() < deadline, f"deployment {name} did not get {replicas} ready replicas"
        time.sleep(0.05)


def test_replay_with_another_configuration_against_the_recording(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    kubesim = str(kubesim_command())
    env = {**os.environ, "NO_COLOR": "1"}
    with KubesimServer(tmp_path / "server") as server:
        api = config.new_client_from_config(config_file=str(server.kubeconfig))
        core, apps = client.CoreV1Api(api), client.AppsV1Api(api)
        for name in ("n1", "n2", "n3"):
            core.create_node(_node(name), _request_timeout=20)
        out = tmp_path / "recorded.yaml"
        recorder = subprocess.Popen([kubesim, "record", "--kubeconfig", str(server.kubeconfig), "--duration", "4s",
                                     "--step-duration", "1s", "-o", str(out)],
                                    stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert recorder.stderr is not None
            assert recorder.stderr.readline().startswith("recording: ")
            apps.create_namespaced_deployment("default", _deployment("web", 4), _request_timeout=20)
            real = {}
            for name in ("a", "b", "c"):
                core.create_namespaced_pod("default", _pod(name, cpu="1"), _request_timeout=20)
                real[name] = _wait_bound(core, name)
            _wait_replicas(apps, "web", 4)
            recorded_running = _running(core)
            rest = recorder.stderr.read()
            assert recorder.wait(timeout=WAIT) == 0, rest
        finally:
            if recorder.poll() is None:
                recorder.kill()
        api.close()
    # the live scheduler spreads (LeastAllocated); the replay packs (MostAllocated)
    assert len(set(real.values())) > 1, real
    result = tmp_path / "replay.json"
    done = subprocess.run([kubesim, "run", str(out), "-q", "-o", str(result), "--scheduler-config", str(MOST_ALLOCATED)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run([kubesim, "compare", "--recorded", str(result), "--json"],
                           capture_output=True, text=True, timeout=120, env=env)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    pods = {r["name"]: r for r in data["pods"]}
    assert {n: r["recorded_node"] for n, r in pods.items()} == real
    assert len({r["simulated_node"] for r in pods.values()}) == 1  # packed on one node
    same = sum(1 for n, r in pods.items() if r["simulated_node"] == real[n])
    assert data["summary"]["same_node"] == same and data["summary"]["another_node"] == 3 - same
    recorded = {(r["workload"], r["node"]): r["recorded"] for r in data["workloads"] if r["recorded"]}
    assert recorded == recorded_running
    simulated = Counter()
    for r in data["workloads"]:
        simulated[r["workload"]] += r["simulated"]
    assert simulated == {"Deployment default/web": 4, "Pod default/a": 1, "Pod default/b": 1, "Pod default/c": 1}
    # the terminal view says the same in words
    table = subprocess.run([kubesim, "compare", "--recorded", str(result)], capture_output=True, text=True,
                           timeout=120, env={**env, "COLUMNS": "160"})
    assert table.returncode == 0, table.stderr
    assert f"{3 - same} on another node" in table.stdout
    assert "Workloads with other pod counts per node" in table.stdout


def test_a_result_that_is_not_a_replay_is_refused(tmp_path: Path) -> None:
    kubesim = str(kubesim_command())
    result = tmp_path / "r.json"
    done = subprocess.run([kubesim, "run", str(REPO / "examples" / "quickstart" / "scenario.yaml"), "-q", "-o",
                           str(result)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run([kubesim, "compare", "--recorded", str(result)], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 2
    assert "metadata.annotations['record.kubesim.io/placements']: missing" in shown.stderr
    assert "Traceback" not in shown.stderr
    both = subprocess.run([kubesim, "compare", "--recorded", str(result), str(result)], capture_output=True,
                          text=True, timeout=120)
    assert both.returncode == 2 and "--recorded takes one result file" in both.stderr
