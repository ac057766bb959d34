"""NodeResourcesFit LeastAllocated scoring, ported from upstream's least_allocated_test.go table."""

# upstream: pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go

from __future__ import annotations

import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXT = "abc.com/xyz"
EXTENDED_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]


def cap(cpu: str, mem: str, **extra: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem, **{k.replace("__", "/").replace("_", "."): v for k, v in extra.items()}}


TWO_REQ = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]

CASES = [
    ("nothing scheduled, nothing requested", make_pod(),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))], [], [100, 100], DEFAULT),
    ("nothing scheduled, resources requested, differently sized nodes", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))], [], [37, 50], DEFAULT),
    ("no resources requested, pods scheduled", make_pod(),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
     [make_pod(node="node1"), make_pod(node="node1"), make_pod(node="node2"), make_pod(node="node2")], [100, 100], DEFAULT),
    ("no resources requested, pods scheduled with resources", make_pod(),
     [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]),
      make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [70, 57], DEFAULT),
    ("resources requested, pods scheduled with resources", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [57, 45], DEFAULT),
    ("resources requested, pods scheduled with resources, differently sized nodes", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "50000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [57, 60], DEFAULT),
    ("requested resources exceed node capacity", make_pod(reqs=[{"cpu": "3000", "memory": "0"}]),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [50, 25], DEFAULT),
    ("zero node resources, pods scheduled with resources", make_pod(),
     [make_node("node1"), make_node("node2")],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [0, 0], DEFAULT),
    ("nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
     make_pod(node="node1", reqs=TWO_REQ),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))], [], [41, 50],
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
    ("bypass extended resource if the pod does not request", make_pod(node="node1", reqs=TWO_REQ),
     [make_node("node1", cap("6000", "10000")), make_node("node2", {**cap("6000", "10000"), EXT: "4"})], [], [50, 50], EXTENDED_SET),
    ("honor extended resource if the pod requests", make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "5000", EXT: "2"}]),
     [make_node("node1", {**cap("6000", "10000"), EXT: "4"}), make_node("node2", {**cap("6000", "10000"), EXT: "10"})], [], [50, 60], EXTENDED_SET),
    ("if the node doesn't have a resource", make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "4000"}]),
     [make_node("node1", cap("6000", "10000")), make_node("node2", {**cap("6000", "10000"), EXT: "4"})], [], [55, 55],
     [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
]

INVALID = [
    ("resource with negative weight", [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}], "scoringStrategy.resources[0].weight"),
    ("resource with zero weight", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}], "scoringStrategy.resources[1].weight"),
    ("resource weight larger than MaxNodeScore", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}], "scoringStrategy.resources[1].weight"),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want,resources", CASES, ids=[c[0] for c in CASES])
def test_least_allocated(name, pod, nodes, existing, want, resources):  # type: ignore[no-untyped-def]
    h = PluginHarness("NodeResourcesFit", {"scoringStrategy": {"type": "LeastAllocated", "resources": resources}}, nodes, existing)
    assert h.score(pod) == want


@pytest.mark.parametrize("name,resources,field", INVALID, ids=[c[0] for c in INVALID])
def test_least_allocated_invalid_weights(name, resources, field):  # type: ignore[no-untyped-def]
    with pytest.raises(Exception, match=field.replace("[", r"\[").replace("]", r"\]")):
        PluginHarness("NodeResourcesFit", {"scoringStrategy": {"type": "LeastAllocated", "resources": resources}},
                      [make_node("node1", cap("4000", "10000"))])
