"""Port of upstream pkg/controllers/machine_controller_test.go ("machine controller envtest").

As upstream, only the Machine controller runs: the test creates the reservation pods and
moves pods through their states itself (there is no StatefulSet controller, scheduler or
kubelet in envtest). Upstream builds the node pools and machine types from Go maps, so their
order varies between runs; here it is the order written below.
"""

from __future__ import annotations

from typing import Any

import pytest
from kubesim_imperator_machine import (
    DEFAULT_CORE_NAMESPACE,
    MachineController,
    reservation_labels,
    reservation_name,
    sleeper_container,
)
from kubesim_imperator_nodepool import API_VERSION, MACHINE_GROUP_KEY, MACHINE_TYPE_KEY, POD_ROLE_KEY
from machine_harness import Sim, machine, namespace, node

GROUP = "test-machine-machine-group"
GUEST_NS = "test-guest-ns"
MACHINE1, MACHINE2 = "test-machine1", "test-machine2"

NODE_POOL = [
    {"name": "test-node1", "mode": "ready", "taint": False, "machineType": [{"name": MACHINE1}]},
    {"name": "test-node2", "mode": "ready", "taint": True, "machineType": [{"name": MACHINE2}]},
]
MACHINE_TYPES: list[dict[str, Any]] = [
    {"name": MACHINE1, "available": 2,
     "spec": {"cpu": "2000m", "memory": "8Gi", "gpu": {"type": "nvidia.com/gpu", "num": "1", "family": "ampere"}}},
    {"name": MACHINE2, "available": 1, "spec": {"cpu": "6000m", "memory": "32Gi"}},
]


def reservation_pod(machine_type: str, number: int) -> dict[str, Any]:
    """newFakeReservationPod."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{reservation_name(GROUP, machine_type)}-{number}",
                         "namespace": DEFAULT_CORE_NAMESPACE, "labels": reservation_labels(GROUP, machine_type)},
            "spec": {"containers": [sleeper_container()]}}


def guest_pod(machine_type: str) -> dict[str, Any]:
    """newFakeGuestPod."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "test-guest-pod", "namespace": GUEST_NS,
                         "labels": {MACHINE_GROUP_KEY: GROUP, MACHINE_TYPE_KEY: machine_type, POD_ROLE_KEY: "guest"}},
            "spec": {"containers": [{"name": "test-container", "image": "test-image"}]}}


@pytest.fixture
def sim() -> Sim:
    s = Sim(MachineController)
    for ns in (namespace(DEFAULT_CORE_NAMESPACE), namespace(GUEST_NS, inject=True)):
        s.create(ns)
    for np in NODE_POOL:
        s.create(node(np["name"]))
    yield s
    s.close()


def replicas(sim: Sim, machine_type: str) -> int:
    sts = sim.cluster.get("apps/v1", "StatefulSet", reservation_name(GROUP, machine_type), DEFAULT_CORE_NAMESPACE)
    return int(sts["spec"]["replicas"])


def wait_started_reservation_resource(sim: Sim, machine_type: dict[str, Any], sts_replicas: int) -> None:
    """waitStartedReservationResource: the StatefulSet with the replicas, and the Service."""
    assert replicas(sim, machine_type["name"]) == sts_replicas
    sim.cluster.get("v1", "Service", reservation_name(GROUP, machine_type["name"]), DEFAULT_CORE_NAMESPACE)


def test_should_create_reservation_role_resources(sim: Sim) -> None:
    """It("Should create Reservation role resources")."""
    sim.create(machine(GROUP, NODE_POOL, MACHINE_TYPES))
    sim.settle()
    sim.machine(GROUP)
    sim.cluster.get(API_VERSION, "MachineNodePool", f"{GROUP}-node-pool")

    for mt in MACHINE_TYPES:
        wait_started_reservation_resource(sim, mt, mt["available"])
        for number in range(mt["available"]):
            sim.create(reservation_pod(mt["name"], number))
            sim.settle()
            sim.set_pod_status(DEFAULT_CORE_NAMESPACE, f"{reservation_name(GROUP, mt['name'])}-{number}", "running")
            sim.settle()
        pods = sim.cluster.list("v1", "Pod", label_selector={"matchLabels": reservation_labels(GROUP, mt["name"])})
        assert len(pods) == mt["available"]
        assert sim.usage(GROUP, mt["name"]) == {
            "used": 0, "maximum": mt["available"], "reserved": mt["available"], "waiting": 0}

    machine2 = MACHINE_TYPES[1]
    available = machine2["available"]
    sim.create(guest_pod(MACHINE2))
    sim.settle()
    sim.set_pod_status(GUEST_NS, "test-guest-pod", "pending")
    sim.settle()
    wait_started_reservation_resource(sim, machine2, available - 1)

    sim.cluster.delete("v1", "Pod", f"{reservation_name(GROUP, MACHINE2)}-0", DEFAULT_CORE_NAMESPACE)
    sim.settle()
    assert sim.usage(GROUP, MACHINE2) == {"used": 0, "maximum": available, "reserved": available - 1, "waiting": 1}

    sim.set_pod_status(GUEST_NS, "test-guest-pod", "running")
    sim.settle()
    assert sim.usage(GROUP, MACHINE2) == {"used": 1, "maximum": available, "reserved": available - 1, "waiting": 0}

    sim.cluster.delete("v1", "Pod", "test-guest-pod", GUEST_NS)
    sim.settle()
    wait_started_reservation_resource(sim, machine2, available)

    sim.create(reservation_pod(MACHINE2, 0))
    sim.settle()
    sim.set_pod_status(DEFAULT_CORE_NAMESPACE, f"{reservation_name(GROUP, MACHINE2)}-0", "running")
    sim.settle()
    assert sim.usage(GROUP, MACHINE2) == {"used": 0, "maximum": available, "reserved": available, "waiting": 0}
