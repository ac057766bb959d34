"""InterPodAffinity: upstream test tables (filtering_test.go, scoring_test.go) and conformance cases."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
try:
    import kubesim_scheduler  # noqa: F401
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(_HERE.parent / "src"))

import conformance_data
from interpodaffinity_builders import (
    PREF_ANTI,
    REQ_ANTI,
    Pod,
    affinity,
    bare_pod,
    node,
    sel,
    term,
    weighted,
)
from kubesim_scheduler.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
)
from kubesim_scheduler.plugins.interpodaffinity import (
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
)
from kubesim_scheduler.plugins.interpodaffinity import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
)
from kubesim_scheduler.plugins.interpodaffinity import (
    ClusterIndex,
    InterPodAffinityArgs,
    filter_node,
    filter_nodes,
    normalize_scores,
    pod_affinity_info,
    pre_filter,
    pre_score,
    score_node,
    score_nodes,
)

U = "UnschedulableAndUnresolvable"
S = "Unschedulable"
MAX = 100

NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def make_index(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> ClusterIndex:
    """An index with unique uids (upstream snapshots don't key pods)."""
    for i, p in enumerate(pods):
        p["metadata"].setdefault("uid", f"uid-{i}")
    return ClusterIndex(nodes, pods)


def status_of(outcome: Any) -> tuple[str, str] | None:
    return None if outcome is None else (outcome.code, " ".join(outcome.reasons))


# ----- TestRequiredAffinitySingleNode ------------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})


def _existing() -> dict[str, Any]:
    return Pod().labels(POD_LABEL).node("node1").obj()


def _with_terms(
    ns: str, labels: dict[str, str], aff: list[Any] | None, anti: list[Any] | None
) -> dict[str, Any]:
    """createPodWithAffinityTerms."""
    a = {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": aff},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": anti},
    }
    return Pod().ns(ns).labels(labels).affinity(a).obj()


_TEAM1 = sel(None, ("team", "In", ["team1"]))
_SVC_IN = sel(None, ("service", "In", ["securityscan", "value2"]))
_BAD_VALUE_MSG = (
    'values[0][service]: Invalid value: "{{.bad-value.}}": a valid label must be an empty string or consist of '
    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
    "'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

SINGLE_NODE = [
    (
        "no required pod affinity, no existing pods",
        Pod().obj(),
        [],
        ("Skip", ""),
        None,
    ),
    (
        "satisfies required PodAffinity using In operator that matches the existing pod",
        Pod().labels(POD_LABEL2).pod_affinity_in("service", "region", ["securityscan", "value2"]).obj(),
        [_existing()],
        None,
        None,
    ),
    (
        "satisfies required PodAffinity using NotIn operator that matches the existing pod",
        Pod().labels(POD_LABEL2).pod_affinity_not_in("service", "region", ["securityscan3", "value3"]).obj(),
        [_existing()],
        None,
        None,
    ),
    (
        "does not satisfy PodAffinity because of diff namespace",
        _with_terms("", POD_LABEL2, [term(_SVC_IN, "", ["DiffNameSpace"])], None),
        [Pod().ns("ns").label("service", "securityscan").node("node1").obj()],
        None,
        (U, AFF),
    ),
    (
        "doesn't satisfy PodAffinity because of unmatching labelSelector",
        Pod().labels(POD_LABEL).pod_affinity_in("service", "", ["antivirusscan", "value2"]).obj(),
        [_existing()],
        None,
        (U, AFF),
    ),
    (
        "satisfies PodAffinity with different label operators in multiple terms",
        _with_terms(
            "",
            POD_LABEL2,
            [
                term(sel(None, ("service", "Exists", None), ("wrongkey", "DoesNotExist", None)), "region"),
                term(
                    sel(None, ("service", "In", ["securityscan"]), ("service", "NotIn", ["WrongValue"])),
                    "region",
                ),
            ],
            None,
        ),
        [_existing()],
        None,
        None,
    ),
    (
        "matchExpressions are ANDed: one item doesn't match",
        _with_terms(
            "",
            POD_LABEL2,
            [
                term(sel(None, ("service", "Exists", None), ("wrongkey", "DoesNotExist", None)), "region"),
                term(
                    sel(None, ("service", "In", ["securityscan2"]), ("service", "NotIn", ["WrongValue"])),
                    "region",
                ),
            ],
            None,
        ),
        [_existing()],
        None,
        (U, AFF),
    ),
    (
        "satisfies PodAffinity and PodAntiAffinity with the existing pod",
        Pod()
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], REQ_ANTI)
        .obj(),
        [_existing()],
        None,
        None,
    ),
    (
        "satisfies PodAffinity, PodAntiAffinity and anti-affinity symmetry",
        Pod()
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], REQ_ANTI)
        .obj(),
        [
            Pod()
            .node("node1")
            .labels(POD_LABEL)
            .pod_affinity_in("service", "node", ["antivirusscan", "value2"], REQ_ANTI)
            .obj()
        ],
        None,
        None,
    ),
    (
        "satisfies PodAffinity but not PodAntiAffinity",
        Pod()
        .labels(POD_LABEL2)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "zone", ["securityscan", "value2"], REQ_ANTI)
        .obj(),
        [_existing()],
        None,
        (S, ANTI),
    ),
    (
        "satisfies PodAffinity and PodAntiAffinity but not anti-affinity symmetry",
        Pod()
        .labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["securityscan", "value2"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"], REQ_ANTI)
        .obj(),
        [
            Pod()
            .labels(POD_LABEL)
            .node("node1")
            .pod_affinity_in("service", "zone", ["securityscan", "value2"], REQ_ANTI)
            .obj()
        ],
        None,
        (S, EXISTING),
    ),
    (
        "pod matches its own label in PodAffinity and that matches the existing pod labels",
        Pod().labels(POD_LABEL).pod_affinity_not_in("service", "region", ["securityscan", "value2"]).obj(),
        [Pod().label("service", "securityscan").node("node2").obj()],
        None,
        (U, AFF),
    ),
    (
        "existing pod's PodAntiAffinity respected when pod has none: violated",
        Pod().labels(POD_LABEL).obj(),
        [
            Pod()
            .node("node1")
            .labels(POD_LABEL)
            .pod_affinity_in("service", "zone", ["securityscan", "value2"], REQ_ANTI)
            .obj()
        ],
        None,
        (S, EXISTING),
    ),
    (
        "existing pod's PodAntiAffinity respected when pod has none: satisfied",
        Pod().labels(POD_LABEL).obj(),
        [
            Pod()
            .node("node1")
            .labels(POD_LABEL)
            .pod_affinity_not_in("service", "zone", ["securityscan", "value2"], REQ_ANTI)
            .obj()
        ],
        ("Skip", ""),
        None,
    ),
    (
        "satisfies PodAntiAffinity with existing pod but not symmetry with incoming pod",
        Pod()
        .labels(POD_LABEL)
        .pod_affinity_exists("service", "region", REQ_ANTI)
        .pod_affinity_exists("security", "region", REQ_ANTI)
        .obj(),
        [Pod().node("node1").labels(POD_LABEL2).pod_affinity_exists("security", "zone", REQ_ANTI).obj()],
        None,
        (S, ANTI),
    ),
    (
        "symmetry check a1",
        Pod()
        .labels(POD_LABEL)
        .pod_affinity_exists("service", "zone", REQ_ANTI)
        .pod_affinity_exists("security", "zone", REQ_ANTI)
        .obj(),
        [Pod().node("node1").labels(POD_LABEL2).pod_affinity_exists("security", "zone", REQ_ANTI).obj()],
        None,
        (S, ANTI),
    ),
    (
        "symmetry check a2",
        Pod().labels(POD_LABEL2).pod_affinity_exists("security", "zone", REQ_ANTI).obj(),
        [
            Pod()
            .node("node1")
            .labels(POD_LABEL)
            .pod_affinity_exists("service", "zone", REQ_ANTI)
            .pod_affinity_exists("security", "zone", REQ_ANTI)
            .obj()
        ],
        None,
        (S, EXISTING),
    ),
    (
        "symmetry check b1",
        Pod()
        .labels({"abc": "", "xyz": ""})
        .pod_affinity_exists("abc", "zone", REQ_ANTI)
        .pod_affinity_exists("def", "zone", REQ_ANTI)
        .obj(),
        [
            Pod()
            .node("node1")
            .labels({"def": "", "xyz": ""})
            .pod_affinity_exists("abc", "zone", REQ_ANTI)
            .pod_affinity_exists("def", "zone", REQ_ANTI)
            .obj()
        ],
        None,
        (S, ANTI),
    ),
    (
        "symmetry check b2",
        Pod()
        .labels({"def": "", "xyz": ""})
        .pod_affinity_exists("abc", "zone", REQ_ANTI)
        .pod_affinity_exists("def", "zone", REQ_ANTI)
        .obj(),
        [
            Pod()
            .node("node1")
            .labels({"abc": "", "xyz": ""})
            .pod_affinity_exists("abc", "zone", REQ_ANTI)
            .pod_affinity_exists("def", "zone", REQ_ANTI)
            .obj()
        ],
        None,
        (S, ANTI),
    ),
    (
        "PodAffinity fails PreFilter with an invalid affinity label syntax",
        Pod()
        .labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["{{.bad-value.}}"])
        .pod_affinity_in("service", "node", ["antivirusscan", "value2"])
        .obj(),
        [],
        (U, "parsing pod: requiredAffinityTerms: " + _BAD_VALUE_MSG),
        None,
    ),
    (
        "PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
        Pod()
        .labels(POD_LABEL)
        .pod_affinity_in("service", "region", ["foo"])
        .pod_affinity_in("service", "node", ["{{.bad-value.}}"])
        .obj(),
        [],
        (U, "parsing pod: requiredAffinityTerms: " + _BAD_VALUE_MSG),
        None,
    ),
    (
        "affinity with NamespaceSelector",
        _with_terms("", POD_LABEL2, [term(_SVC_IN, "region", namespace_selector=_TEAM1)], None),
        [bare_pod("node1", POD_LABEL, "subteam1.team1")],
        None,
        None,
    ),
    (
        "affinity with non-matching NamespaceSelector",
        _with_terms("", POD_LABEL2, [term(_SVC_IN, "region", namespace_selector=_TEAM1)], None),
        [bare_pod("node1", POD_LABEL, "subteam1.team2")],
        None,
        (U, AFF),
    ),
    (
        "anti-affinity with matching NamespaceSelector",
        _with_terms("subteam1.team1", POD_LABEL2, None, [term(_SVC_IN, "zone", namespace_selector=_TEAM1)]),
        [bare_pod("node1", POD_LABEL, "subteam2.team1")],
        None,
        (S, ANTI),
    ),
    (
        "anti-affinity with matching all NamespaceSelector",
        _with_terms("subteam1.team1", POD_LABEL2, None, [term(_SVC_IN, "zone", namespace_selector={})]),
        [bare_pod("node1", POD_LABEL, "subteam2.team1")],
        None,
        (S, ANTI),
    ),
    (
        "anti-affinity with non-matching NamespaceSelector",
        _with_terms("subteam1.team1", POD_LABEL2, None, [term(_SVC_IN, "zone", namespace_selector=_TEAM1)]),
        [bare_pod("node1", POD_LABEL, "subteam1.team2")],
        None,
        None,
    ),
]


