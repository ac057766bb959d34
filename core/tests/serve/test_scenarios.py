"""Scenarios over the API (KEP-140) on a real `kubesim serve`, driven by kubectl and the Python client:
queued, run on the served cluster (timeline byte-identical to `kubesim run`), paused and resumed
by a patch, past-step additions refused, done, deleted, failed without harming the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from kubesim.testing import KubesimServer
from kubesim.testing.cli import run_kubesim

GROUP, VERSION, PLURAL = "simulation.kube-scheduler-simulator.x-k8s.io", "v1alpha1", "scenarios"
QUICKSTART = Path(__file__).parents[3] / "examples" / "quickstart" / "scenario.yaml"
WAIT = 30.0


def kubectl_run(kubectl: str, server: KubesimServer, *args: str, check: bool = True,
                stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """kubectl against the server, bounded in time."""
    proc = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), "--request-timeout=20s", *args],
                          capture_output=True, text=True, timeout=60, input=stdin, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def scenarios_api(server: KubesimServer) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(config.new_client_from_config(config_file=str(server.kubeconfig)))


def get_scenario(api: client.CustomObjectsApi, name: str) -> dict[str, Any]:
    obj: dict[str, Any] = api.get_cluster_custom_object(GROUP, VERSION, PLURAL, name, _request_timeout=20)
    return obj


def wait_phase(api: client.CustomObjectsApi, name: str, *phases: str, timeout: float = WAIT) -> dict[str, Any]:
    """The Scenario once its status.phase is one of `phases` (polled, at most `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        obj = get_scenario(api, name)
        phase = (obj.get("status") or {}).get("phase")
        if phase in phases:
            return obj
        if time.monotonic() > deadline:
            raise AssertionError(f"Scenario {name}: phase {phase!r} after {timeout}s, expected {phases}: "
                                 f"{json.dumps(obj.get('status'))[:2000]}")
        time.sleep(0.05)


def node(name: str, step: int, cpu: str = "4") -> dict[str, Any]:
    return {"step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                   "capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]}}}}


def pod(name: str, step: int) -> dict[str, Any]:
    return {"step": step, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}}}


def scenario(name: str, *operations: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Scenario", "metadata": {"name": name},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                     "operations": list(operations)}}


@pytest.mark.needs_plugins
def test_timeline_is_byte_identical_to_kubesim_run(server: KubesimServer, kubectl: str, tmp_path: Path) -> None:
    # kubectl sends objects with their keys sorted (Go maps): so does this file, for `kubesim run` too
    source = tmp_path / "quickstart.json"
    source.write_text(json.dumps(yaml.safe_load(QUICKSTART.read_text()), sort_keys=True))
    kubectl_run(kubectl, server, "create", "--validate=false", "-f", str(source))
    served = wait_phase(scenarios_api(server), "quickstart", "Succeeded", "Failed")
    assert served["status"]["phase"] == "Succeeded", served["status"]
    ran = run_kubesim("run", "-o", "run.json", str(source), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    expected = json.loads((tmp_path / "run.json").read_text())["status"]["scenarioResult"]["timeline"]
    # raw HTTP: the Python client's deserialization does not keep the keys' order
    with urllib.request.urlopen(f"{server.url}/apis/{GROUP}/{VERSION}/{PLURAL}/quickstart", timeout=20) as reply:
        got = json.load(reply)["status"]["scenarioResult"]["timeline"]
    assert sum(len(events) for events in got.values()) >= 5
    assert json.dumps(got, indent=2) == json.dumps(expected, indent=2)


@pytest.mark.needs_plugins
def test_paused_scenario_resumes_on_patch_and_done_succeeds(server: KubesimServer, kubectl: str) -> None:
    api = scenarios_api(server)
    kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false",
                stdin=json.dumps(scenario("story", node("node-a", 0), pod("p1", 1))))
    paused = wait_phase(api, "story", "Paused")
    assert paused["status"]["stepStatus"]["step"]["major"] == 1
    # kubectl patch --type merge replaces the whole list: the operations so far, then new ones
    ops = paused["spec"]["operations"] + [pod("p2", 2), {"step": 3, "doneOperation": {}}]
    kubectl_run(kubectl, server, "patch", "scenario", "story", "--type", "merge",
                "-p", json.dumps({"spec": {"operations": ops}}))
    done = wait_phase(api, "story", "Succeeded")
    assert done["status"]["stepStatus"]["step"]["major"] == 3
    timeline = done["status"]["scenarioResult"]["timeline"]
    assert any(e.get("podScheduled", {}).get("pod", {}).get("metadata", {}).get("name") == "p2"
               for e in timeline["2"]), timeline["2"]
    pods = kubectl_run(kubectl, server, "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}").stdout.split()
    assert pods == ["node-a", "node-a"]


@pytest.mark.needs_plugins
def test_operations_for_past_steps_are_rejected(server: KubesimServer, kubectl: str) -> None:
    api = scenarios_api(server)
    kubectl_run(kubectl, server, "create", "-f", "-", "--validate=false",
                stdin=json.dumps(scenario("past", node("node-a", 0), pod("p1", 2))))
    wait_phase(api, "past", "Paused")
    late = json.dumps([{"op": "add", "path": "/spec/operations/-", "value": pod("late", 1)}])
    refused = kubectl_run(kubectl, server, "patch", "scenario", "past", "--type", "json", "-p", late, check=False)
    assert refused.returncode != 0
    assert ('The Scenario "past" is invalid: spec.operations[2].step: '
            "Invalid value: 1: the scenario is at step 2 (Paused): an added operation must be for a later step"
            in refused.stderr), refused.stderr
    ops = get_scenario(api, "past")["spec"]["operations"]
    with pytest.raises(ApiException) as info:  # the Python client sends a merge patch: the whole list
        api.patch_cluster_custom_object(GROUP, VERSION, PLURAL, "past", {"spec": {"operations": [*ops, pod("late", 2)]}},
                                        _request_timeout=20)
    assert info.value.status == 422 and '"reason":"Invalid"' in info.value.body
    details = json.loads(info.value.body)["details"]
    assert details["kind"] == "Scenario" and details["name"] == "past"
    assert details["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.operations[2].step",
                                  "message": "Invalid value: 2: the scenario is at step 2 (Paused): "
                                             "an added operation must be for a later step"}]
    bad = {"step": 3, "createOperation": {"object": {"kind": "Pod"}}}
    with pytest.raises(ApiException) as info:
        api.patch_cluster_custom_object(GROUP, VERSION, PLURAL, "past", {"spec": {"operations": [*ops, bad]}},
                                        _request_timeout=20)
    assert info.value.status == 422 and "spec.operations[2]" in info.value.body
    assert get_scenario(api, "past")["status"]["phase"] == "Paused"
    assert len(get_scenario(api, "past")["spec"]["operations"]) == 2


@pytest.mark.needs_plugins
def test_scenarios_are_queued_in_creation_order(server: KubesimServer, kubectl: str) -> None:
    api = scenarios_api(server)
    api.create_cluster_custom_object(GROUP, VERSION, PLURAL, scenario("first", node("node-a", 0), pod("a", 1)),
                                     _request_timeout=20)
    for name in ("second", "third"):
        api.create_cluster_custom_object(
            GROUP, VERSION, PLURAL,
            scenario(name, node(f"node-{name}", 0), pod(name, 1), {"step": 2, "doneOperation": {}}),
            _request_timeout=20)
    wait_phase(api, "first", "Paused")
    assert wait_phase(api, "second", "Pending")["status"]["phase"] == "Pending"
    assert wait_phase(api, "third", "Pending")["status"]["phase"] == "Pending"
    # a Paused scenario holds the queue until it ends: deleting it ends it
    kubectl_run(kubectl, server, "delete", "scenario", "first")
    second = wait_phase(api, "second", "Succeeded")
    third = wait_phase(api, "third", "Succeeded")
    # each started on an emptied cluster: the same uids and resourceVersions, only the names differ
    created = [[e for e in s["status"]["scenarioResult"]["timeline"]["0"] if "create" in e][0]["create"]["result"]
               for s in (second, third)]
    assert created[0]["metadata"]["uid"] == created[1]["metadata"]["uid"]
    assert created[0]["metadata"]["resourceVersion"] == created[1]["metadata"]["resourceVersion"]
    nodes = kubectl_run(kubectl, server, "get", "nodes", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert nodes == ["node-third"]  # the last scenario's cluster
    names = kubectl_run(kubectl, server, "get", "scenarios", "-o",
                        "jsonpath={.items[*].metadata.name}").stdout.split()
    assert sorted(names) == ["second", "third"]


@pytest.mark.needs_plugins
def test_a_failing_scenario_fails_and_the_server_goes_on(server: KubesimServer) -> None:
    api = scenarios_api(server)
    missing = {"step": 1, "patchOperation": {
        "typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "nowhere"},
        "patch": '{"metadata":{"labels":{"a":"b"}}}', "patchType": "application/merge-patch+json"}}
    api.create_cluster_custom_object(GROUP, VERSION, PLURAL, scenario("broken", node("node-a", 0), missing),
                                     _request_timeout=20)
    failed = wait_phase(api, "broken", "Failed")
    assert 'nodes "nowhere" not found' in failed["status"]["message"], failed["status"]
    api.create_cluster_custom_object(
        GROUP, VERSION, PLURAL, scenario("after", node("node-a", 0), {"step": 1, "doneOperation": {}}),
        _request_timeout=20)
    assert wait_phase(api, "after", "Succeeded")["status"]["phase"] == "Succeeded"


def test_invalid_scenarios_are_refused_at_creation(server: KubesimServer) -> None:
    api = scenarios_api(server)
    bad = scenario("bad", {"step": -1, "doneOperation": {}})
    with pytest.raises(ApiException) as info:
        api.create_cluster_custom_object(GROUP, VERSION, PLURAL, bad, _request_timeout=20)
    assert info.value.status == 422 and '"reason":"Invalid"' in info.value.body
    assert "spec.operations[0]" in info.value.body


@pytest.mark.needs_plugins
def test_deleting_a_running_scenario_stops_it(server: KubesimServer, kubectl: str) -> None:
    api = scenarios_api(server)
    steps = [{"step": i, "createOperation": {"object": {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i}", "namespace": "default"}}}}
        for i in range(3000)]
    api.create_cluster_custom_object(GROUP, VERSION, PLURAL, scenario("long", *steps, {"step": 3000, "doneOperation": {}}),
                                     _request_timeout=20)
    api.create_cluster_custom_object(GROUP, VERSION, PLURAL,
                                     scenario("next", node("node-a", 0), {"step": 1, "doneOperation": {}}),
                                     _request_timeout=20)
    running = wait_phase(api, "long", "Running")
    assert running["status"]["stepStatus"]["step"]["major"] < 3000
    assert wait_phase(api, "next", "Pending")["status"]["phase"] == "Pending"  # marked while "long" runs
    kubectl_run(kubectl, server, "delete", "scenario", "long")
    assert wait_phase(api, "next", "Succeeded")["status"]["phase"] == "Succeeded"
    names = kubectl_run(kubectl, server, "get", "scenarios", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    assert names == ["next"]
    assert "scenario failed" in server.stderr and "the Scenario was deleted while it ran" in server.stderr


def test_operations_on_unknown_kinds_are_refused(server: KubesimServer) -> None:
    api = scenarios_api(server)
    unknown = {"step": 0, "createOperation": {"object": {
        "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}}}
    with pytest.raises(ApiException) as info:
        api.create_cluster_custom_object(GROUP, VERSION, PLURAL, scenario("widgets", unknown), _request_timeout=20)
    assert info.value.status == 422, info.value.body
    body = json.loads(info.value.body)
    assert body["reason"] == "Invalid" and "spec.operations[0]" in body["message"], body


@pytest.mark.needs_plugins
def test_kubectl_edit_adds_operations_to_a_paused_scenario(server: KubesimServer, kubectl: str,
                                                           tmp_path: Path) -> None:
    api = scenarios_api(server)
    kubectl_run(kubectl, server, "create", "-f", "-", stdin=json.dumps(scenario("edited", node("node-a", 0))))
    wait_phase(api, "edited", "Paused")
    editor = tmp_path / "editor.py"  # what a user does in $EDITOR: append a done operation for step 1
    editor.write_text(
        "import sys, yaml\n"
        "path = sys.argv[-1]\n"
        "doc = yaml.safe_load(open(path))\n"
        "doc['spec']['operations'].append({'step': 1, 'doneOperation': {}})\n"
        "yaml.safe_dump(doc, open(path, 'w'))\n")
    env = {**os.environ, "KUBE_EDITOR": f"{sys.executable} {editor}"}
    proc = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), "--request-timeout=20s", "edit",
                           "scenario", "edited"], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "scenario.simulation.kube-scheduler-simulator.x-k8s.io/edited edited" in proc.stdout
    done = wait_phase(api, "edited", "Succeeded")
    assert done["status"]["stepStatus"]["step"]["major"] == 1
