"""Port of upstream pkg/controllers/machinenodepool_controller_test.go ("machinenodepool controller envtest").

Three of upstream's cases change nothing: they edit copies of the loop variable
(`for _, node := range newTestNodes { node.mode = ... }`, `for _, pool := range
machineNodePool.Spec.NodePool { pool.Mode = ... }`), so upstream only re-checks the first
state. Here the changes are made for real, and the assertions say what the implementation
does with them, including the two places where it leaves stale keys behind (a node whose
pool entry goes from taint: true to false keeps its taints; a node whose machine type changes
keeps the old machine-type label and taint). The envtest-only ENVTEST switch is not ported.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kubesim.errors import NotFound
from kubesim_imperator_nodepool import (
    API_VERSION,
    CANNOT_USE_NODE_TAINTS,
    MACHINE_GROUP_KEY,
    MACHINE_STATUS_KEY,
    NODE_NOT_READY_TAINT,
    NODE_POOL_FINALIZER,
    MachineNodePoolController,
    extract_key_value_from_taints,
    machine_type_key,
)
from nodepool_harness import Sim, annotations, labels, new_node, taints

GROUP_NAME = "test-machinenodepool-machine-group"
POOL_NAME = f"{GROUP_NAME}-node-pool"
READY_A, READY_B, MAINTENANCE = "ready-node-a", "ready-node-b", "maintenance-node"

STOCK = [{"name": "compute-xlarge"}, {"name": "compute-xmedium"}, {"name": "compute-xsmall"}]
TEST_NODES: list[dict[str, Any]] = [
    {"name": READY_A, "mode": "ready", "status": "Healthy", "taint": False,
     "machineType": [{"name": "compute-xlarge"}]},
    {"name": READY_B, "mode": "ready", "status": "Healthy", "taint": True,
     "machineType": [{"name": "compute-xmedium"}]},
    {"name": MAINTENANCE, "mode": "maintenance", "status": "Maintenance", "taint": False,
     "machineType": [{"name": "compute-xsmall"}]},
]


def new_pool(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """newFakeMachineNodePool."""
    return {
        "apiVersion": API_VERSION,
        "kind": "MachineNodePool",
        "metadata": {"name": POOL_NAME, "labels": {MACHINE_GROUP_KEY: GROUP_NAME}},
        "spec": {
            "machineGroupName": GROUP_NAME,
            "nodePool": [{k: n[k] for k in ("name", "mode", "taint", "machineType")} for n in nodes],
            "machineTypeStock": STOCK,
        },
    }


@pytest.fixture
def sim() -> Sim:
    s = Sim(MachineNodePoolController)
    for n in TEST_NODES:
        s.create(new_node(n["name"]))
    s.settle()
    return s


def taint_map(node: dict[str, Any]) -> dict[str, str]:
    found = extract_key_value_from_taints(taints(node))
    found.pop(NODE_NOT_READY_TAINT, None)
    return found


def pool(sim: Sim) -> dict[str, Any]:
    return sim.get(API_VERSION, "MachineNodePool", POOL_NAME)


def node_conditions(sim: Sim) -> dict[str, str]:
    return {c["name"]: c.get("condition", "") for c in pool(sim)["status"]["nodePool"]}


def check_nodes(sim: Sim, nodes: list[dict[str, Any]]) -> None:
    """waitUpdateTestNode."""
    for n in nodes:
        node = sim.node(n["name"])
        assert labels(node)[MACHINE_STATUS_KEY] == n["mode"]
        assert annotations(node)[MACHINE_GROUP_KEY] == GROUP_NAME
        if n["taint"]:
            assert taint_map(node)[MACHINE_STATUS_KEY] == n["mode"]
        for mt in n["machineType"]:
            assert labels(node)[machine_type_key(mt["name"])] == GROUP_NAME
            if n["taint"]:
                assert taint_map(node)[machine_type_key(mt["name"])] == GROUP_NAME


def check_conditions(sim: Sim, nodes: list[dict[str, Any]]) -> None:
    """waitUpdateTestMachineNodePoolCondition."""
    assert len(pool(sim)["status"]["nodePool"]) == 3
    assert node_conditions(sim) == {n["name"]: n["status"] for n in nodes}


def update_pool(sim: Sim, changes: dict[str, dict[str, Any]]) -> None:
    """What updateTestMachineNodePoolNodeMode / ...MachineType mean to do: change entries for real."""
    obj = pool(sim)
    for entry in obj["spec"]["nodePool"]:
        entry.update(changes.get(entry["name"], {}))
    sim.cluster.update(obj)


def test_create_then_delete_sets_and_removes_labels_annotations_and_taints(sim: Sim) -> None:
    """It("Should set label to all nodes, update MachineNodePool status"): create -> delete."""
    sim.create(new_pool(TEST_NODES))
    sim.settle()
    check_nodes(sim, TEST_NODES)
    check_conditions(sim, TEST_NODES)
    assert pool(sim)["metadata"]["finalizers"] == [NODE_POOL_FINALIZER]
    ready = [c for c in pool(sim)["status"]["conditions"] if c["type"] == "Ready"]
    assert ready == [{"type": "Ready", "status": "True", "reason": "Success",
                      "message": "update status conditions", "lastTransitionTime": sim.clock.timestamp()}]

    sim.cluster.delete(API_VERSION, "MachineNodePool", POOL_NAME)
    sim.settle()
    with pytest.raises(NotFound):
        pool(sim)
    for n in TEST_NODES:
        node = sim.node(n["name"])
        assert labels(node) == {}
        if n["taint"]:
            assert taint_map(node) == {}
        assert MACHINE_GROUP_KEY not in annotations(node)


def test_change_node_status_from_node_taints(sim: Sim) -> None:
    """It("Change node status"): unschedulable on node A, network-unavailable on tainted node B."""
    sim.create(new_pool(TEST_NODES))
    sim.settle()
    check_nodes(sim, TEST_NODES)
    check_conditions(sim, TEST_NODES)

    node_a = sim.node(READY_A)
    node_a.setdefault("spec", {}).setdefault("taints", []).append(
        {"key": CANNOT_USE_NODE_TAINTS[1], "effect": "NoSchedule", "timeAdded": sim.clock.timestamp()})
    sim.cluster.update(node_a)
    sim.settle()
    node_a = sim.node(READY_A)
    assert [t["effect"] for t in taints(node_a) if t["key"] == CANNOT_USE_NODE_TAINTS[1]] == ["NoSchedule"]
    assert labels(node_a)[MACHINE_STATUS_KEY] == "not-ready"
    assert node_conditions(sim)[READY_A] == "Unhealthy"

    node_b = sim.node(READY_B)
    node_b["spec"]["taints"].append(
        {"key": CANNOT_USE_NODE_TAINTS[2], "effect": "NoSchedule", "timeAdded": sim.clock.timestamp()})
    sim.cluster.update(node_b)
    sim.settle()
    node_b = sim.node(READY_B)
    assert [t["effect"] for t in taints(node_b) if t["key"] == CANNOT_USE_NODE_TAINTS[2]] == ["NoSchedule"]
    assert labels(node_b)[MACHINE_STATUS_KEY] == "not-ready"
    assert taint_map(node_b)[MACHINE_STATUS_KEY] == "not-ready"
    assert node_conditions(sim)[READY_B] == "Unhealthy"


def test_change_node_mode_in_pool(sim: Sim) -> None:
    """It("Change node mode in MachineNodePool"): node A to maintenance, the maintenance node to ready."""
    sim.create(new_pool(TEST_NODES))
    sim.settle()
    update_pool(sim, {READY_A: {"mode": "maintenance"}, MAINTENANCE: {"mode": "ready"}})
    sim.settle()
    expected = copy.deepcopy(TEST_NODES)
    expected[0].update(mode="maintenance", status="Maintenance")
    expected[2].update(mode="ready", status="Healthy")
    for n in expected:
        assert node_conditions(sim)[n["name"]] == n["status"]
        node = sim.node(n["name"])
        assert labels(node)[MACHINE_STATUS_KEY] == n["mode"]
        if n["taint"]:
            assert taint_map(node)[MACHINE_STATUS_KEY] == n["mode"]


def test_change_taint_in_pool(sim: Sim) -> None:
    """It("Change taint in MachineNodePool"): A and the maintenance node get taint: true, B loses it.

    reconcileNode removes a node's imperator taints only while its entry says taint: true, so
    node B keeps the taints it had (upstream's test expects none but never makes the change).
    """
    sim.create(new_pool(TEST_NODES))
    sim.settle()
    before_b = taint_map(sim.node(READY_B))
    update_pool(sim, {READY_A: {"taint": True}, READY_B: {"taint": False}, MAINTENANCE: {"taint": True}})
    sim.settle()
    for n in TEST_NODES:
        node = sim.node(n["name"])
        assert annotations(node)[MACHINE_GROUP_KEY] == GROUP_NAME
        assert node_conditions(sim)[n["name"]] == n["status"]
    for name in (READY_A, MAINTENANCE):
        entry = next(n for n in TEST_NODES if n["name"] == name)
        found = taint_map(sim.node(name))
        assert len(found) == 1 + len(entry["machineType"])
        assert found[MACHINE_STATUS_KEY] == entry["mode"]
        assert found[machine_type_key(entry["machineType"][0]["name"])] == GROUP_NAME
    assert taint_map(sim.node(READY_B)) == before_b == {
        MACHINE_STATUS_KEY: "ready", machine_type_key("compute-xmedium"): GROUP_NAME}


def test_change_machine_type_in_pool(sim: Sim) -> None:
    """It("Change machineType in MachineNodePool"): every node moves to another machine type.

    removeNodeLabel and removeNodeTaint only know the entry's current machine types, so the
    old machine-type label (and, with taint: true, taint) stays next to the new one.
    """
    sim.create(new_pool(TEST_NODES))
    sim.settle()
    moves = {READY_A: ("compute-xlarge", "compute-xmedium"), READY_B: ("compute-xmedium", "compute-xsmall"),
             MAINTENANCE: ("compute-xsmall", "compute-xlarge")}
    update_pool(sim, {name: {"machineType": [{"name": new}]} for name, (_, new) in moves.items()})
    sim.settle()
    for n in TEST_NODES:
        old, new = moves[n["name"]]
        node = sim.node(n["name"])
        assert annotations(node)[MACHINE_GROUP_KEY] == GROUP_NAME
        assert labels(node) == {MACHINE_STATUS_KEY: n["mode"], machine_type_key(old): GROUP_NAME,
                                machine_type_key(new): GROUP_NAME}
        if n["taint"]:
            assert taint_map(node) == {MACHINE_STATUS_KEY: n["mode"], machine_type_key(old): GROUP_NAME,
                                       machine_type_key(new): GROUP_NAME}


def test_missing_node_fails_the_reconcile(sim: Sim) -> None:
    """It("Should not complete reconcile because controller try to register fake-node.")."""
    nodes = [*TEST_NODES, {"name": "fake-node", "mode": "ready", "status": "Healthy", "taint": False,
                           "machineType": [{"name": "machine-xmedium"}]}]
    sim.create(new_pool(nodes))
    sim.settle()
    status = pool(sim)["status"]
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == ("False", "Failure", 'nodes "fake-node" not found')
    assert "nodePool" not in status
    check_nodes(sim, TEST_NODES)  # the nodes before the missing one were done


def test_missing_node_is_retried_with_backoff_and_picked_up_once_it_exists(sim: Sim) -> None:
    """Node creations are not watched: the failed pool is retried by the rate limiter in simulated time."""
    nodes = [*TEST_NODES, {"name": "late-node", "mode": "ready", "status": "Healthy", "taint": True,
                           "machineType": [{"name": "compute-xlarge"}]}]
    sim.create(new_pool(nodes))
    sim.settle()
    controller = sim.controllers[0]
    assert isinstance(controller, MachineNodePoolController)
    # the Ready=False status write is a pool event too, so the pool fails a second time at once
    assert controller.limiter.failures(("", POOL_NAME)) == 2
    assert controller.queue.ready() == 0 and controller.queue.next_delayed() is not None
    sim.create(new_node("late-node"))
    sim.settle()  # same instant: the retry (5 ms later) has not come yet
    assert MACHINE_STATUS_KEY not in labels(sim.node("late-node"))
    sim.step(10)
    assert taint_map(sim.node("late-node"))[MACHINE_STATUS_KEY] == "ready"
    assert node_conditions(sim)["late-node"] == "Healthy"
    assert next(c for c in pool(sim)["status"]["conditions"] if c["type"] == "Ready")["status"] == "True"
    assert controller.limiter.failures(("", POOL_NAME)) == 0