@pytest.mark.parametrize("name,pod,pods,want_pre,want_filter", SINGLE_NODE, ids=[c[0] for c in SINGLE_NODE])
def test_required_affinity_single_node(
    name: str, pod: Any, pods: Any, want_pre: Any, want_filter: Any
) -> None:
    idx = make_index([NODE1], pods)
    state, pre = pre_filter(pod, idx, NAMESPACES)
    assert status_of(pre) == want_pre
    if pre is not None:
        return
    assert state is not None
    assert status_of(filter_node(state, NODE1["metadata"]["labels"])) == want_filter
    assert [status_of(o) for o in filter_nodes(state, idx)] == [want_filter]


# ----- TestRequiredAffinityMultipleNodes ---------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _n3(a: str, b: str, c: str) -> list[dict[str, Any]]:
    return [node(a, RG_CHINA), node(b, RG_CHINA_AZ1), node(c, RG_INDIA)]


def _rz(name: str, zone: str) -> dict[str, Any]:
    return node(name, {"region": "r1", "zone": zone, "hostname": name})


MULTI_NODE = [
    (
        "nodes sharing topology value with a matching pod pass",
        Pod().pod_affinity_in("foo", "region", ["bar"]).obj(),
        [Pod("p1").node("node1").labels({"foo": "bar"}).obj()],
        _n3("node1", "node2", "node3"),
        None,
        [None, None, (U, AFF)],
    ),
    (
        "first pod of a collection is not blocked when no pod matches",
        Pod()
        .labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"])
        .obj(),
        [Pod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
        [node("nodeA", {"zone": "az1", "hostname": "h1"}), node("nodeB", {"zone": "az2", "hostname": "h2"})],
        None,
        [None, None],
    ),
    (
        "first pod of a collection only on nodes with the topology keys",
        Pod()
        .labels({"foo": "bar", "service": "securityscan"})
        .pod_affinity_in("foo", "zone", ["bar"])
        .pod_affinity_in("service", "zone", ["securityscan"])
        .obj(),
        [Pod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
        [
            node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            node("nodeB", {"zoneLabel": "az2", "hostname": "h2"}),
        ],
        None,
        [(U, AFF), (U, AFF)],
    ),
    (
        "anti-affinity blocks the whole region",
        Pod().pod_affinity_in("foo", "region", ["abc"], REQ_ANTI).obj(),
        [Pod().node("nodeA").labels({"foo": "abc"}).obj()],
        [
            node("nodeA", {"region": "r1", "hostname": "nodeA"}),
            node("nodeB", {"region": "r1", "hostname": "nodeB"}),
        ],
        None,
        [(S, ANTI), (S, ANTI)],
    ),
    (
        "anti-affinity matches when any term matches",
        Pod()
        .pod_affinity_in("foo", "region", ["abc"], REQ_ANTI)
        .pod_affinity_in("service", "zone", ["securityscan"], REQ_ANTI)
        .obj(),
        [Pod().node("nodeA").labels({"foo": "abc", "service": "securityscan"}).obj()],
        [
            node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
            node("nodeB", {"region": "r1", "zone": "z2", "hostname": "nodeB"}),
        ],
        None,
        [(S, ANTI), (S, ANTI)],
    ),
    (
        "anti-affinity: nodeC in another region passes",
        Pod().pod_affinity_in("foo", "region", ["abc"], REQ_ANTI).obj(),
        [Pod().node("nodeA").labels({"foo": "abc"}).obj()],
        _n3("nodeA", "nodeB", "nodeC"),
        None,
        [(S, ANTI), (S, ANTI), None],
    ),
    (
        "anti-affinity ignores pods of other namespaces",
        Pod().ns("NS1").labels({"foo": "123"}).pod_affinity_in("foo", "region", ["bar"], REQ_ANTI).obj(),
        [
            Pod().node("nodeA").ns("NS1").labels({"foo": "bar"}).obj(),
            Pod().node("nodeC").ns("NS2").pod_affinity_in("foo", "region", ["123"], REQ_ANTI).obj(),
        ],
        _n3("nodeA", "nodeB", "nodeC"),
        None,
        [(S, ANTI), (S, ANTI), None],
    ),
    (
        "existing pod's term with invalid topologyKey",
        Pod().label("foo", "").obj(),
        [Pod().node("nodeA").pod_affinity_exists("foo", "invalid-node-label", REQ_ANTI).obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z1")],
        ("Skip", ""),
        [None, None],
    ),
    (
        "incoming pod's anti-affinity with invalid topologyKey",
        Pod().node("nodeA").pod_affinity_exists("foo", "invalid-node-label", REQ_ANTI).obj(),
        [Pod().node("nodeA").labels({"foo": ""}).obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z1")],
        None,
        [None, None],
    ),
    (
        "incoming pod violates each existing pod's terms on all nodes",
        Pod().label("foo", "").label("bar", "").obj(),
        [
            Pod().node("nodeA").pod_affinity_exists("foo", "zone", REQ_ANTI).obj(),
            Pod().node("nodeA").pod_affinity_exists("bar", "region", REQ_ANTI).obj(),
        ],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, EXISTING), (S, EXISTING)],
    ),
    (
        "incoming pod violates at least one of its anti-affinity terms",
        Pod()
        .pod_affinity_exists("foo", "zone", REQ_ANTI)
        .pod_affinity_exists("bar", "region", REQ_ANTI)
        .obj(),
        [Pod().node("nodeA").labels({"foo": ""}).obj(), Pod().node("nodeB").labels({"bar": ""}).obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, ANTI), (S, ANTI)],
    ),
    (
        "existing pod's anti-affinity: one term has an invalid topologyKey",
        Pod().label("foo", "").label("bar", "").obj(),
        [
            Pod()
            .node("nodeA")
            .pod_affinity_exists("foo", "invalid-node-label", REQ_ANTI)
            .pod_affinity_exists("bar", "zone", REQ_ANTI)
            .obj()
        ],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, EXISTING), None],
    ),
    (
        "incoming pod's anti-affinity: one term has an invalid topologyKey",
        Pod()
        .pod_affinity_exists("foo", "invalid-node-label", REQ_ANTI)
        .pod_affinity_exists("bar", "zone", REQ_ANTI)
        .obj(),
        [Pod("podA").node("nodeA").labels({"foo": "", "bar": ""}).obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, ANTI), None],
    ),
    (
        "existing pod's anti-affinity: all terms have valid topologyKeys",
        Pod().label("foo", "").label("bar", "").obj(),
        [
            Pod()
            .node("nodeA")
            .pod_affinity_exists("foo", "region", REQ_ANTI)
            .pod_affinity_exists("bar", "zone", REQ_ANTI)
            .obj()
        ],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, EXISTING), (S, EXISTING)],
    ),
    (
        "incoming pod's anti-affinity: all terms have valid topologyKeys",
        Pod()
        .pod_affinity_exists("foo", "region", REQ_ANTI)
        .pod_affinity_exists("bar", "zone", REQ_ANTI)
        .obj(),
        [Pod().node("nodeA").labels({"foo": "", "bar": ""}).obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(S, ANTI), (S, ANTI)],
    ),
    (
        "existing pods on nodeA and nodeB each have a matching term: only nodeC",
        Pod().label("foo", "").label("bar", "").obj(),
        [
            Pod()
            .node("nodeA")
            .pod_affinity_exists("foo", "zone", REQ_ANTI)
            .pod_affinity_exists("labelA", "zone", REQ_ANTI)
            .obj(),
            Pod()
            .node("nodeB")
            .pod_affinity_exists("bar", "zone", REQ_ANTI)
            .pod_affinity_exists("labelB", "zone", REQ_ANTI)
            .obj(),
        ],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2"), _rz("nodeC", "z3")],
        None,
        [(S, EXISTING), (S, EXISTING), None],
    ),
    (
        "affinity: all terms match one pod, then topology keys",
        Pod().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [Pod("pod1").labels({"foo": "", "bar": ""}).node("nodeA").obj()],
        [_rz("nodeA", "z1"), _rz("nodeB", "z1")],
        None,
        [None, None],
    ),
    (
        "affinity: terms must be satisfied by the same pod",
        Pod().pod_affinity_exists("foo", "region").pod_affinity_exists("bar", "zone").obj(),
        [
            Pod("pod1").node("nodeA").labels({"foo": ""}).obj(),
            Pod("pod2").node("nodeB").labels({"bar": ""}).obj(),
        ],
        [_rz("nodeA", "z1"), _rz("nodeB", "z2")],
        None,
        [(U, AFF), (U, AFF)],
    ),
]


