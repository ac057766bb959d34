"""A cluster with Imperator's admission in place, as upstream's webhook suite has it: the Machine
and MachineNodePool CRDs, the API server's handling of them, the Machine webhooks and the pod
injector, served for this cluster (no controllers run, as in upstream's webhook envtest)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesim.testing import SimEnv, namespace
from kubesim_imperator_machine import MACHINE_CRD, admit_machine
from kubesim_imperator_nodepool import (
    API_VERSION,
    MACHINE_GROUP_KEY,
    MACHINE_NODE_POOL_CRD,
    MACHINE_TYPE_KEY,
    POD_ROLE_KEY,
)
from kubesim_pod_injector import admit_pod


class World(SimEnv):
    """The cluster with the webhooks, which read it through the env's runtime."""

    def __init__(self) -> None:
        super().__init__(crds=(MACHINE_CRD, MACHINE_NODE_POOL_CRD),
                         admitters=(admit_machine, admit_pod))

    def pod(self, name: str, namespace: str) -> dict[str, Any]:
        return self.get("v1", "Pod", name, namespace)

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
    w.create(namespace(INJECTED_NS, labels={"imperator.tenzen.io/inject-resource": "enabled"}))
    w.create(namespace(NOT_INJECTED_NS))
    for name in ("test-node1", "test-node2", "test-node3"):
        w.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    return w

