"""The Machine controller beyond upstream's test: failures and retries, deletion, spec changes,
what it does not watch, the timeline, and the whole chain with the StatefulSet controller, the
node pool controller and the kubelet (the test plays the scheduler)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubesim_imperator_machine import (
    DEFAULT_CORE_NAMESPACE,
    NAMESPACE_ENV,
    MachineController,
    desired_replicas,
    reservation_name,
)
from kubesim_imperator_nodepool import (
    API_VERSION,
    MACHINE_GROUP_KEY,
    MACHINE_STATUS_KEY,
    MACHINE_TYPE_KEY,
    POD_ROLE_KEY,
    MachineNodePoolController,
)
from kubesim_kubelet import KubeletController
from kubesim_statefulset import StatefulSetController
from machine_harness import Sim, machine, namespace, node

GROUP = "gm"
NODE_POOL = [{"name": "n1", "mode": "ready", "machineType": [{"name": "small"}]}]
TYPES: list[dict[str, Any]] = [{"name": "small", "available": 2, "spec": {"cpu": "1", "memory": "1Gi"}}]
ALLOCATABLE = {"cpu": "2", "memory": "2Gi", "pods": "110"}


@pytest.fixture
def sim() -> Iterator[Sim]:
    s = Sim(MachineController)
    s.create(node("n1"))
    yield s
    s.close()


def ready(sim: Sim) -> dict[str, Any]:
    return next(c for c in sim.machine(GROUP)["status"]["conditions"] if c["type"] == "Ready")


def test_missing_core_namespace_fails_and_is_retried(sim: Sim) -> None:
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    assert (ready(sim)["status"], ready(sim)["reason"]) == ("False", "Failure")
    assert ready(sim)["message"] == ('failed to reconcile StatefulSet for machineType, small; '
                                     f'namespaces "{DEFAULT_CORE_NAMESPACE}" not found')
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.settle()
    assert sim.names("apps/v1", "StatefulSet") == []  # namespaces are not watched: the retry brings it
    sim.step(10)
    assert sim.names("apps/v1", "StatefulSet") == [reservation_name(GROUP, "small")]
    assert ready(sim)["status"] == "True"


def test_core_namespace_comes_from_the_environment(sim: Sim, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NAMESPACE_ENV, "imperator")
    sim.create(namespace("imperator"))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    assert sim.names("apps/v1", "StatefulSet", "imperator") == [reservation_name(GROUP, "small")]
    assert sim.names("v1", "Service", "imperator") == [reservation_name(GROUP, "small")]


def test_node_pool_owned_by_another_machine_fails_the_reconcile(sim: Sim) -> None:
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    other = sim.create(machine("other", [], [], group="other"))
    sim.create({"apiVersion": API_VERSION, "kind": "MachineNodePool",
                "metadata": {"name": f"{GROUP}-node-pool", "ownerReferences": [
                    {"apiVersion": API_VERSION, "kind": "Machine", "name": "other",
                     "uid": other["metadata"]["uid"], "controller": True}]},
                "spec": {"machineGroupName": GROUP, "nodePool": [], "machineTypeStock": []}})
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    assert ready(sim)["message"] == ("failed to reconcile MachineNodePool; Object /gm-node-pool is already owned "
                                     "by another Machine controller other")


def test_spec_changes_follow(sim: Sim) -> None:
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    m = sim.machine(GROUP)
    m["spec"]["machineTypes"][0]["available"] = 1
    m["spec"]["machineTypes"].append({"name": "big", "available": 1, "spec": {"cpu": "8", "memory": "8Gi"}})
    sim.cluster.update(m)
    sim.settle()
    assert sim.usage(GROUP, "small")["maximum"] == 1
    assert sim.usage(GROUP, "big") == {"maximum": 1, "reserved": 0, "used": 0, "waiting": 0}
    sts = sim.cluster.get("apps/v1", "StatefulSet", reservation_name(GROUP, "small"), DEFAULT_CORE_NAMESPACE)
    assert sts["spec"]["replicas"] == 1
    # a Service for every machine type, a StatefulSet only for those in a node pool
    assert sim.names("v1", "Service", DEFAULT_CORE_NAMESPACE) == [reservation_name(GROUP, t) for t in ("big", "small")]
    assert sim.names("apps/v1", "StatefulSet", DEFAULT_CORE_NAMESPACE) == [reservation_name(GROUP, "small")]
    stock = sim.cluster.get(API_VERSION, "MachineNodePool", f"{GROUP}-node-pool")["spec"]["machineTypeStock"]
    assert stock == [{"name": "small"}, {"name": "big"}]


def test_unwatched_service_deletion_is_repaired_by_the_next_reconcile(sim: Sim) -> None:
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    sim.cluster.delete("v1", "Service", reservation_name(GROUP, "small"), DEFAULT_CORE_NAMESPACE)
    sim.settle()  # upstream does not watch Services: nothing to do, and the waiter agrees
    assert sim.names("v1", "Service", DEFAULT_CORE_NAMESPACE) == []
    m = sim.machine(GROUP)
    m["metadata"]["labels"]["touch"] = "1"
    sim.cluster.update(m)
    sim.settle()
    assert sim.names("v1", "Service", DEFAULT_CORE_NAMESPACE) == [reservation_name(GROUP, "small")]


def test_deleting_the_machine_collects_what_it_owns() -> None:
    sim = Sim(MachineController, MachineNodePoolController)
    sim.create(node("n1"))
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    assert sim.cluster.get("v1", "Node", "n1")["metadata"]["labels"][MACHINE_STATUS_KEY] == "ready"
    sim.cluster.delete(API_VERSION, "Machine", GROUP)
    sim.settle()
    assert sim.names(API_VERSION, "MachineNodePool") == []
    assert sim.names("apps/v1", "StatefulSet", DEFAULT_CORE_NAMESPACE) == []
    assert sim.names("v1", "Service", DEFAULT_CORE_NAMESPACE) == []
    assert "labels" not in sim.cluster.get("v1", "Node", "n1")["metadata"]  # the pool's finalizer cleaned up
    sim.close()


def test_status_writes_are_recorded_in_the_timeline(sim: Sim) -> None:
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    patches = [e.patch for events in sim.timeline.timeline.values() for e in events
               if e.patch is not None and e.patch.operation.type_meta.kind == "Machine"]
    assert patches and all(p.operation.patch.startswith('{"status":') for p in patches)
    assert patches[-1].result["status"] == sim.machine(GROUP)["status"]


@pytest.mark.parametrize(
    ("usage", "unscheduled", "replicas"),
    [({"maximum": 3, "used": 1, "waiting": 1}, 0, 1), ({"maximum": 3, "used": 0, "waiting": 0}, 1, 2),
     ({"maximum": 1, "used": 1, "waiting": 2}, 0, 0), ({"maximum": 2, "reserved": 2}, 0, 2)],
)
def test_replicas_formula(usage: dict[str, int], unscheduled: int, replicas: int) -> None:
    """maximum - (used + waiting + unscheduled); reserved pods do not count."""
    assert desired_replicas(usage, unscheduled) == replicas


def _bind_pending(sim: Sim, namespace_name: str, node_name: str) -> None:
    for pod in sim.cluster.list("v1", "Pod", namespace_name):
        if not pod["spec"].get("nodeName") and not pod["metadata"].get("deletionTimestamp"):
            sim.cluster.bind(namespace_name, pod["metadata"]["name"], node_name, actor="scheduler")


def test_the_whole_chain_with_statefulsets_and_the_kubelet() -> None:
    """Reservation pods from the StatefulSet controller, run by the kubelet; a guest takes one's place."""
    sim = Sim(MachineController, MachineNodePoolController, StatefulSetController, KubeletController)
    sim.create(node("n1", allocatable=ALLOCATABLE, capacity=ALLOCATABLE))
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    sim.create(namespace("guests", inject=True))
    sim.create(machine(GROUP, NODE_POOL, TYPES))
    sim.settle()
    for _ in range(2):  # OrderedReady: one pod at a time
        _bind_pending(sim, DEFAULT_CORE_NAMESPACE, "n1")
        sim.settle()
    assert sim.usage(GROUP, "small") == {"maximum": 2, "reserved": 2, "used": 0, "waiting": 0}

    sim.create({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": "guest", "namespace": "guests",
        "labels": {MACHINE_GROUP_KEY: GROUP, MACHINE_TYPE_KEY: "small", POD_ROLE_KEY: "guest"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}})
    sim.settle()
    guest = sim.cluster.get("v1", "Pod", "guest", "guests")  # the scheduler finds no room
    guest["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    sim.cluster.update(guest, actor="scheduler", subresource="status")
    sim.settle()
    assert sim.usage(GROUP, "small") == {"maximum": 2, "reserved": 1, "used": 0, "waiting": 1}
    sts = sim.cluster.get("apps/v1", "StatefulSet", reservation_name(GROUP, "small"), DEFAULT_CORE_NAMESPACE)
    assert sts["spec"]["replicas"] == 1
    terminating = [p["metadata"]["name"] for p in sim.cluster.list("v1", "Pod", DEFAULT_CORE_NAMESPACE)
                   if p["metadata"].get("deletionTimestamp")]
    assert terminating == [f"{reservation_name(GROUP, 'small')}-1"]  # the highest ordinal goes, gracefully

    sim.step(30)  # the grace period: the kubelet removes the pod
    sim.cluster.bind("guests", "guest", "n1", actor="scheduler")
    sim.settle()
    assert sim.usage(GROUP, "small") == {"maximum": 2, "reserved": 1, "used": 1, "waiting": 0}
    assert sim.cluster.get("v1", "Pod", "guest", "guests")["status"]["phase"] == "Running"
    sim.close()


def test_unschedulable_reservation_pod_flaps_once_per_step() -> None:
    """Upstream's formula counts unscheduled reservation pods: the set shrinks, the pod goes, it grows again.

    On a cluster that loop runs as fast as the API allows; kubesim lets the set grow again only
    at the next simulated instant, so the flapping shows once per step and every step ends.
    """
    sim = Sim(MachineController, StatefulSetController, KubeletController)
    sim.create(node("n1", allocatable=ALLOCATABLE, capacity=ALLOCATABLE))
    sim.create(namespace(DEFAULT_CORE_NAMESPACE))
    big = [{"name": "small", "available": 2, "spec": {"cpu": "2", "memory": "1Gi"}}]  # one fits on n1
    sim.create(machine(GROUP, NODE_POOL, big))
    sim.settle()
    _bind_pending(sim, DEFAULT_CORE_NAMESPACE, "n1")
    sim.settle()
    name = reservation_name(GROUP, "small")
    for _ in range(3):
        second = sim.cluster.get("v1", "Pod", f"{name}-1", DEFAULT_CORE_NAMESPACE)  # the scheduler gives up
        uid = second["metadata"]["uid"]
        second["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
        sim.cluster.update(second, actor="scheduler", subresource="status")
        sim.settle()
        assert sim.cluster.get("apps/v1", "StatefulSet", name, DEFAULT_CORE_NAMESPACE)["spec"]["replicas"] == 1
        assert sim.names("v1", "Pod", DEFAULT_CORE_NAMESPACE) == [f"{name}-0"]
        sim.step(10)
        assert sim.cluster.get("apps/v1", "StatefulSet", name, DEFAULT_CORE_NAMESPACE)["spec"]["replicas"] == 2
        again = sim.cluster.get("v1", "Pod", f"{name}-1", DEFAULT_CORE_NAMESPACE)
        assert again["metadata"]["uid"] != uid
    assert sim.usage(GROUP, "small") == {"maximum": 2, "reserved": 1, "used": 0, "waiting": 0}
    sim.close()