@pytest.mark.parametrize("name,pod,pods,nodes,want_pre,want", MULTI_NODE, ids=[c[0] for c in MULTI_NODE])
def test_required_affinity_multiple_nodes(
    name: str, pod: Any, pods: Any, nodes: Any, want_pre: Any, want: Any
) -> None:
    idx = make_index(nodes, pods)
    state, pre = pre_filter(pod, idx, {"NS1": {}})
    assert status_of(pre) == want_pre
    if pre is not None:
        return
    assert state is not None
    got = [status_of(filter_node(state, n["metadata"].get("labels") or {})) for n in nodes]
    assert got == want
    assert [status_of(o) for o in filter_nodes(state, idx)] == want


# ----- TestPreFilterStateAddRemovePod ------------------------------------------------------

_L1 = {"region": "r1", "zone": "z11"}
_L2 = {"region": "r1", "zone": "z12"}
_L3 = {"region": "r2", "zone": "z21"}
_FOO_BAR = {"foo": "bar"}
_ANTI_FOO_BAR = [term(sel(None, ("foo", "In", ["bar"])), "region")]
_COMPLEX = [
    term(sel(None, ("foo", "In", ["bar", "buzz"])), "region"),
    term(sel(None, ("service", "NotIn", ["bar", "security", "test"])), "zone"),
]

