"""Outside controllers in scenarios applied to a real `kubesim serve`: an outside scheduler written
with the `kubernetes` client (SimulationController, CheckScenarioStepPhase, pods/binding), a kopf
operator (PreSimulationController, --settled-when), and a controller that dies (the scenario fails).

These need the server's scenario controller ("scenarios"), pods/binding ("rest") and watch ("watch").
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config

from kubesim.client import check_scenario_step_phase
from kubesim.testing import KubesimServer

GROUP, VERSION = "simulation.kube-scheduler-simulator.x-k8s.io", "v1alpha1"
TIMEOUT = 60.0


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i",
                                     "resources": {"requests": {"cpu": "100m"}}}]}}


NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def scenario(name: str, controllers: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Scenario", "metadata": {"name": name},
            "spec": {"controllers": controllers, "operations": [
                {"step": 0, "createOperation": {"object": NODE}},
                {"step": 0, "createOperation": {"object": _pod("p1")}},
                {"step": 0, "createOperation": {"object": _pod("p2")}},
                {"step": 1, "createOperation": {"object": _pod("p3")}},
                {"step": 2, "doneOperation": {}},
            ]}}


def apply_and_wait(server: KubesimServer, body: dict[str, Any], phases: tuple[str, ...] = ("Succeeded", "Failed"),
                   timeout: float = TIMEOUT) -> dict[str, Any]:
    """Create the Scenario as a user, then poll it (bounded) until it ends."""
    api = client.CustomObjectsApi(config.new_client_from_config(config_file=str(server.kubeconfig)))
    api.create_cluster_custom_object(GROUP, VERSION, "scenarios", body, _request_timeout=10)
    deadline = time.monotonic() + timeout
    while True:
        obj: dict[str, Any] = api.get_cluster_custom_object(GROUP, VERSION, "scenarios", body["metadata"]["name"],
                                                            _request_timeout=10)
        if (obj.get("status") or {}).get("phase") in phases:
            return obj
        assert time.monotonic() < deadline, f"scenario still {obj.get('status')}"
        time.sleep(0.1)


def outside_scheduler(kubeconfig: Path, stop: threading.Event, errors: list[BaseException],
                      die_after_binds: int | None = None) -> None:
    """Binds the alphabetically first pending pod to the first node per loop, then CheckScenarioStepPhase."""
    try:
        api = config.new_client_from_config(config_file=str(kubeconfig))
        core = client.CoreV1Api(api)
        binds = 0
        while not stop.is_set():
            pods = core.list_pod_for_all_namespaces(_request_timeout=10)
            nodes = sorted(n.metadata.name for n in core.list_node(_request_timeout=10).items)
            pending = sorted((p for p in pods.items if not p.spec.node_name), key=lambda p: p.metadata.name)
            if pending and nodes:
                pod = pending[0]
                core.create_namespaced_pod_binding(
                    pod.metadata.name, pod.metadata.namespace,
                    {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod.metadata.name},
                     "target": {"apiVersion": "v1", "kind": "Node", "name": nodes[0]}},
                    _request_timeout=30, _preload_content=False)  # the client cannot read the Status answer
                binds += 1
                if die_after_binds is not None and binds >= die_after_binds:
                    return
            idle = not (pending and nodes)
            check_scenario_step_phase("my-scheduler", api, resource_version=pods.metadata.resource_version,
                                      idle=idle, timeout=TIMEOUT)
            if idle:
                stop.wait(0.05)
    except BaseException as exc:  # reported by the test
        if not stop.is_set():
            errors.append(exc)


@pytest.fixture
def scheduler_server(tmp_path: Path) -> Iterator[KubesimServer]:
    with KubesimServer(tmp_path, "--controller-timeout", "10", controllers=["my-scheduler"]) as running:
        yield running


NO_INPROCESS_SCHEDULER = {"simulationControllers": {"enabled": [{"name": "my-scheduler"}]},
                          "preSimulationControllers": {"disabled": [{"name": "scheduler"}]}}


def test_an_outside_scheduler_is_the_simulation_controller(scheduler_server: KubesimServer) -> None:
    stop, errors = threading.Event(), []
    worker = threading.Thread(target=outside_scheduler,
                              args=(scheduler_server.controller_kubeconfig("my-scheduler"), stop, errors),
                              daemon=True)
    worker.start()
    try:
        obj = apply_and_wait(scheduler_server, scenario("outside", NO_INPROCESS_SCHEDULER))
    finally:
        stop.set()
        worker.join(TIMEOUT)
    assert not errors, errors
    assert obj["status"]["phase"] == "Succeeded", obj["status"].get("message")
    timeline = obj["status"]["scenarioResult"]["timeline"]
    scheduled = [(e["actor"], e["podScheduled"]["pod"]["metadata"]["name"], e["podScheduled"]["boundTo"],
                  e["step"]["major"], e["step"]["minor"])
                 for step in sorted(timeline, key=int) for e in timeline[step] if "podScheduled" in e]
    assert scheduled == [("my-scheduler", "p1", "node-a", 0, 1), ("my-scheduler", "p2", "node-a", 0, 2),
                         ("my-scheduler", "p3", "node-a", 1, 1)]


def test_a_dead_outside_scheduler_fails_the_scenario_and_not_the_server(scheduler_server: KubesimServer) -> None:
    stop, errors = threading.Event(), []
    worker = threading.Thread(target=outside_scheduler,
                              args=(scheduler_server.controller_kubeconfig("my-scheduler"), stop, errors),
                              kwargs={"die_after_binds": 1}, daemon=True)
    worker.start()
    obj = apply_and_wait(scheduler_server, scenario("dies", NO_INPROCESS_SCHEDULER), timeout=TIMEOUT)
    stop.set()
    worker.join(TIMEOUT)
    assert obj["status"]["phase"] == "Failed"
    assert obj["status"]["message"].startswith(
        "step 0: SimulationController 'my-scheduler' did not finish within 10 s (--controller-timeout): "
        "waiting for the end of its loop")
    core = client.CoreV1Api(config.new_client_from_config(config_file=str(scheduler_server.kubeconfig)))
    assert core.list_namespaced_pod("default", _request_timeout=10).items is not None  # still serving


OPERATOR = textwrap.dedent('''
    import kopf

    @kopf.on.startup()
    def configure(settings: kopf.OperatorSettings, **_):
        settings.posting.enabled = False          # no Events: kubesim does not model them
        settings.watching.server_timeout = 30

    @kopf.on.create("v1", "pods")
    def seen(name, namespace, **_):
        import kubernetes
        api = kubernetes.config.new_client_from_config()
        kubernetes.client.CoreV1Api(api).create_namespaced_config_map(
            namespace, {"metadata": {"name": f"seen-{name}"}}, _request_timeout=10)
''')


@pytest.mark.needs_plugins
def test_a_kopf_operator_is_a_pre_simulation_controller(tmp_path: Path) -> None:
    (tmp_path / "seen_operator.py").write_text(OPERATOR)
    settled = "kopf-op=no pods where metadata.annotations[kopf.zalando.org/last-handled-configuration]="
    with KubesimServer(tmp_path, "--controller-timeout", "30", "--settled-when", settled,
                       controllers=["kopf-op"]) as server:
        env = {**os.environ, "KUBECONFIG": str(server.controller_kubeconfig("kopf-op"))}
        operator = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "--all-namespaces",
                                     str(tmp_path / "seen_operator.py")], env=env, cwd=tmp_path,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            obj = apply_and_wait(server, scenario("kopf", {
                "simulationControllers": {"enabled": [{"name": "scheduler"}]},
                "preSimulationControllers": {"enabled": [{"name": "kopf-op"}]}}))
        finally:
            operator.terminate()
            try:
                _, stderr = operator.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                operator.kill()
                _, stderr = operator.communicate()
        assert obj["status"]["phase"] == "Succeeded", (obj["status"].get("message"), stderr)
        timeline = obj["status"]["scenarioResult"]["timeline"]
        made = [(e["step"]["major"], e["step"]["minor"], e["create"]["result"]["metadata"]["name"])
                for step in sorted(timeline, key=int) for e in timeline[step]
                if e.get("actor") == "kopf-op" and "create" in e]
        # each pod's ConfigMap is made while PreSimulationControllers settle: before the scheduler binds
        assert sorted(made) == [(0, 0, "seen-p1"), (0, 0, "seen-p2"), (1, 0, "seen-p3")], made
        bound = [e["step"] for step in timeline.values() for e in step if "podScheduled" in e]
        assert len(bound) == 3 and all(s["minor"] >= 1 for s in bound)
