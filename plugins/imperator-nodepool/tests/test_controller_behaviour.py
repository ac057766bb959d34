"""The MachineNodePool controller beyond upstream's tests: which node changes wake it, upstream's
cleanup stopping early, the not-ready taint on tainted pools, the timeline, and the dry run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubesim.controllers import Client
from kubesim_imperator_nodepool import (
    API_VERSION,
    MACHINE_GROUP_KEY,
    MACHINE_STATUS_KEY,
    MachineNodePoolController,
    WouldWrite,
    Writer,
    extract_key_value_from_taints,
    machine_type_key,
)
from nodepool_harness import Sim, annotations, labels, new_node, taints

GROUP = "g"


def pool(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": "MachineNodePool",
            "metadata": {"name": f"{GROUP}-node-pool", "labels": {MACHINE_GROUP_KEY: GROUP}},
            "spec": {"machineGroupName": GROUP, "nodePool": list(entries), "machineTypeStock": [{"name": "t"}]}}


def entry(name: str, mode: str = "ready", taint: bool = False) -> dict[str, Any]:
    return {"name": name, "mode": mode, "taint": taint, "machineType": [{"name": "t"}]}


@pytest.fixture
def sim() -> Iterator[Sim]:
    s = Sim(MachineNodePoolController)
    for name in ("a", "b", "c", "other"):
        s.create(new_node(name))
    yield s
    s.close()


def controller(sim: Sim) -> MachineNodePoolController:
    c = sim.controllers[0]
    assert isinstance(c, MachineNodePoolController)
    return c


def test_only_label_annotation_and_taint_changes_of_the_groups_nodes_wake_it(sim: Sim) -> None:
    sim.create(pool(entry("a")))
    sim.settle()
    c = controller(sim)
    other = sim.node("other")
    other["metadata"]["labels"] = {"x": "y"}
    sim.cluster.update(other)
    assert c.queue.ready() == 0  # not annotated with the group
    node = sim.node("a")
    node["status"]["allocatable"] = {"cpu": "4"}
    sim.cluster.update(node, subresource="status")
    assert c.queue.ready() == 0  # a status change passes no predicate
    node = sim.node("a")
    node["metadata"]["labels"]["x"] = "y"
    sim.cluster.update(node)
    assert c.queue.ready() == 1
    sim.settle()


def test_a_removed_label_is_put_back(sim: Sim) -> None:
    sim.create(pool(entry("a")))
    sim.settle()
    node = sim.node("a")
    del node["metadata"]["labels"][MACHINE_STATUS_KEY]
    sim.cluster.update(node)
    sim.settle()
    assert labels(sim.node("a"))[MACHINE_STATUS_KEY] == "ready"


def test_cleanup_stops_at_the_first_node_with_nothing_to_undo(sim: Sim) -> None:
    """cleanupNode returns at the first node without changes; a deleted node is such a node."""
    sim.create(pool(entry("a"), entry("b"), entry("c")))
    sim.settle()
    sim.cluster.delete("v1", "Node", "b")  # node deletions are not watched
    sim.settle()
    sim.cluster.delete(API_VERSION, "MachineNodePool", f"{GROUP}-node-pool")
    sim.settle()
    assert not sim.exists(API_VERSION, "MachineNodePool", f"{GROUP}-node-pool")
    assert labels(sim.node("a")) == {} and annotations(sim.node("a")) == {}
    assert labels(sim.node("c")) == {MACHINE_STATUS_KEY: "ready", machine_type_key("t"): GROUP}
    assert annotations(sim.node("c")) == {MACHINE_GROUP_KEY: GROUP}


def test_tainted_pool_node_turns_not_ready(sim: Sim) -> None:
    sim.create(pool(entry("a", taint=True), entry("b", mode="maintenance", taint=True)))
    sim.settle()
    node = sim.node("a")
    node["spec"]["taints"].append({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"})
    sim.cluster.update(node)
    sim.settle()
    found = extract_key_value_from_taints(taints(sim.node("a")))
    assert found[MACHINE_STATUS_KEY] == "not-ready" and "node.kubernetes.io/unreachable" in found
    assert extract_key_value_from_taints(taints(sim.node("b")))[MACHINE_STATUS_KEY] == "maintenance"
    conditions = {c["name"]: c["condition"] for c in sim.get(API_VERSION, "MachineNodePool",
                                                             f"{GROUP}-node-pool")["status"]["nodePool"]}
    assert conditions == {"a": "Unhealthy", "b": "Maintenance"}


def test_taints_are_stamped_again_when_a_later_step_reconciles(sim: Sim) -> None:
    """reconcileNode removes and re-adds the taints with timeAdded now, as upstream does."""
    sim.create(pool(entry("a", taint=True), entry("b")))
    sim.settle()
    first = [t["timeAdded"] for t in taints(sim.node("a"))]
    sim.step(10)
    assert [t["timeAdded"] for t in taints(sim.node("a"))] == first  # nothing woke the pool
    node = sim.node("b")
    node["metadata"]["labels"]["x"] = "y"
    sim.cluster.update(node)
    sim.settle()
    assert [t["timeAdded"] for t in taints(sim.node("a"))] == [sim.clock.timestamp()] * 2


def test_status_writes_are_recorded_in_the_timeline(sim: Sim) -> None:
    sim.create(pool(entry("a"), entry("b", mode="maintenance")))
    sim.settle()
    events = [e for events in sim.timeline.timeline.values() for e in events
              if e.patch is not None and e.patch.operation.type_meta.kind == "MachineNodePool"]
    status_events = [e for e in events if '"status"' in e.patch.operation.patch]  # type: ignore[union-attr]
    assert len(status_events) == 1
    assert status_events[0].actor == "imperator-nodepool"
    assert status_events[0].patch.result["status"]["nodePool"] == [  # type: ignore[union-attr]
        {"name": "a", "condition": "Healthy"}, {"name": "b", "condition": "Maintenance"}]


def test_dry_run_writer_compares_with_what_is_stored(sim: Sim) -> None:
    writer = Writer(Client(sim.cluster, "test"), dry_run=True)
    node = sim.node("a")
    writer.update(node)  # unchanged: no write
    node["metadata"]["labels"] = {"x": "y"}
    with pytest.raises(WouldWrite, match="update Node a"):
        writer.update(node)
    with pytest.raises(WouldWrite, match="create Node"):
        writer.create(new_node("new"))
    node = sim.node("a")
    node["status"]["capacity"] = {"cpu": "1"}
    with pytest.raises(WouldWrite, match="status"):
        writer.update_status(node)
    assert labels(sim.node("a")) == {}