ADD_REMOVE = [
    (
        "anti-affinity terms updated after adding and removing a pod",
        bare_pod("", _FOO_BAR, aff=affinity(anti_req=_ANTI_FOO_BAR), name="pending"),
        [
            bare_pod("nodeA", _FOO_BAR, name="p1"),
            bare_pod("nodeC", aff=affinity(anti_req=_ANTI_FOO_BAR), name="p2"),
        ],
        bare_pod("nodeB", _FOO_BAR, aff=affinity(anti_req=_ANTI_FOO_BAR), name="addedPod"),
        {("region", "r1"): 2},
        {},
    ),
    (
        "complex anti-affinity terms updated after adding and removing a pod",
        bare_pod("", _FOO_BAR, aff=affinity(anti_req=_COMPLEX), name="pending"),
        [
            bare_pod("nodeA", _FOO_BAR, name="p1"),
            bare_pod("nodeC", aff=affinity(anti_req=_ANTI_FOO_BAR), name="p2"),
        ],
        bare_pod("nodeA", _FOO_BAR, aff=affinity(anti_req=_COMPLEX), name="addedPod"),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        {},
    ),
    (
        "affinity and anti-affinity updated after adding and removing a pod",
        bare_pod("", _FOO_BAR, aff=affinity(req=_COMPLEX), name="pending"),
        [
            bare_pod("nodeA", _FOO_BAR, name="p1"),
            bare_pod("nodeC", aff=affinity(req=_COMPLEX, anti_req=_ANTI_FOO_BAR), name="p2"),
        ],
        bare_pod("nodeA", _FOO_BAR, aff=affinity(anti_req=_COMPLEX), name="addedPod"),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
    ),
]


@pytest.mark.parametrize(
    "name,pending,existing,added,want_anti,want_aff", ADD_REMOVE, ids=[c[0] for c in ADD_REMOVE]
)
def test_prefilter_state_add_remove_pod(
    name: str, pending: Any, existing: Any, added: Any, want_anti: Any, want_aff: Any
) -> None:
    nodes = [node("nodeA", _L1), node("nodeB", _L2), node("nodeC", _L3)]
    all_state, _ = pre_filter(pending, make_index(nodes, existing + [added]), {})
    state, status = pre_filter(pending, make_index(nodes, existing), {})
    assert status is None and state is not None and all_state is not None
    original = state.clone()
    node_labels = {n["metadata"]["name"]: n["metadata"]["labels"] for n in nodes}[added["spec"]["nodeName"]]
    state.update_with_pod(pod_affinity_info(added), node_labels, 1)
    assert state.anti_affinity_counts == want_anti
    assert state.affinity_counts == want_aff
    assert state.existing_anti_affinity_counts == all_state.existing_anti_affinity_counts
    assert state.affinity_counts == all_state.affinity_counts
    assert state.anti_affinity_counts == all_state.anti_affinity_counts
    state.update_with_pod(pod_affinity_info(added), node_labels, -1)
    assert state.existing_anti_affinity_counts == original.existing_anti_affinity_counts
    assert state.affinity_counts == original.affinity_counts
    assert state.anti_affinity_counts == original.anti_affinity_counts


def test_prefilter_state_clone() -> None:
    state, _ = pre_filter(
        bare_pod("", _FOO_BAR, aff=affinity(anti_req=_ANTI_FOO_BAR)), make_index([node("n", _L1)], []), {}
    )
    assert state is not None
    state.affinity_counts[("name", "nodeA")] = 1
    clone = state.clone()
    assert clone is not state and clone.affinity_counts == state.affinity_counts
    clone.affinity_counts[("name", "nodeA")] = 5
    assert state.affinity_counts[("name", "nodeA")] == 1


# ----- TestGetTPMapMatchingIncomingAffinityAntiAffinity ------------------------------------


def _normal(*labels: str) -> dict[str, Any]:
    p = Pod("normal").node("nodeA")
    for lb in labels:
        p.label(lb, "")
    return p.obj()


