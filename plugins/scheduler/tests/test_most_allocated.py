"""NodeResourcesFit MostAllocated scoring, ported from upstream's most_allocated_test.go table."""

# upstream: pkg/scheduler/framework/plugins/noderesources/most_allocated_test.go

from __future__ import annotations

import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXT = "abc.com/xyz"
EXTENDED_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": EXT, "weight": 1}]
TWO_REQ = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]


def cap(cpu: str, mem: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem}


CASES = [
    ("nothing scheduled, nothing requested", make_pod(),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))], [], [0, 0], DEFAULT),
    ("nothing scheduled, resources requested, differently sized nodes", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))], [], [62, 50], DEFAULT),
    ("no resources requested, pods scheduled with resources", make_pod(),
     [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]),
      make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [30, 42], DEFAULT),
    ("resources requested, pods scheduled with resources", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
     [make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "0"}]), make_pod(node="node2", reqs=[{"cpu": "3000", "memory": "5000"}])],
     [42, 55], DEFAULT),
    ("resources requested equal node capacity",
     make_pod(reqs=[{"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}]),
     [make_node("node1", cap("5000", "10000")), make_node("node2", cap("10000", "9000"))], [], [95, 75], DEFAULT),
    ("nothing scheduled, resources requested, differently sized nodes (weighted)", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))], [], [58, 50],
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
    ("no resources requested, pods scheduled, nonzero request for resource", make_pod(reqs=[None]),
     [make_node("node1", cap("250m", "1000Mi")), make_node("node2", cap("250m", "1000Mi"))],
     [make_pod(node="node1", reqs=[None]), make_pod(node="node1", reqs=[None])], [80, 30], DEFAULT),
    ("bypass extended resource if the pod does not request", make_pod(reqs=TWO_REQ),
     [make_node("node1", cap("6000", "10000")), make_node("node2", {**cap("6000", "10000"), EXT: "4"})], [], [50, 50], EXTENDED_SET),
    ("honor extended resource if the pod request", make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "5000", EXT: "2"}]),
     [make_node("node1", {**cap("6000", "10000"), EXT: "4"}), make_node("node2", {**cap("6000", "10000"), EXT: "10"})], [], [50, 40], EXTENDED_SET),
    ("if the node doesn't have a resource", make_pod(node="node1", reqs=[{"cpu": "3000", "memory": "4000"}]),
     [make_node("node1", cap("6000", "10000")), make_node("node2", {**cap("6000", "10000"), EXT: "4"})], [], [45, 45],
     [{"name": EXT, "weight": 2}, {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]),
]

INVALID = [
    ("resource with negative weight", [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}], r"scoringStrategy\.resources\[0\]\.weight"),
    ("resource with zero weight", [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}], r"scoringStrategy\.resources\[1\]\.weight"),
    ("resource weight larger than MaxNodeScore", [{"name": "memory", "weight": 101}], r"scoringStrategy\.resources\[0\]\.weight"),
]


@pytest.mark.parametrize("name,pod,nodes,existing,want,resources", CASES, ids=[c[0] for c in CASES])
def test_most_allocated(name, pod, nodes, existing, want, resources):  # type: ignore[no-untyped-def]
    h = PluginHarness("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resources": resources}}, nodes, existing)
    assert h.score(pod) == want


@pytest.mark.parametrize("name,resources,field", INVALID, ids=[c[0] for c in INVALID])
def test_most_allocated_invalid_weights(name, resources, field):  # type: ignore[no-untyped-def]
    with pytest.raises(Exception, match=field):
        PluginHarness("NodeResourcesFit", {"scoringStrategy": {"type": "MostAllocated", "resources": resources}},
                      [make_node("node2", cap("4000", "10000"))])
