"""NodeAffinity, ported from upstream's node_affinity_test.go tables (TestNodeAffinity,
TestNodeAffinityPriority, Test_isSchedulableAfterNodeChange)."""

# upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scheduler_harness import PluginHarness, make_node, make_pod

from kubesim_scheduler.framework import Code, CycleState, NodeInfoList, PodInfo, PreFilterResult, QueueingHint, Status
from kubesim_scheduler.plugins.nodeaffinity import ERR_REASON_CONFLICT, ERR_REASON_ENFORCED, ERR_REASON_POD

UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NAME = "metadata.name"


def req(key: str, op: str, *values: str) -> dict[str, Any]:
    d: dict[str, Any] = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d


def term(exprs: list[dict[str, Any]] | None = None, fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if exprs is not None:
        t["matchExpressions"] = exprs
    if fields is not None:
        t["matchFields"] = fields
    return t


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def added_required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


# name, pod, node labels, node name, want filter status, want prefilter status, want prefilter result, args, run prefilter
FILTER = [
    ("missing labels", make_pod(node_selector={"foo": "bar"}), {}, "", Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("same labels", make_pod(node_selector={"foo": "bar"}), {"foo": "bar"}, "", None, None, None, {}, True),
    ("node labels are superset", make_pod(node_selector={"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "", None, None, None, {}, True),
    ("node labels are subset", make_pod(node_selector={"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "",
     Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with matchExpressions using In operator that matches the existing node",
     make_pod(affinity=required(term([req("foo", "In", "bar", "value2")]))), {"foo": "bar"}, "", None, None, None, {}, True),
    ("Pod with matchExpressions using Gt operator that matches the existing node",
     make_pod(affinity=required(term([req("kernel-version", "Gt", "0204")]))), {"kernel-version": "0206"}, "", None, None, None, {}, True),
    ("Pod with matchExpressions using NotIn operator that matches the existing node",
     make_pod(affinity=required(term([req("mem-type", "NotIn", "DDR", "DDR2")]))), {"mem-type": "DDR3"}, "", None, None, None, {}, True),
    ("Pod with matchExpressions using Exists operator that matches the existing node",
     make_pod(affinity=required(term([req("GPU", "Exists")]))), {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None, {}, True),
    ("Pod with affinity that don't match node's labels won't schedule onto the node",
     make_pod(affinity=required(term([req("foo", "In", "value1", "value2")]))), {"foo": "bar"}, "",
     Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
     make_pod(affinity=required(term([]))), {"foo": "bar"}, "", Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with no Affinity will schedule onto a node", make_pod(), {"foo": "bar"}, "", None, Status(Code.SKIP), None, {}, True),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node",
     make_pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}}), {"foo": "bar"}, "",
     None, Status(Code.SKIP), None, {}, True),
    ("Pod with multiple matchExpressions ANDed that matches the existing node",
     make_pod(affinity=required(term([req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")]))), {"GPU": "NVIDIA-GRID-K1"}, "",
     None, None, None, {}, True),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
     make_pod(affinity=required(term([req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER")]))), {"GPU": "NVIDIA-GRID-K1"}, "",
     Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
     make_pod(affinity=required(term([req("foo", "In", "bar", "value2")]), term([req("diffkey", "In", "wrong", "value2")]))),
     {"foo": "bar"}, "", None, None, None, {}, True),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
     make_pod(node_selector={"foo": "bar"}, affinity=required(term([req("foo", "Exists")]))), {"foo": "bar"}, "", None, None, None, {}, True),
    ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
     make_pod(node_selector={"foo": "bar"}, affinity=required(term([req("foo", "Exists")]))), {"foo": "barrrrrr"}, "",
     Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
     make_pod(affinity=required(term([req("foo", "NotIn", "invalid value: ___@#$%^")]))), {"foo": "bar"}, "",
     Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with matchFields using In operator that matches the existing node",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1")]))), {}, "node1", None, None, PreFilterResult({"node1"}), {}, True),
    ("Pod with matchFields using In operator that does not match the existing node",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1")]))), {}, "node2",
     Status(UU, ERR_REASON_POD), None, PreFilterResult({"node1"}), {}, True),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1"), req(NAME, "In", "node2")]), term([req("foo", "In", "bar")]))),
     {"foo": "bar"}, "node2", None, None, None, {}, True),
    ("Pod with one term: matchFields does not match, but matchExpressions matches",
     make_pod(affinity=required(term([req("foo", "In", "bar")], [req(NAME, "In", "node1")]))), {"foo": "bar"}, "node2",
     Status(UU, ERR_REASON_POD), None, PreFilterResult({"node1"}), {}, True),
    ("Pod with one term: both matchFields and matchExpressions match",
     make_pod(affinity=required(term([req("foo", "In", "bar")], [req(NAME, "In", "node1")]))), {"foo": "bar"}, "node1",
     None, None, PreFilterResult({"node1"}), {}, True),
    ("Pod with two terms: both matchFields and matchExpressions do not match",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1")]), term([req("foo", "In", "not-match-to-bar")]))),
     {"foo": "bar"}, "node2", Status(UU, ERR_REASON_POD), None, None, {}, True),
    ("Pod with two terms of node.Name affinity",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1")]), term(fields=[req(NAME, "In", "node2")]))), {}, "node2",
     None, None, PreFilterResult({"node1", "node2"}), {}, True),
    ("Pod with two conflicting mach field requirements",
     make_pod(affinity=required(term(fields=[req(NAME, "In", "node1"), req(NAME, "In", "node2")]))), {"foo": "bar"}, "node2",
     Status(UU, ERR_REASON_POD), Status(UU, ERR_REASON_CONFLICT), None, {}, True),
    ("Matches added affinity and Pod's node affinity", make_pod(affinity=required(term([req("zone", "In", "foo")]))),
     {"zone": "foo"}, "node2", None, None, None, added_required(term(fields=[req(NAME, "In", "node2")])), True),
    ("Matches added affinity but not Pod's node affinity", make_pod(affinity=required(term([req("zone", "In", "bar")]))),
     {"zone": "foo"}, "node2", Status(UU, ERR_REASON_POD), None, None, added_required(term(fields=[req(NAME, "In", "node2")])), True),
    ("Doesn't match added affinity", make_pod(), {"zone": "foo"}, "node2", Status(UU, ERR_REASON_ENFORCED), None, None,
     added_required(term([req("zone", "In", "bar")])), True),
    ("Matches node selector correctly even if PreFilter is not called", make_pod(node_selector={"foo": "bar"}),
     {"foo": "bar", "baz": "blah"}, "", None, None, None, {}, False),
    ("Matches node affinity correctly even if PreFilter is not called",
     make_pod(affinity=required(term([req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")]))), {"GPU": "NVIDIA-GRID-K1"}, "",
     None, None, None, {}, False),
]


@pytest.mark.parametrize("name,pod,labels,node_name,want,want_pf_status,want_pf_result,args,run_pf", FILTER, ids=[c[0] for c in FILTER])
def test_node_affinity_filter(name, pod, labels, node_name, want, want_pf_status, want_pf_result, args, run_pf):  # type: ignore[no-untyped-def]
    h = PluginHarness("NodeAffinity", args, [make_node(node_name or "unnamed", labels=labels)])
    pl = h.fw.plugin("NodeAffinity")
    pi = PodInfo(pod)
    state = CycleState(pi)
    if run_pf:
        res, st = pl.pre_filter(state, pod, NodeInfoList(h.table, h.table.order))  # type: ignore[union-attr]
        assert st == want_pf_status
        assert res == want_pf_result
    row = h.table.name_to_row[node_name or "unnamed"]
    got = pl.filter_batch(state, pi, np.array([row])).status(0, row)  # type: ignore[union-attr]
    assert got == want


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def preferred(*terms: tuple[int, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": {"matchExpressions": exprs}} for w, exprs in terms]}}


AFFINITY1 = preferred((2, [req("foo", "In", "bar")]))
AFFINITY2 = preferred((2, [req("foo", "In", "bar")]), (4, [req("key", "In", "value")]),
                      (5, [req("foo", "In", "bar"), req("key", "In", "value"), req("az", "In", "az1")]))

PRIORITY = [
    ("all nodes are same priority as NodeAffinity is nil", make_pod(),
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], [0, 0, 0], {}, True),
    ("no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero", make_pod(affinity=AFFINITY1),
     [("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)], [0, 0, 0], {}, True),
    ("only node1 matches the preferred scheduling requirements of pod", make_pod(affinity=AFFINITY1),
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)], [100, 0, 0], {}, True),
    ("all nodes matches the preferred scheduling requirements of pod but with different priorities", make_pod(affinity=AFFINITY2),
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], [18, 100, 36], {}, True),
    ("added affinity", make_pod(), [("node1", LABEL1), ("node2", LABEL2)], [100, 0], {"addedAffinity": AFFINITY1["nodeAffinity"]}, True),
    ("added affinity and pod has default affinity", make_pod(affinity=AFFINITY1),
     [("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)], [40, 60, 100],
     {"addedAffinity": preferred((3, [req("key", "In", "value")]))["nodeAffinity"]}, True),
    ("calculate the priorities correctly even if PreScore is not called", make_pod(affinity=AFFINITY2),
     [("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)], [18, 100, 36], {}, False),
]


@pytest.mark.parametrize("name,pod,nodes,want,args,run_pre_score", PRIORITY, ids=[c[0] for c in PRIORITY])
def test_node_affinity_priority(name, pod, nodes, want, args, run_pre_score):  # type: ignore[no-untyped-def]
    h = PluginHarness("NodeAffinity", args, [make_node(n, labels=lab) for n, lab in nodes])
    pl = h.fw.plugin("NodeAffinity")
    pi = PodInfo(pod)
    state = CycleState(pi)
    rows = np.array([h.table.name_to_row[n] for n, _ in nodes])
    if run_pre_score:
        st = pl.pre_score(state, pod, NodeInfoList(h.table, rows))  # type: ignore[union-attr]
        assert st is None or st.is_skip()  # upstream's "nil affinity" case skips here
    raw = pl.score_batch(state, pi, rows)  # type: ignore[union-attr]
    assert pl.normalize_batch(state, pi, rows, raw).tolist() == want  # type: ignore[union-attr]


POD_WITH_AFFINITY = make_pod(affinity=required(term([req("foo", "In", "bar")])))
ENFORCED = added_required(term([req("foo", "In", "bar")]))
HINTS = [
    ("skip-queue-on-add", {}, None, make_node("n"), QueueingHint.QUEUE_SKIP),
    ("queue-on-add", {}, None, make_node("n", labels={"foo": "bar"}), QueueingHint.QUEUE),
    ("skip-unrelated-changes", {}, make_node("n"), make_node("n", {}), QueueingHint.QUEUE_SKIP),
    ("skip-unrelated-changes-on-labels", {}, make_node("n"), make_node("n", labels={"k": "v"}), QueueingHint.QUEUE_SKIP),
    ("skip-labels-changes-on-suitable-node", {}, make_node("n", labels={"foo": "bar"}), make_node("n", labels={"foo": "bar", "k": "v"}),
     QueueingHint.QUEUE_SKIP),
    ("skip-labels-changes-on-node-from-suitable-to-unsuitable", {}, make_node("n", labels={"foo": "bar"}), make_node("n", labels={"k": "v"}),
     QueueingHint.QUEUE_SKIP),
    ("queue-on-labels-change-makes-pod-schedulable", {}, make_node("n"), make_node("n", labels={"foo": "bar"}), QueueingHint.QUEUE),
    ("skip-queue-on-add-scheduler-enforced-node-affinity", ENFORCED, None, make_node("n"), QueueingHint.QUEUE_SKIP),
    ("queue-on-add-scheduler-enforced-node-affinity", ENFORCED, None, make_node("n", labels={"foo": "bar"}), QueueingHint.QUEUE),
]


@pytest.mark.parametrize("name,args,old,new,want", HINTS, ids=[c[0] for c in HINTS])
def test_is_schedulable_after_node_change(name, args, old, new, want):  # type: ignore[no-untyped-def]
    pl = PluginHarness("NodeAffinity", args).fw.plugin("NodeAffinity")
    assert pl._after_node_change(POD_WITH_AFFINITY, old, new) == want  # type: ignore[union-attr]