TPMAP = [
    ("nil test", [], Pod("aaa-normal").obj(), {}, {}),
    ("incoming pod without affinity is a no-op", [_normal("aaa")], Pod("aaa-normal").obj(), {}, {}),
    (
        "no pod has a label that violates the incoming pod's terms",
        [_normal("bbb")],
        Pod("aaa-anti")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .obj(),
        {},
        {},
    ),
    (
        "existing pod matches affinity and anti-affinity - single term",
        [_normal("aaa")],
        Pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .obj(),
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod matches affinity and anti-affinity - multiple terms",
        [_normal("aaa", "bbb")],
        Pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .obj(),
        {("hostname", "nodeA"): 2},
        {("hostname", "nodeA"): 1},
    ),
    (
        "existing pod matches anti-affinity but not affinity",
        [_normal("aaa")],
        Pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .pod_affinity_exists("bbb", "hostname", REQ_ANTI)
        .obj(),
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "anti-affinity with more than one term - partial violation case 1",
        [_normal("aaa", "bbb")],
        Pod("anaffi-antiaffiti")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("ccc", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .pod_affinity_exists("ccc", "hostname", REQ_ANTI)
        .obj(),
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "anti-affinity with more than one term - partial violation case 2",
        [_normal("bbb")],
        Pod("affi-antiaffi")
        .pod_affinity_exists("aaa", "hostname")
        .pod_affinity_exists("bbb", "hostname")
        .pod_affinity_exists("aaa", "hostname", REQ_ANTI)
        .pod_affinity_exists("bbb", "hostname", REQ_ANTI)
        .obj(),
        {},
        {("hostname", "nodeA"): 1},
    ),
]


@pytest.mark.parametrize("name,existing,pod,want_aff,want_anti", TPMAP, ids=[c[0] for c in TPMAP])
def test_incoming_affinity_anti_affinity_counts(
    name: str, existing: Any, pod: Any, want_aff: Any, want_anti: Any
) -> None:
    from kubesim_scheduler.plugins.interpodaffinity.filtering import PreFilterState, _incoming_counts

    idx = make_index([node("nodeA", {"hostname": "nodeA"})], existing)
    aff, anti = _incoming_counts(PreFilterState(pod_affinity_info(pod), {}), idx)
    assert aff == want_aff
    assert anti == want_anti


# ----- TestPreferredAffinity (scoring) ------------------------------------------------------

S1 = {"security": "S1"}
S2 = {"security": "S2"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}


def _pref(weight: int, selector: dict[str, Any], tk: str, **kw: Any) -> dict[str, Any]:
    return weighted(weight, term(selector, tk, **kw))


STAY_S1_REGION = affinity(pref=[_pref(5, sel(None, ("security", "In", ["S1"])), "region")])
STAY_S2_REGION = affinity(pref=[_pref(6, sel(None, ("security", "In", ["S2"])), "region")])
AFFINITY3 = affinity(
    pref=[
        _pref(8, sel(None, ("security", "NotIn", ["S1"]), ("security", "In", ["S2"])), "region"),
        _pref(2, sel(None, ("security", "Exists", None), ("wrongkey", "DoesNotExist", None)), "region"),
    ]
)
HARD_AFFINITY = affinity(
    req=[
        term(sel(None, ("security", "In", ["S1", "value2"])), "region"),
        term(sel(None, ("security", "Exists", None), ("wrongkey", "DoesNotExist", None)), "region"),
    ]
)
AWAY_S1_AZ = affinity(anti_pref=[_pref(5, sel(None, ("security", "In", ["S1"])), "az")])
AWAY_S2_AZ = affinity(anti_pref=[_pref(5, sel(None, ("security", "In", ["S2"])), "az")])
STAY_S1_AWAY_S2 = affinity(
    pref=[_pref(8, sel(None, ("security", "In", ["S1"])), "region")],
    anti_pref=[_pref(5, sel(None, ("security", "In", ["S2"])), "az")],
)
AFF_NS_SEL = affinity(
    pref=[
        _pref(
            5,
            sel(None, ("security", "In", ["S1"])),
            "region",
            namespaces=["subteam2.team2"],
            namespace_selector=_TEAM1,
        )
    ]
)
ANTI_NS_SEL = affinity(
    anti_pref=[
        _pref(
            5,
            sel(None, ("security", "In", ["S1"])),
            "region",
            namespaces=["subteam2.team2"],
            namespace_selector=_TEAM1,
        )
    ]
)
INVALID_AFF = affinity(pref=[_pref(8, sel(None, ("security", "In", ["{{.bad-value.}}"])), "region")])
INVALID_ANTI = affinity(anti_pref=[_pref(5, sel(None, ("security", "In", ["{{.bad-value.}}"])), "az")])


def _nodes(*spec: tuple[str, dict[str, str]]) -> list[dict[str, Any]]:
    return [node(n, lb) for n, lb in spec]


_N_CN_IN_AZ1 = _nodes(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1))

