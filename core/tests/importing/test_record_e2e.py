"""`kubesim record` against a live `kubesim serve`: changes made by a client while it records
become operations on the steps of their wall time, and the recording replays with `kubesim run`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config

from kubesim.testing import KubesimServer
from kubesim.testing.cli import kubesim_command

pytestmark = pytest.mark.needs_plugins  # runs the scheduler (and kubelet) plugins

WAIT = 30.0


def _node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, cpu: str = "1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}


def _wait_bound(core: client.CoreV1Api, name: str) -> str:
    deadline = time.monotonic() + WAIT
    while True:
        node = core.read_namespaced_pod(name, "default", _request_timeout=20).spec.node_name
        if node:
            return str(node)
        assert time.monotonic() < deadline, f"{name} was not bound"
        time.sleep(0.05)


def _ops(scenario: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    out = []
    for op in scenario["spec"]["operations"]:
        kind = next(k for k in op if k.endswith("Operation"))
        body = op[kind]
        obj = body.get("object") or {}
        name = (obj.get("metadata") or body.get("objectMeta") or {}).get("name", "")
        out.append((op["step"], kind, obj.get("kind") or (body.get("typeMeta") or {}).get("kind", ""), name))
    return out


def test_record_a_live_cluster_and_replay_it(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    with KubesimServer(tmp_path / "server") as server:
        core = client.CoreV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))
        for name in ("n1", "n2"):
            core.create_node(_node(name), _request_timeout=20)
        core.create_namespaced_pod("default", _pod("before"), _request_timeout=20)
        before_node = _wait_bound(core, "before")
        out = tmp_path / "recorded.yaml"
        recorder = subprocess.Popen(
            [str(kubesim_command()), "record", "--kubeconfig", str(server.kubeconfig), "--duration", "6s",
             "--step-duration", "2s", "-o", str(out)],
            stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"})
        try:
            assert recorder.stderr is not None
            first = recorder.stderr.readline()  # the watches run from here on
            assert first.startswith("recording: "), first
            core.create_namespaced_pod("default", _pod("during"), _request_timeout=20)
            during_node = _wait_bound(core, "during")
            core.delete_namespaced_pod("before", "default", _request_timeout=20)
            core.patch_node("n2", {"metadata": {"labels": {"pool": "b"}}}, _request_timeout=20)
            rest = recorder.stderr.read()
            assert recorder.wait(timeout=WAIT) == 0, rest
        finally:
            if recorder.poll() is None:
                recorder.kill()
    scenario = yaml.safe_load(out.read_text())
    ops = _ops(scenario)
    assert (0, "createOperation", "Pod", "before") in ops and (0, "createOperation", "Node", "n2") in ops
    later = [op for op in ops if op[0] > 0]
    # the graceful delete ends (DELETED) when the kubelet removes the pod: before or after the label
    assert later[0][1:] == ("createOperation", "Pod", "during") and later[-1][1:] == ("doneOperation", "", ""), ops
    assert sorted(op[1:] for op in later[1:-1]) == [("deleteOperation", "Pod", "before"),
                                                    ("patchOperation", "Node", "n2")], ops
    assert all(1 <= op[0] <= 4 for op in later), [op for op in ops if op[0] > 0]
    created = next(op["createOperation"]["object"] for op in scenario["spec"]["operations"]
                   if op.get("createOperation", {}).get("object", {}).get("metadata", {}).get("name") == "during")
    assert "nodeName" not in created["spec"]  # the replay's scheduler decides
    assert created["metadata"]["annotations"]["record.kubesim.io/node"] == during_node
    before = next(op["createOperation"]["object"] for op in scenario["spec"]["operations"]
                  if op.get("createOperation", {}).get("object", {}).get("metadata", {}).get("name") == "before")
    assert before["spec"]["nodeName"] == before_node  # the initial state keeps its placement
    patch = next(op["patchOperation"] for op in scenario["spec"]["operations"] if "patchOperation" in op and op["step"])
    assert json.loads(patch["patch"]) == {"metadata": {"labels": {"pool": "b"}}}
    # the recording replays: the pod created while recording is scheduled by kubesim's scheduler
    result = tmp_path / "replay.json"
    done = subprocess.run([str(kubesim_command()), "run", str(out), "-q", "-o", str(result)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"during"' in result.read_text()


def test_an_interrupted_recording_keeps_what_it_recorded(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    with KubesimServer(tmp_path / "server") as server:
        core = client.CoreV1Api(config.new_client_from_config(config_file=str(server.kubeconfig)))
        core.create_node(_node("n1"), _request_timeout=20)
        out = tmp_path / "recorded.yaml"
        recorder = subprocess.Popen(
            [str(kubesim_command()), "record", "--kubeconfig", str(server.kubeconfig), "--duration", "10m",
             "-o", str(out)], stderr=subprocess.PIPE, text=True)
        try:
            assert recorder.stderr is not None
            assert recorder.stderr.readline().startswith("recording: ")
            core.create_namespaced_pod("default", _pod("during"), _request_timeout=20)
            _wait_bound(core, "during")
            time.sleep(0.5)  # the event reaches the recorder
            recorder.send_signal(signal.SIGINT)
            rest = recorder.stderr.read()
            assert recorder.wait(timeout=WAIT) == 1, rest
        finally:
            if recorder.poll() is None:
                recorder.kill()
    assert "the recording was interrupted" in rest and "Traceback" not in rest, rest
    ops = _ops(yaml.safe_load(out.read_text()))
    assert (1, "createOperation", "Pod", "during") in ops and ops[-1][1] == "doneOperation", ops
