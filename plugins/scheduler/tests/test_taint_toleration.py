"""TaintToleration, ported from upstream's taint_toleration_test.go tables.

The upstream table also holds Gt/Lt toleration cases (a 1.35 feature gate) and words the
filter reason "untolerated taint(s)"; v1.34 has neither, so those cases are left out and
the reason names the taint ({key: value}) as v1.34 does.
"""

# upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go

from __future__ import annotations

from typing import Any

import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import Code, QueueingHint, Status

UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str = "", op: str = "", value: str = "", effect: str = "") -> dict[str, str]:
    t = {"key": key, "operator": op, "value": value, "effect": effect}
    return {k: v for k, v in t.items() if v}


SCORE = [
    ("node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
     [tol("foo", "Equal", "bar", "PreferNoSchedule")],
     [("nodeA", [taint("foo", "bar", "PreferNoSchedule")]), ("nodeB", [taint("foo", "blah", "PreferNoSchedule")])], [100, 0]),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
     [tol("cpu-type", "Equal", "arm64", "PreferNoSchedule"), tol("disk-type", "Equal", "ssd", "PreferNoSchedule")],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
      ("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"), taint("disk-type", "ssd", "PreferNoSchedule")])], [100, 100, 100]),
    ("the more intolerable taints a node has, the lower score it gets.", [tol("foo", "Equal", "bar", "PreferNoSchedule")],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
      ("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"), taint("disk-type", "ssd", "PreferNoSchedule")])], [100, 50, 0]),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
     [tol("cpu-type", "Equal", "arm64", "NoSchedule"), tol("disk-type", "Equal", "ssd", "NoSchedule")],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]),
      ("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"), taint("disk-type", "ssd", "PreferNoSchedule")])], [100, 100, 0]),
    ("Default behaviour No taints and tolerations, lands on node with no taints", [],
     [("nodeA", []), ("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")])], [100, 0]),
]


@pytest.mark.parametrize("name,tolerations,nodes,want", SCORE, ids=[c[0] for c in SCORE])
def test_taint_toleration_score(name, tolerations, nodes, want):  # type: ignore[no-untyped-def]
    h = PluginHarness("TaintToleration", None, [make_node(n, taints=t) for n, t in nodes])
    assert h.score(make_pod("pod1", tolerations=tolerations)) == want


def reason(key: str, value: str) -> Status:
    return Status(UU, f"node(s) had untolerated taint {{{key}: {value}}}")


FILTER: list[tuple[str, list[dict[str, Any]], list[dict[str, str]], Status | None]] = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints", [],
     [taint("dedicated", "user1", "NoSchedule")], reason("dedicated", "user1")),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [tol("dedicated", "", "user1", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")], None),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     [tol("dedicated", "Equal", "user2", "NoSchedule")], [taint("dedicated", "user1", "NoSchedule")], reason("dedicated", "user1")),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
     [tol("foo", "Exists", "", "NoSchedule")], [taint("foo", "bar", "NoSchedule")], None),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
     [tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")],
     [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")], None),
    ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
     [tol("foo", "Equal", "bar", "PreferNoSchedule")], [taint("foo", "bar", "NoSchedule")], reason("foo", "bar")),
    ("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
     [tol("foo", "Equal", "bar")], [taint("foo", "bar", "NoSchedule")], None),
    ("The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [tol("dedicated", "Equal", "user2", "NoSchedule")], [taint("dedicated", "user1", "PreferNoSchedule")], None),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [], [taint("dedicated", "user1", "PreferNoSchedule")], None),
]


@pytest.mark.parametrize("name,tolerations,taints,want", FILTER, ids=[c[0] for c in FILTER])
def test_taint_toleration_filter(name, tolerations, taints, want):  # type: ignore[no-untyped-def]
    h = PluginHarness("TaintToleration", None, [make_node("nodeA", taints=taints)])
    assert h.filter(make_pod("pod1", tolerations=tolerations)) == [want]


# kubesim's own checks of the node-change queueing hint (not an upstream table)
HINTS = [
    ("new node without taints is queued", [], None, [], QueueingHint.QUEUE),
    ("new node with an untolerated taint is skipped", [], None, [taint("foo", "bar", "NoSchedule")], QueueingHint.QUEUE_SKIP),
    ("taint removed from a node is queued", [], [taint("foo", "bar", "NoSchedule")], [], QueueingHint.QUEUE),
    ("tolerated taint added is skipped", [tol("foo", "Exists")], [], [taint("foo", "bar", "NoSchedule")], QueueingHint.QUEUE_SKIP),
]


@pytest.mark.parametrize("name,tolerations,old_taints,new_taints,want", HINTS, ids=[c[0] for c in HINTS])
def test_is_schedulable_after_node_change(name, tolerations, old_taints, new_taints, want):  # type: ignore[no-untyped-def]
    from kubesim_scheduler.plugins.tainttoleration import _after_node_change

    old = None if old_taints is None else make_node("n", taints=old_taints)
    assert _after_node_change(make_pod(tolerations=tolerations), old, make_node("n", taints=new_taints)) == want