PREFERRED = [
    ("affinity is nil: skip", bare_pod("", S1), [], _N_CN_IN_AZ1, None, ("Skip", ""), False),
    (
        "affinity: topology key and matching pods score high",
        bare_pod("", S1, aff=STAY_S1_REGION),
        [bare_pod("node1", S1), bare_pod("node2", S2), bare_pod("node3", S1)],
        _N_CN_IN_AZ1,
        [MAX, 0, 0],
        None,
        False,
    ),
    (
        "affinity: same topology value as the matching pod, same score",
        bare_pod("", aff=STAY_S1_REGION),
        [bare_pod("node1", S1)],
        _nodes(("node1", RG_CHINA), ("node2", RG_CHINA_AZ1), ("node3", RG_INDIA)),
        [MAX, MAX, 0],
        None,
        False,
    ),
    (
        "affinity: region with more matches scores high",
        bare_pod("", S1, aff=STAY_S2_REGION),
        [bare_pod(n, S2) for n in ("node1", "node1", "node2", "node3", "node4", "node5")],
        _nodes(
            ("node1", RG_CHINA),
            ("node2", RG_INDIA),
            ("node3", RG_CHINA),
            ("node4", RG_CHINA),
            ("node5", RG_INDIA),
        ),
        [MAX, 0, MAX, MAX, 0],
        None,
        False,
    ),
    (
        "affinity: different label operators and values",
        bare_pod("", S1, aff=AFFINITY3),
        [bare_pod("node1", S1), bare_pod("node2", S2), bare_pod("node3", S1)],
        _N_CN_IN_AZ1,
        [20, MAX, 0],
        None,
        False,
    ),
    (
        "affinity symmetry: preferred terms of existing pods",
        bare_pod("", S2),
        [bare_pod("node1", S1, aff=STAY_S1_REGION), bare_pod("node2", S2, aff=STAY_S2_REGION)],
        _N_CN_IN_AZ1,
        [0, MAX, 0],
        None,
        False,
    ),
    (
        "affinity symmetry with namespace selector",
        bare_pod("", S1, "subteam1.team1"),
        [bare_pod("node1", S1, aff=AFF_NS_SEL), bare_pod("node2", S2, aff=STAY_S2_REGION)],
        _N_CN_IN_AZ1,
        [MAX, 0, 0],
        None,
        False,
    ),
    (
        "anti-affinity symmetry with namespace selector",
        bare_pod("", S1, "subteam1.team1"),
        [bare_pod("node1", S1, aff=ANTI_NS_SEL), bare_pod("node2", S2, aff=STAY_S2_REGION)],
        _N_CN_IN_AZ1,
        [0, MAX, MAX],
        None,
        False,
    ),
    (
        "affinity symmetry: required terms of existing pods",
        bare_pod("", S1),
        [bare_pod("node1", S1, aff=HARD_AFFINITY), bare_pod("node2", S2, aff=HARD_AFFINITY)],
        _N_CN_IN_AZ1,
        [MAX, MAX, 0],
        None,
        False,
    ),
    (
        "anti-affinity: node with no matching pod scores high",
        bare_pod("", S1, aff=AWAY_S1_AZ),
        [bare_pod("node1", S1), bare_pod("node2", S2)],
        _nodes(("node1", AZ1), ("node2", RG_CHINA)),
        [0, MAX],
        None,
        False,
    ),
    (
        "anti-affinity: node without the topology key scores high",
        bare_pod("", S1, aff=AWAY_S1_AZ),
        [bare_pod("node1", S1), bare_pod("node2", S1)],
        _nodes(("node1", AZ1), ("node2", RG_CHINA)),
        [0, MAX],
        None,
        False,
    ),
    (
        "anti-affinity: node with more matching pods scores low",
        bare_pod("", S1, aff=AWAY_S1_AZ),
        [bare_pod("node1", S1), bare_pod("node1", S1), bare_pod("node2", S2)],
        _nodes(("node1", AZ1), ("node2", RG_INDIA)),
        [0, MAX],
        None,
        False,
    ),
    (
        "anti-affinity symmetry",
        bare_pod("", S2),
        [bare_pod("node1", S1, aff=AWAY_S2_AZ), bare_pod("node2", S2, aff=AWAY_S1_AZ)],
        _nodes(("node1", AZ1), ("node2", AZ2)),
        [0, MAX],
        None,
        False,
    ),
    (
        "affinity and anti-affinity: preferred terms only",
        bare_pod("", S1, aff=STAY_S1_AWAY_S2),
        [bare_pod("node1", S1), bare_pod("node2", S1)],
        _nodes(("node1", RG_CHINA), ("node2", AZ1)),
        [MAX, 0],
        None,
        False,
    ),
    (
        "affinity and anti-affinity: same labels as existing pods",
        bare_pod("", S1, aff=STAY_S1_AWAY_S2),
        [bare_pod(n, S1) for n in ("node1", "node1", "node2", "node3", "node3", "node4", "node5")],
        _nodes(
            ("node1", RG_CHINA_AZ1),
            ("node2", RG_INDIA),
            ("node3", RG_CHINA),
            ("node4", RG_CHINA),
            ("node5", RG_INDIA),
        ),
        [MAX, 0, MAX, MAX, 0],
        None,
        False,
    ),
    (
        "affinity, anti-affinity and symmetry together",
        bare_pod("", S1, aff=STAY_S1_AWAY_S2),
        [
            bare_pod("node1", S1),
            bare_pod("node2", S2),
            bare_pod("node3", aff=STAY_S1_AWAY_S2),
            bare_pod("node4", aff=AWAY_S1_AZ),
        ],
        _nodes(("node1", RG_CHINA), ("node2", AZ1), ("node3", RG_INDIA), ("node4", AZ2)),
        [MAX, 0, MAX, 0],
        None,
        False,
    ),
    (
        "avoid panic when some nodes in a topology have no pods with affinity",
        bare_pod("", S1),
        [bare_pod("node1", S1), bare_pod("node2", aff=STAY_S1_AWAY_S2)],
        _nodes(("node1", RG_CHINA), ("node2", RG_CHINA)),
        [0, 0],
        None,
        False,
    ),
    (
        "invalid affinity fails PreScore",
        bare_pod("", aff=INVALID_AFF),
        [],
        _nodes(("node1", RG_CHINA), ("node2", RG_CHINA)),
        None,
        ("Error", 'Invalid value: "{{.bad-value.}}"'),
        False,
    ),
    (
        "invalid anti-affinity fails PreScore",
        bare_pod("", aff=INVALID_ANTI),
        [],
        _nodes(("node1", RG_CHINA), ("node2", RG_CHINA)),
        None,
        ("Error", 'Invalid value: "{{.bad-value.}}"'),
        False,
    ),
    (
        "affinity with pods matching NamespaceSelector",
        bare_pod("", S1, "subteam1.team1", aff=AFF_NS_SEL),
        [
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team2"),
            bare_pod("node2", S1, "subteam2.team1"),
        ],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        [MAX, 0],
        None,
        False,
    ),
    (
        "affinity with pods matching NamespaceSelector and Namespaces",
        bare_pod("", S1, "subteam1.team1", aff=AFF_NS_SEL),
        [
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam2.team2"),
            bare_pod("node2", S1, "subteam2.team1"),
        ],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        [MAX, 0],
        None,
        False,
    ),
    (
        "anti-affinity with pods matching NamespaceSelector",
        bare_pod("", S1, "subteam1.team1", aff=ANTI_NS_SEL),
        [
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team2"),
            bare_pod("node2", S1, "subteam2.team1"),
        ],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        [0, MAX],
        None,
        False,
    ),
    (
        "anti-affinity with pods matching NamespaceSelector and Namespaces",
        bare_pod("", S1, "subteam1.team1", aff=ANTI_NS_SEL),
        [
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam1.team1"),
            bare_pod("node1", S1, "subteam2.team2"),
            bare_pod("node2", S1, "subteam2.team1"),
        ],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        [0, MAX],
        None,
        False,
    ),
    (
        "ignore preferred terms of existing pods",
        bare_pod("", S2),
        [bare_pod("node1", S1, aff=STAY_S1_AWAY_S2), bare_pod("node2", S2, aff=STAY_S2_REGION)],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        None,
        ("Skip", ""),
        True,
    ),
    (
        "do not ignore preferred terms of existing pods",
        bare_pod("", S2),
        [bare_pod("node1", S1, aff=STAY_S1_AWAY_S2), bare_pod("node2", S2, aff=STAY_S2_REGION)],
        _nodes(("node1", RG_CHINA), ("node2", RG_INDIA)),
        [0, MAX],
        None,
        False,
    ),
    ("no nodes to score", bare_pod("", S2), [], [], None, ("Skip", ""), False),
]


def _run_score(pod: Any, pods: Any, nodes: Any, args: InterPodAffinityArgs) -> tuple[Any, list[int] | None]:
    idx = make_index(nodes, pods)
    state, status = pre_score(pod, idx, NAMESPACES, args)
    if status is not None:
        return status, None
    assert state is not None
    raw = [score_node(state, n["metadata"].get("labels") or {}) for n in nodes]
    assert score_nodes(state, idx, [idx.node_pos[n["metadata"]["name"]] for n in nodes]) == raw
    return None, normalize_scores(state, raw)


@pytest.mark.parametrize(
    "name,pod,pods,nodes,want,want_status,ignore", PREFERRED, ids=[c[0] for c in PREFERRED]
)
def test_preferred_affinity(
    name: str, pod: Any, pods: Any, nodes: Any, want: Any, want_status: Any, ignore: bool
) -> None:
    status, got = _run_score(pod, pods, nodes, InterPodAffinityArgs(1, ignore))
    if want_status is not None:
        assert status is not None and status.code == want_status[0]
        assert want_status[1] in " ".join(status.reasons)
        return
    assert status is None
    assert got == want


_HARD_POD_AFFINITY = affinity(
    req=[
        term(
            sel(None, ("service", "In", ["S1"])),
            "region",
            namespaces=["", "subteam2.team2"],
            namespace_selector=_TEAM1,
        )
    ]
)
_SVC_S1 = {"service": "S1"}
_HARD_PODS = [bare_pod("node1", aff=_HARD_POD_AFFINITY), bare_pod("node2", aff=_HARD_POD_AFFINITY)]

