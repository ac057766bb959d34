"""A cluster with Imperator's admission in place, as upstream's webhook suite has it: the Machine
and MachineNodePool CRDs, the API server's handling of them, the Machine webhooks and the pod
injector, served for this cluster (no controllers run, as in upstream's webhook envtest)."""

from __future__ import annotations

import functools

import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from kubesim import Runtime, ScenarioStep
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster
from kubesim.scenario.recorder import TimelineRecorder
from kubesim_imperator_machine import MACHINE_CRD, admit_machine
from kubesim_imperator_nodepool import (
    API_VERSION,
    MACHINE_GROUP_KEY,
    MACHINE_NODE_POOL_CRD,
    MACHINE_TYPE_KEY,
    POD_ROLE_KEY,
    admit_machine_node_pool,
)
from kubesim_pod_injector import admit_pod


class _NoStep:
    """The step status of a cluster that no scenario drives."""

    step = ScenarioStep(0, 0)
    phase = None
    running_simulation_controller = ""


_NO_STEP = _NoStep()


class World:
    """The cluster and the webhooks bound to it; `close()` stops serving them."""

    def __init__(self) -> None:
        self.clock = Clock(DEFAULT_EPOCH)
        self.cluster = Cluster(self.clock)
        for crd in (MACHINE_CRD, MACHINE_NODE_POOL_CRD):
            self.cluster.registry.register_crd(crd)
        self.runtime = Runtime(self.cluster, self.clock, TimelineRecorder(lambda: ScenarioStep(0, 0)), None,
                               _NO_STEP)
        for admit in (admit_machine, admit_machine_node_pool, admit_pod):
            self.cluster.add_admitter(functools.partial(admit, runtime=self.runtime) if admit is not admit_machine_node_pool
                                      else admit, phase="mutating")
            self.cluster.add_admitter(functools.partial(admit, runtime=self.runtime) if admit is not admit_machine_node_pool
                                      else admit, phase="validating")

    def close(self) -> None:
        """Nothing to release: the webhooks read this cluster through its runtime."""

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.cluster.create(obj)

    def pod(self, name: str, namespace: str) -> dict[str, Any]:
        return self.cluster.get("v1", "Pod", name, namespace)

    def set_usage(self, machine_name: str, reserved: Callable[[dict[str, Any]], int] | None = None) -> None:
        """updateUsageConditions: every machine type maximum = reserved = available, nothing used."""
        machine = self.cluster.get(API_VERSION, "Machine", machine_name)
        machine["status"] = {"availableMachines": [
            {"name": mt["name"], "usage": {"maximum": mt["available"],
                                           "reserved": reserved(mt) if reserved else mt["available"],
                                           "used": 0, "waiting": 0}}
            for mt in machine["spec"]["machineTypes"]]}
        self.cluster.update(machine, subresource="status")


GROUP = "test-machine-group"
INJECTED_NS, NOT_INJECTED_NS = "inject-ns", "not-inject-ns"
MACHINE_TYPE = "test-machine1"
DENIED = 'admission webhook "mutator.pod.imperator.tenzen-y.io" denied the request: '


def fake_machine() -> dict[str, Any]:
    """newFakeMachine of machine_webhook_test.go."""
    return {
        "apiVersion": API_VERSION,
        "kind": "Machine",
        "metadata": {"name": GROUP, "labels": {MACHINE_GROUP_KEY: GROUP}},
        "spec": {
            "nodePool": [
                {"name": "test-node1", "mode": "ready", "taint": False, "machineType": [{"name": "test-machine1"}]},
                {"name": "test-node2", "mode": "maintenance", "taint": False,
                 "machineType": [{"name": "test-machine2"}]},
                {"name": "test-node3", "mode": "ready", "taint": True, "machineType": [{"name": "test-machine1"}]},
            ],
            "machineTypes": [
                {"name": "test-machine1", "available": 2,
                 "spec": {"cpu": "4", "memory": "24Gi",
                          "gpu": {"type": "nvidia.com/gpu", "num": "2", "family": "ampere"}}},
                {"name": "test-machine2", "available": 2,
                 "spec": {"cpu": "2000m", "memory": "12Gi",
                          "gpu": {"type": "nvidia.com/gpu", "num": "1", "product": "NVIDIA-GeForce-RTX-3090"}}},
            ],
        },
    }


def guest_labels(machine_type: str) -> dict[str, str]:
    """newTestGuestLabels."""
    return {MACHINE_GROUP_KEY: GROUP, MACHINE_TYPE_KEY: machine_type, POD_ROLE_KEY: "guest"}


def fake_pod(name: str, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    """newFakePod: two containers, test1 and test2."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"containers": [{"name": "test1", "image": "test1"}, {"name": "test2", "image": "test2"}]}}


def new_world() -> World:
    """Upstream's BeforeSuite and BeforeEach: an injected and a plain namespace, nodes test-node1..3."""
    w = World()
    for name, inject in ((INJECTED_NS, True), (NOT_INJECTED_NS, False)):
        labels = {"imperator.tenzen.io/inject-resource": "enabled"} if inject else {}
        w.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
    for name in ("test-node1", "test-node2", "test-node3"):
        w.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    return w


def run_kubesim(scenario: str, workdir: Any, keep: tuple[str, ...]) -> tuple[int, str, dict[str, Any], list[Any]]:
    """`kubesim run` of a scenario (YAML text) with only the plugins in `keep`; skips when one is missing.

    Returns the exit code, stderr, the result and the exported cluster's items.
    """
    installed = {ep.name for ep in entry_points(group="kubesim")}
    missing = sorted(set(keep) - installed)
    if missing:
        pytest.skip(f"kubesim plugins not installed: {', '.join(missing)}")
    workdir = Path(workdir)
    (workdir / "scenario.yaml").write_text(scenario)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUBESIM_", "IMPERATOR_"))}
    env["KUBESIM_DISABLED_PLUGINS"] = ",".join(sorted(installed - set(keep)))
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "kubesim"), "run", "scenario.yaml", "-o", "result.json",
         "--export-cluster", "state.json"],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=300, check=False)
    result = json.loads((workdir / "result.json").read_text()) if (workdir / "result.json").exists() else {}
    state = json.loads((workdir / "state.json").read_text())["items"] if (workdir / "state.json").exists() else []
    return proc.returncode, proc.stderr, result, state