HARD_WEIGHT = [
    ("with default weight", bare_pod("", _SVC_S1), 1, [MAX, MAX, 0], None),
    ("with zero weight", bare_pod("", _SVC_S1), 0, None, ("Skip", "")),
    ("with no matching namespace", bare_pod("", _SVC_S1, "subteam1.team2"), 1, None, ("Skip", "")),
    ("with matching NamespaceSelector", bare_pod("", _SVC_S1, "subteam1.team1"), 1, [MAX, MAX, 0], None),
    ("with matching Namespaces", bare_pod("", _SVC_S1, "subteam2.team2"), 1, [MAX, MAX, 0], None),
]


@pytest.mark.parametrize("name,pod,weight,want,want_status", HARD_WEIGHT, ids=[c[0] for c in HARD_WEIGHT])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(
    name: str, pod: Any, weight: int, want: Any, want_status: Any
) -> None:
    import copy

    status, got = _run_score(pod, copy.deepcopy(_HARD_PODS), _N_CN_IN_AZ1, InterPodAffinityArgs(weight))
    assert status_of(status) == want_status
    assert got == want


# ----- extra checks ------------------------------------------------------------------------


def test_incremental_index_matches_rebuilt_index() -> None:
    nodes = _nodes(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", RG_CHINA_AZ1))
    pods = [
        bare_pod("node1", S1, aff=AWAY_S2_AZ, name="a"),
        bare_pod("node2", S2, aff=HARD_AFFINITY, name="b"),
        bare_pod("node3", S1, aff=affinity(anti_req=[term(sel(S2), "region")]), name="c"),
    ]
    incoming = bare_pod("", S2, aff=STAY_S1_AWAY_S2)
    idx = make_index(nodes, [])
    for p in pods:
        idx.add_pod(p)
    idx.remove_pod(pods[1])
    idx.add_pod(pods[1])
    fresh = make_index(nodes, pods)
    a, _ = pre_filter(incoming, idx, {})
    b, _ = pre_filter(incoming, fresh, {})
    assert a is not None and b is not None
    assert a.existing_anti_affinity_counts == b.existing_anti_affinity_counts == {("region", "China"): 1}
    sa, _ = pre_score(incoming, idx, {})
    sb, _ = pre_score(incoming, fresh, {})
    assert sa is not None and sb is not None and sa.topology_score == sb.topology_score
    idx.remove_node("node3")
    c, status = pre_filter(incoming, idx, {})
    assert c is None and status_of(status) == ("Skip", "")


def test_args_from_dict() -> None:
    assert InterPodAffinityArgs.from_dict(None) == InterPodAffinityArgs(1, False)
    assert InterPodAffinityArgs.from_dict({"hardPodAffinityWeight": 0}).hard_pod_affinity_weight == 0
    with pytest.raises(ValueError):
        InterPodAffinityArgs.from_dict({"hardPodAffinityWeight": 101})


# ----- conformance (tests/data/conformance) -------------------------------------------------


PLUGIN = "InterPodAffinity"
CONFORMANCE = conformance_data.cases_involving(PLUGIN)


@pytest.mark.parametrize("case,expected", CONFORMANCE, ids=[c[0]["name"] for c in CONFORMANCE])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    """Filter verdicts on nodes that reach this plugin, and final scores (normalized x weight 2)."""
    from kubesim_scheduler.plugins import podtopologyspread as pts

    pod = case["pod"]
    idx = ClusterIndex(case["nodes"], case["existingPods"])
    feasible = expected["feasible"] or []
    state, _status = pre_filter(pod, idx, {})
    pts_state, _ = pts.pre_filter(pod, idx)
    pod_labels = pod["metadata"].get("labels") or {}
    for _, n in idx.nodes():
        name = n["metadata"]["name"]
        labels = n["metadata"].get("labels") or {}
        want = expected["filter"].get(name, {})
        reached = name in feasible or PLUGIN in want
        if pts_state is not None and pts.filter_node(pts_state, pod_labels, labels) is not None:
            reached = False  # PodTopologySpread runs first
        if not reached:
            continue
        got = None if state is None else filter_node(state, labels)
        assert (str(got) if got else None) == want.get(PLUGIN), name
    if len(feasible) < 2:
        return
    s_state, _s_status = pre_score(pod, idx, {})
    want_scores = {n: expected["scores"][n].get(PLUGIN) for n in feasible}
    if s_state is None:
        assert all(v is None for v in want_scores.values())
        return
    slots = [idx.node_pos[n] for n in feasible]
    norm = normalize_scores(s_state, score_nodes(s_state, idx, slots))
    assert {n: 2 * s for n, s in zip(feasible, norm)} == want_scores


# ----- framework adapters (Phase 2) -----------------------------------------------------------


def _registry() -> dict[str, Any]:
    from kubesim_scheduler import in_tree_registry
    from kubesim_scheduler.plugins.interpodaffinity import InterPodAffinity
    from kubesim_scheduler.plugins.podtopologyspread import PodTopologySpread

    reg = dict(in_tree_registry())
    reg[InterPodAffinity.name] = InterPodAffinity
    reg[PodTopologySpread.name] = PodTopologySpread
    return reg


FRAMEWORK_CASES = conformance_data.cases_involving("InterPodAffinity", "PodTopologySpread")


@pytest.mark.parametrize("case,expected", FRAMEWORK_CASES, ids=[c[0]["name"] for c in FRAMEWORK_CASES])
def test_framework_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    """The whole default profile with both adapters reproduces upstream's decision."""
    from kubesim_scheduler import Scheduler

    s = Scheduler(registry=_registry(), percentage_of_nodes_to_score=100, seed=1)
    for n in case["nodes"]:
        s.add_node(n)
    for p in case["existingPods"]:
        s.add_pod(p)
    a = s.evaluate(case["pod"])
    assert sorted(a.feasible_nodes() or []) == sorted(expected["feasible"] or [])
    assert {n: {st.plugin: st.format()} for n, st in a.filter_statuses().items()} == expected["filter"]
    assert a.final_scores() == expected["scores"]
    assert a.totals() == expected["total"]


def _probe_states(s: Any, probe: dict[str, Any]) -> tuple[Any, Any]:
    """PreFilter/PreScore of the adapter (synced index) and of a freshly built index."""
    from kubesim_scheduler.framework import CycleState
    from kubesim_scheduler.plugins.interpodaffinity.plugin import PRE_FILTER_KEY

    fw = next(iter(s.frameworks.values()))
    pl = fw.plugin("InterPodAffinity")
    pi = s.handle.pod_info(probe)
    st = CycleState(pi)
    _, status = pl.pre_filter(st, probe, s.handle.snapshot_nodes())
    got = st.get(PRE_FILTER_KEY) if status is None else status.code
    nodes = [n for n in s.nodes.values()]
    pods = [p for p in s.pods.values() if (p.get("spec") or {}).get("nodeName")]
    fresh, fstatus = pre_filter(probe, ClusterIndex(nodes, pods), {})
    want = fresh if fstatus is None else ("Skip" if fstatus.code == "Skip" else fstatus.code)
    return got, want


def test_adapter_index_stays_in_sync_while_scheduling() -> None:
    """Binding, deleting pods and removing/re-adding nodes keep the shared index exact."""
    from kubesim_scheduler import Scheduler

    s = Scheduler(registry=_registry(), percentage_of_nodes_to_score=100, seed=3)
    nodes = [
        node(f"n{i}", {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i % 3}"})
        for i in range(6)
    ]
    for n in nodes:
        n["status"] = {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "20"}}
        s.add_node(n)
    for j in range(30):
        app = f"a{j % 4}"
        p = Pod(f"p{j}").ns("default").uid(f"u{j}").label("app", app)
        if j % 3 == 0:
            p.pod_affinity_in("app", "kubernetes.io/hostname", [app], REQ_ANTI)
        if j % 3 == 1:
            p.pod_affinity_in("app", "topology.kubernetes.io/zone", [app], PREF_ANTI)
        s.add_pod(p.obj())
    probe = (
        Pod("probe")
        .ns("default")
        .uid("probe")
        .label("app", "a0")
        .pod_affinity_in("app", "topology.kubernetes.io/zone", ["a1"])
        .obj()
    )
    for step in range(40):
        if s.schedule_one() is None:
            break
        if step == 10:
            s.remove_pod("u0")
        if step == 15:
            s.remove_node("n5")
        if step == 20:
            s.add_node(nodes[5])
        got, want = _probe_states(s, probe)
        if isinstance(want, str):
            assert got == want
        else:
            assert got.existing_anti_affinity_counts == want.existing_anti_affinity_counts
            assert got.affinity_counts == want.affinity_counts
            assert got.anti_affinity_counts == want.anti_affinity_counts
    assert len(s.bindings) > 10


def test_adapter_prefilter_extensions() -> None:
    """AddPod/RemovePod through the framework types update the cycle state and undo exactly."""
    from kubesim_scheduler import Scheduler
    from kubesim_scheduler.framework import CycleState, PodInfo
    from kubesim_scheduler.plugins.interpodaffinity.plugin import PRE_FILTER_KEY

    s = Scheduler(registry=_registry(), percentage_of_nodes_to_score=100)
    for n in (node("nodeA", _L1), node("nodeB", _L2), node("nodeC", _L3)):
        s.add_node(n)
    pending = bare_pod("", _FOO_BAR, aff=affinity(anti_req=_COMPLEX), name="pending")
    pending["metadata"]["uid"] = "pending"
    s.add_pod(
        dict(bare_pod("nodeA", _FOO_BAR, name="p1"), metadata={"name": "p1", "uid": "p1", "labels": _FOO_BAR})
    )
    pl = next(iter(s.frameworks.values())).plugin("InterPodAffinity")
    st = CycleState(s.handle.pod_info(pending))
    assert pl.pre_filter(st, pending, s.handle.snapshot_nodes()) == (None, None)
    before = st.read(PRE_FILTER_KEY).clone()
    added = PodInfo(bare_pod("nodeA", _FOO_BAR, aff=affinity(anti_req=_COMPLEX), name="added"))
    info = s.handle.get_node_info("nodeA")
    assert pl.pre_filter_extensions().add_pod(st, pending, added, info) is None
    assert st.read(PRE_FILTER_KEY).anti_affinity_counts == {("region", "r1"): 2, ("zone", "z11"): 2}
    assert pl.pre_filter_extensions().remove_pod(st, pending, added, info) is None
    assert st.read(PRE_FILTER_KEY).anti_affinity_counts == before.anti_affinity_counts
    # Filter without PreFilter state is an Error, as upstream.
    res = pl.filter_batch(CycleState(), s.handle.pod_info(pending), np.array([0]))
    assert int(res.codes[0]) == 1


def test_queueing_hints() -> None:
    from kubesim_scheduler.framework import QueueingHint
    from kubesim_scheduler.plugins.interpodaffinity.plugin import _after_node_change, _after_pod_change

    pod = (
        Pod("p")
        .label("x", "y")
        .pod_affinity_in("app", "zone", ["web"])
        .pod_affinity_in("app", "host", ["db"], REQ_ANTI)
        .obj()
    )
    web = Pod("w").node("n1").label("app", "web").obj()
    db = Pod("d").node("n1").label("app", "db").obj()
    unbound = Pod("u").label("app", "web").obj()
    assert _after_pod_change(pod, None, web) == QueueingHint.QUEUE
    assert _after_pod_change(pod, None, unbound) == QueueingHint.QUEUE_SKIP
    assert _after_pod_change(pod, db, None) == QueueingHint.QUEUE
    assert _after_pod_change(pod, web, None) == QueueingHint.QUEUE_SKIP
    assert _after_pod_change(pod, db, web) == QueueingHint.QUEUE
    n_old = node("n1", {"zone": "a", "host": "h"})
    assert _after_node_change(pod, None, node("n2", {"zone": "b"})) == QueueingHint.QUEUE
    assert _after_node_change(pod, n_old, node("n1", {"zone": "b", "host": "h"})) == QueueingHint.QUEUE
    assert (
        _after_node_change(pod, n_old, node("n1", {"zone": "a", "host": "h", "x": "1"}))
        == QueueingHint.QUEUE_SKIP
    )
    assert _after_node_change(pod, n_old, node("n1", {"zone": "a"})) == QueueingHint.QUEUE


def test_apply_match_label_keys_as_apiserver_does() -> None:
    from kubesim_scheduler.plugins.interpodaffinity.terms import apply_match_label_keys

    t = term(sel({"app": "web"}), "zone")
    t["matchLabelKeys"] = ["rev", "absent"]
    t["mismatchLabelKeys"] = ["team"]
    nil_sel = {"topologyKey": "zone", "matchLabelKeys": ["rev"]}
    pod = (
        Pod("p")
        .labels({"app": "web", "rev": "7", "team": "a"})
        .affinity(affinity(anti_req=[t, nil_sel]))
        .obj()
    )
    apply_match_label_keys(pod)
    anti = pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert anti[0]["labelSelector"]["matchExpressions"] == [
        {"key": "rev", "operator": "In", "values": ["7"]},
        {"key": "team", "operator": "NotIn", "values": ["a"]},
    ]
    assert "labelSelector" not in anti[1]
    idx = make_index(
        [node("n1", {"zone": "z"})],
        [Pod("same").node("n1").labels({"app": "web", "rev": "7", "team": "b"}).obj()],
    )
    state, _ = pre_filter(pod, idx, {})
    assert state is not None and state.anti_affinity_counts == {("zone", "z"): 1}
