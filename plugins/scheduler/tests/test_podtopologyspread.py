"""PodTopologySpread: upstream test tables (filtering_test.go, scoring_test.go) and conformance cases.

The stored upstream filtering_test.go predates v1.34's per-constraint state (it keys counts by
(topologyKey, value) pair); its expectations are converted per constraint here. Cases that only
exist to run with the NodeInclusionPolicy/MatchLabelKeys feature gates off are left out (both are
on in v1.34) unless their result is the same with the gates on.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
try:
    import kubesim_scheduler  # noqa: F401
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(_HERE.parent / "src"))

from interpodaffinity_builders import Node, Pod, sel  # noqa: E402

from kubesim_scheduler.plugins.interpodaffinity import ClusterIndex  # noqa: E402
from kubesim_scheduler.plugins.interpodaffinity.labelselector import selector_from_label_selector  # noqa: E402
from kubesim_scheduler.plugins.podtopologyspread import (  # noqa: E402
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpreadArgs,
    StaticOwners,
    filter_node,
    filter_nodes,
    normalize_scores,
    pre_filter,
    pre_score,
    score_node,
    score_nodes,
)
from kubesim_scheduler.plugins.podtopologyspread.gomath import go_log, go_round  # noqa: E402

DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
MAX32 = 2**31 - 1
FOO = sel(None, ("foo", "Exists", None))
BAR = sel(None, ("bar", "Exists", None))
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"}]
SKEW = ("Unschedulable", ERR_REASON_CONSTRAINTS_NOT_MATCH)
MISSING = ("UnschedulableAndUnresolvable", ERR_REASON_NODE_LABEL_NOT_MATCH)
LIST_ARGS = PodTopologySpreadArgs((), "List")


def N(name: str, labels: dict[str, str] | None = None, taints: list[Any] | None = None) -> dict[str, Any]:
    """A node; `labels` given as a dict."""
    n = Node(name).labels(labels or {})
    if taints is not None:
        n.taints(taints)
    return n.obj()


def zn(name: str, zone: str, **extra: str) -> dict[str, Any]:
    """A node labelled zone=<zone>, node=<name> (upstream's usual pair)."""
    return N(name, {"zone": zone, "node": name, **extra})


def P(name: str, node_name: str, **labels: str) -> dict[str, Any]:
    """An existing pod with labels."""
    return Pod(name).node(node_name).labels(labels).obj()


def make_index(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> ClusterIndex:
    for i, p in enumerate(pods):
        p["metadata"].setdefault("uid", f"uid-{i}")
    return ClusterIndex(nodes, pods)


def status_of(o: Any) -> tuple[str, str] | None:
    return None if o is None else (o.code, " ".join(o.reasons))


def _paths(p: Any) -> list[tuple[str, int]]:
    """criticalPaths in the comparable form upstream's test uses (values sorted on equal counts)."""
    a, b = (tuple(x) for x in p.paths)
    if a[1] == b[1] and a[0] > b[0]:
        a, b = (b[0], a[1]), (a[0], b[1])
    return [a, b]


def _want_paths(p: list[tuple[str, int]]) -> list[tuple[str, int]]:
    a, b = p
    if a[1] == b[1] and a[0] > b[0]:
        a, b = (b[0], a[1]), (a[0], b[1])
    return [a, b]


NEW_PATHS = [("", MAX32), ("", MAX32)]


def C(max_skew: int, key: str, selector: Any, min_domains: int = 1, naff: str = HONOR, ntaint: str = IGNORE) -> tuple:
    return (max_skew, key, selector, min_domains, naff, ntaint)


def check_state(state: Any, constraints: list[tuple], paths: dict[str, Any], match: dict[tuple[str, str], int]) -> None:
    """Compare a v1.34 per-constraint state with upstream's pair-keyed expectation."""
    assert len(state.constraints) == len(constraints)
    for i, (got, want) in enumerate(zip(state.constraints, constraints)):
        max_skew, key, selector, min_domains, naff, ntaint = want
        assert (got.max_skew, got.topology_key, got.min_domains) == (max_skew, key, min_domains)
        assert (got.node_affinity_policy, got.node_taints_policy) == (naff, ntaint)
        assert got.selector.sig() == selector_from_label_selector(selector).sig()
        assert state.tp_value_to_match_num[i] == {v: n for (k, v), n in match.items() if k == key}
        assert _paths(state.critical_paths[i]) == _want_paths(paths[key])


# ----- TestPreFilterState ------------------------------------------------------------------

_4N = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2"), zn("node-y", "zone2")]
_5P = [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo=""),
       P("p-y1", "node-y", foo=""), P("p-y2", "node-y", foo="")]
_7P = _5P + [P("p-y3", "node-y", foo=""), P("p-y4", "node-y", foo="")]
_ABC = [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b", "foo": ""}),
        N("node-c", {"node": "node-c", "bar": ""})]
_ABC_PODS = [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")]
_ABC_T = [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}),
          N("node-c", {"node": "node-c", "bar": ""}, TAINTS)]
_FOO_A = [P("p-a1", "node-a", foo="a"), P("p-a2", "node-a", foo="a"), P("p-b1", "node-b", foo="a"),
          P("p-y1", "node-y", foo="a"), P("p-y2", "node-y", foo="a")]


def _pod(*spreads: tuple, labels: dict[str, str] | None = None, **kw: Any) -> dict[str, Any]:
    p = Pod("p").labels(labels if labels is not None else {"foo": ""})
    if "node_selector" in kw:
        p.node_selector(kw["node_selector"])
    if "node_affinity_in" in kw:
        p.node_affinity_in(*kw["node_affinity_in"])
    if "node_affinity_not_in" in kw:
        p.node_affinity_not_in(*kw["node_affinity_not_in"])
    for t in kw.get("tolerations", []):
        p.toleration(t)
    for s in spreads:
        p.spread(*s)
    return p.obj()


PREFILTER_STATE: list[dict[str, Any]] = [
    dict(
        name="clean cluster with one spreadConstraint",
        pod=_pod((5, "zone", DNS, sel({"foo": "bar"}))),
        nodes=_4N, pods=[],
        constraints=[C(5, "zone", sel({"foo": "bar"}))],
        paths={"zone": [("zone1", 0), ("zone2", 0)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 0},
    ),
    dict(
        name="normal case with one spreadConstraint",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N, pods=_5P,
        constraints=[C(1, "zone", FOO)],
        paths={"zone": [("zone2", 2), ("zone1", 3)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 2},
    ),
    dict(
        name="normal case with null label selector",
        pod=_pod((1, "zone", DNS, None)), nodes=_4N, pods=_5P,
        constraints=[C(1, "zone", None)],
        paths={"zone": [("zone2", 0), ("zone1", 0)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 0},
    ),
    dict(
        name="normal case with one spreadConstraint, on a 3-zone cluster",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N + [zn("node-o", "zone3"), zn("node-p", "zone3")], pods=_5P,
        constraints=[C(1, "zone", FOO)],
        paths={"zone": [("zone3", 0), ("zone2", 2)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 2, ("zone", "zone3"): 0},
    ),
    dict(
        name="namespace mismatch doesn't count",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
        pods=[P("p-a1", "node-a", foo=""), Pod("p-a2").ns("ns1").node("node-a").label("foo", "").obj(),
              P("p-b1", "node-b", foo=""), Pod("p-y1").ns("ns2").node("node-y").label("foo", "").obj(),
              P("p-y2", "node-y", foo="")],
        constraints=[C(1, "zone", FOO)],
        paths={"zone": [("zone2", 1), ("zone1", 2)]},
        match={("zone", "zone1"): 2, ("zone", "zone2"): 1},
    ),
    dict(
        name="normal case with two spreadConstraints",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), nodes=_4N, pods=_7P,
        constraints=[C(1, "zone", FOO), C(1, "node", FOO)],
        paths={"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-x", 0), ("node-b", 1)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
               ("node", "node-x"): 0, ("node", "node-y"): 4},
    ),
    dict(
        name="soft spreadConstraints should be bypassed",
        pod=_pod((1, "zone", SA, FOO), (1, "zone", DNS, FOO), (1, "node", SA, FOO), (1, "node", DNS, FOO)),
        nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")], pods=_7P,
        constraints=[C(1, "zone", FOO), C(1, "node", FOO)],
        paths={"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 1), ("node-a", 2)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
               ("node", "node-y"): 4},
    ),
    dict(
        name="different labelSelectors - simple version",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        pods=[P("p-a", "node-a", foo=""), P("p-b", "node-b", bar="")],
        constraints=[C(1, "zone", FOO), C(1, "node", BAR)],
        paths={"zone": [("zone2", 0), ("zone1", 1)], "node": [("node-a", 0), ("node-y", 0)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 0, ("node", "node-a"): 0, ("node", "node-b"): 1,
               ("node", "node-y"): 0},
    ),
    dict(
        name="different labelSelectors - complex pods",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo="", bar=""), P("p-b1", "node-b", foo=""),
              P("p-y1", "node-y", foo=""), P("p-y2", "node-y", foo="", bar=""), P("p-y3", "node-y", foo=""),
              P("p-y4", "node-y", foo="", bar="")],
        constraints=[C(1, "zone", FOO), C(1, "node", BAR)],
        paths={"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 0), ("node-a", 1)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 1, ("node", "node-b"): 0,
               ("node", "node-y"): 2},
    ),
    dict(
        name="two spreadConstraints, and with podAffinity",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_affinity_not_in=("node", ["node-x"])),
        nodes=_4N, pods=_7P,
        constraints=[C(1, "zone", FOO), C(1, "node", FOO)],
        paths={"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 1), ("node-a", 2)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
               ("node", "node-y"): 4},
    ),
    dict(
        name="default constraints and a service",
        pod=_pod(labels={"foo": "bar", "baz": "kar"}), nodes=[], pods=[],
        defaults=[{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS},
                  {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA},
                  {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": DNS}],
        objs=[{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        constraints=[C(3, "node", sel({"foo": "bar"})), C(5, "rack", sel({"foo": "bar"}))],
        paths={"node": NEW_PATHS, "rack": NEW_PATHS},
        match={},
    ),
    dict(
        name="default constraints and a service that doesn't match",
        pod=_pod(labels={"foo": "bar"}), nodes=[], pods=[],
        defaults=[{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        objs=[{"kind": "Service", "metadata": {}, "spec": {"selector": {"baz": "kep"}}}],
        want_status=("Skip", ""),
    ),
    dict(
        name="default constraints and a service, but pod has constraints",
        pod=_pod((1, "zone", DNS, sel({"baz": "tar"})), (2, "planet", SA, sel({"fot": "rok"})),
                 labels={"foo": "bar", "baz": "tar"}),
        nodes=[], pods=[],
        defaults=[{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        objs=[{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        constraints=[C(1, "zone", sel({"baz": "tar"}))],
        paths={"zone": NEW_PATHS},
        match={},
    ),
    dict(
        name="default soft constraints and a service",
        pod=_pod(labels={"foo": "bar"}), nodes=[], pods=[],
        defaults=[{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA}],
        objs=[{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        want_status=("Skip", ""),
    ),
    dict(
        name="domains are counted for MinDomains",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), nodes=_4N, pods=_7P,
        constraints=[C(1, "zone", FOO), C(1, "node", FOO)],
        paths={"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-x", 0), ("node-b", 1)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
               ("node", "node-x"): 0, ("node", "node-y"): 4},
    ),
    dict(
        name="NodeAffinityPolicy honored with nodeSelector (gate-off case gives the same)",
        pod=_pod((1, "node", DNS, BAR), node_selector={"foo": ""}), nodes=_ABC, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR)],
        paths={"node": [("node-a", 1), ("node-b", 2)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2},
    ),
    dict(
        name="NodeAffinityPolicy honored with labelSelectors",
        pod=_pod((1, "node", DNS, BAR), node_selector={"foo": ""}), nodes=_ABC, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR)],
        paths={"node": [("node-a", 1), ("node-b", 2)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2},
    ),
    dict(
        name="NodeAffinityPolicy ignored with labelSelectors",
        pod=_pod((1, "node", DNS, BAR, None, IGNORE), node_selector={"foo": ""}), nodes=_ABC, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR, naff=IGNORE)],
        paths={"node": [("node-c", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    ),
    dict(
        name="NodeAffinityPolicy honored with nodeAffinity",
        pod=_pod((1, "node", DNS, BAR), node_affinity_in=("foo", [""])), nodes=_ABC,
        pods=[P("p-a", "node-a", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-b", bar=""), P("p-e", "node-c")],
        constraints=[C(1, "node", BAR)],
        paths={"node": [("node-a", 1), ("node-b", 2)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2},
    ),
    dict(
        name="NodeAffinityPolicy ignored with nodeAffinity",
        pod=_pod((1, "node", DNS, BAR, None, IGNORE), node_affinity_in=("foo", [""])), nodes=_ABC, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR, naff=IGNORE)],
        paths={"node": [("node-c", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    ),
    dict(
        name="NodeTaintsPolicy defaults to Ignore (gate-off case gives the same)",
        pod=_pod((1, "node", DNS, BAR)), nodes=_ABC_T, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR)],
        paths={"node": [("node-c", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    ),
    dict(
        name="NodeTaintsPolicy ignored",
        pod=_pod((1, "node", DNS, BAR)), nodes=_ABC_T, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR)],
        paths={"node": [("node-c", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    ),
    dict(
        name="NodeTaintsPolicy honored",
        pod=_pod((1, "node", DNS, BAR, None, None, HONOR)), nodes=_ABC_T, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR, ntaint=HONOR)],
        paths={"node": [("node-a", 1), ("node-b", 2)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2},
    ),
    dict(
        name="NodeTaintsPolicy honored with tolerated taints",
        pod=_pod((1, "node", DNS, BAR, None, None, HONOR), tolerations=["node.kubernetes.io/unschedulable"]),
        nodes=_ABC_T, pods=_ABC_PODS,
        constraints=[C(1, "node", BAR, ntaint=HONOR)],
        paths={"node": [("node-c", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    ),
    dict(
        name="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}),
        nodes=[zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
        pods=[P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        constraints=[C(1, "zone", FOO), C(1, "node", FOO, naff=IGNORE)],
        paths={"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-a", 0), ("node-x", 1)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 1, ("node", "node-a"): 0, ("node", "node-b"): 2,
               ("node", "node-x"): 1},
    ),
    dict(
        name="two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        pod=_pod((1, "zone", DNS, FOO, None, None, HONOR), (1, "node", DNS, FOO)),
        nodes=[zn("node-a", "zone1", foo=""), N("node-b", {"zone": "zone1", "node": "node-b"}, TAINTS),
               zn("node-x", "zone2", foo="")],
        pods=[P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        constraints=[C(1, "zone", FOO, ntaint=HONOR), C(1, "node", FOO)],
        paths={"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-a", 0), ("node-x", 1)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 1, ("node", "node-a"): 0, ("node", "node-b"): 2,
               ("node", "node-x"): 1},
    ),
    dict(
        name="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_selector={"foo": ""}),
        nodes=[zn("node-a", "zone1"), N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
               zn("node-x", "zone2", foo=""), zn("node-y", "zone2")],
        pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-x1", "node-x", foo=""),
              P("p-y1", "node-y", foo="")],
        constraints=[C(1, "zone", FOO), C(1, "node", FOO)],
        paths={"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-b", 0), ("node-x", 1)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 1, ("node", "node-b"): 0, ("node", "node-x"): 1},
    ),
    dict(
        name="two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
        pod=_pod((1, "zone", DNS, FOO, None, IGNORE), (1, "node", DNS, FOO, None, None, HONOR),
                 node_selector={"foo": ""}),
        nodes=[zn("node-a", "zone1"), N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
               zn("node-x", "zone2", foo=""), zn("node-y", "zone2", foo="")],
        pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-x1", "node-x", foo=""),
              P("p-x2", "node-x", foo=""), P("p-y1", "node-y", foo="")],
        constraints=[C(1, "zone", FOO, naff=IGNORE), C(1, "node", FOO, ntaint=HONOR)],
        paths={"zone": [("zone1", 2), ("zone2", 3)], "node": [("node-y", 1), ("node-x", 2)]},
        match={("zone", "zone1"): 2, ("zone", "zone2"): 3, ("node", "node-x"): 2, ("node", "node-y"): 1},
    ),
    dict(
        name="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        pod=_pod((1, "zone", DNS, FOO, None, None, None, ["bar"]), labels={"foo": "", "bar": "a"}),
        nodes=_4N,
        pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo="", bar="a"), P("p-b1", "node-b", foo=""),
              P("p-y1", "node-y", foo="", bar="a"), P("p-y2", "node-y", bar="")],
        constraints=[C(1, "zone", sel({"bar": "a"}, ("foo", "Exists", None)))],
        paths={"zone": [("zone2", 1), ("zone1", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 1},
    ),
    dict(
        name="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        pod=_pod((1, "zone", DNS, sel(), None, None, None, ["foo"]), labels={"foo": "a"}),
        nodes=_4N, pods=_FOO_A,
        constraints=[C(1, "zone", sel({"foo": "a"}))],
        paths={"zone": [("zone2", 2), ("zone1", 3)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 2},
    ),
    dict(
        name="key in matchLabelKeys is ignored when LabelSelector is nil",
        pod=_pod((1, "zone", DNS, None, None, None, None, ["bar"])), nodes=_4N, pods=_FOO_A,
        constraints=[C(1, "zone", None)],
        paths={"zone": [("zone2", 0), ("zone1", 0)]},
        match={("zone", "zone1"): 0, ("zone", "zone2"): 0},
    ),
    dict(
        name="key in matchLabelKeys is ignored when it isn't in pod labels",
        pod=_pod((1, "zone", DNS, FOO, None, None, None, ["bar"])), nodes=_4N, pods=_FOO_A,
        constraints=[C(1, "zone", FOO)],
        paths={"zone": [("zone2", 2), ("zone1", 3)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 2},
    ),
    dict(
        name="skip if not specified",
        pod=_pod(), nodes=[zn("node-a", "zone1")], pods=[],
        want_status=("Skip", ""),
    ),
]


@pytest.mark.parametrize("case", PREFILTER_STATE, ids=[c["name"] for c in PREFILTER_STATE])
def test_prefilter_state(case: dict[str, Any]) -> None:
    args = PodTopologySpreadArgs(tuple(case.get("defaults") or ()), "List")
    owners = StaticOwners(case.get("objs") or [])
    idx = make_index(copy.deepcopy(case["nodes"]), copy.deepcopy(case["pods"]))
    state, status = pre_filter(case["pod"], idx, args, owners)
    assert status_of(status) == case.get("want_status")
    if status is not None:
        return
    check_state(state, case["constraints"], case["paths"], case["match"])


# ----- TestPreFilterStateAddPod / TestPreFilterStateRemovePod ------------------------------

_NODE_C = C(1, "node", FOO)
_ZONE_C = C(1, "zone", FOO)
_ZZ = [N("node-a", {"zone": "zone1", "node": "node-a", "foo": "bar"}), N("node-b", {"zone": "zone2", "node": "node-b", "foo": ""})]
_ZZ_T = [N("node-a", {"zone": "zone1", "node": "node-a"}, TAINTS), N("node-b", {"zone": "zone2", "node": "node-b"})]


def _zp(name: str, node_name: str, zone: str, foo: bool = True) -> dict[str, Any]:
    p = Pod(name).node(node_name).label("zone", zone)
    if foo:
        p.label("foo", "")
    return p.obj()


ADD_POD: list[dict[str, Any]] = [
    dict(
        name="node a and b both impact current min match",
        pod=_pod((1, "node", DNS, FOO)), added=P("p-a1", "node-a", foo=""), pods=[], node_idx=0,
        nodes=[zn("node-a", "zone1"), zn("node-b", "zone1")],
        constraints=[_NODE_C], paths={"node": [("node-b", 0), ("node-a", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 0},
    ),
    dict(
        name="only node a impacts current min match",
        pod=_pod((1, "node", DNS, FOO)), added=P("p-a1", "node-a", foo=""), pods=[P("p-b1", "node-b", foo="")],
        node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1")],
        constraints=[_NODE_C], paths={"node": [("node-a", 1), ("node-b", 1)]},
        match={("node", "node-a"): 1, ("node", "node-b"): 1},
    ),
    dict(
        name="add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
        pod=_pod((1, "node", DNS, FOO)), added=Pod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
        pods=[P("p-b1", "node-b", foo="")], node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1")],
        constraints=[_NODE_C], paths={"node": [("node-a", 0), ("node-b", 1)]},
        match={("node", "node-a"): 0, ("node", "node-b"): 1},
    ),
    dict(
        name="add pod on non-critical node won't trigger re-calculation",
        pod=_pod((1, "node", DNS, FOO)), added=P("p-b2", "node-b", foo=""), pods=[P("p-b1", "node-b", foo="")],
        node_idx=1, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1")],
        constraints=[_NODE_C], paths={"node": [("node-a", 0), ("node-b", 2)]},
        match={("node", "node-a"): 0, ("node", "node-b"): 2},
    ),
    dict(
        name="node a and x both impact topologyKeyToMinPodsMap on zone and node",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), added=P("p-a1", "node-a", foo=""), pods=[],
        node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-x", "zone2")],
        constraints=[_ZONE_C, _NODE_C],
        paths={"zone": [("zone2", 0), ("zone1", 1)], "node": [("node-x", 0), ("node-a", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 0, ("node", "node-a"): 1, ("node", "node-x"): 0},
    ),
    dict(
        name="only node a impacts topologyKeyToMinPodsMap on zone and node",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), added=P("p-a1", "node-a", foo=""),
        pods=[P("p-x1", "node-x", foo="")], node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-x", "zone2")],
        constraints=[_ZONE_C, _NODE_C],
        paths={"zone": [("zone1", 1), ("zone2", 1)], "node": [("node-a", 1), ("node-x", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-x"): 1},
    ),
    dict(
        name="node a impacts the node constraint, node x the zone constraint",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), added=P("p-a1", "node-a", foo=""),
        pods=[P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        constraints=[_ZONE_C, _NODE_C],
        paths={"zone": [("zone2", 1), ("zone1", 3)], "node": [("node-a", 1), ("node-x", 1)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-b"): 2,
               ("node", "node-x"): 1},
    ),
    dict(
        name="constraints hold different labelSelectors, node a impacts the zone constraint",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        added=P("p-a1", "node-a", foo=""),
        pods=[P("p-b1", "node-b", foo="", bar=""), P("p-x1", "node-x", foo="", bar=""), P("p-x2", "node-x", bar="")],
        node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        constraints=[_ZONE_C, C(1, "node", BAR)],
        paths={"zone": [("zone2", 1), ("zone1", 2)], "node": [("node-a", 0), ("node-b", 1)]},
        match={("zone", "zone1"): 2, ("zone", "zone2"): 1, ("node", "node-a"): 0, ("node", "node-b"): 1,
               ("node", "node-x"): 2},
    ),
    dict(
        name="constraints hold different labelSelectors, node a impacts both constraints",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        added=P("p-a1", "node-a", foo="", bar=""),
        pods=[P("p-b1", "node-b", bar=""), P("p-x1", "node-x", foo="", bar=""), P("p-x2", "node-x", bar="")],
        node_idx=0, nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        constraints=[_ZONE_C, C(1, "node", BAR)],
        paths={"zone": [("zone1", 1), ("zone2", 1)], "node": [("node-a", 1), ("node-b", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-b"): 1,
               ("node", "node-x"): 2},
    ),
    dict(
        name="add a pod when scheduling a node-affinity-unmatched pod (gate off and on)",
        pod=_pod((1, "zone", DNS, FOO), node_affinity_not_in=("foo", ["bar"])),
        added=_zp("p-a1", "node-a", "zone1"), pods=[_zp("p-a2", "node-a", "zone1"), _zp("p-b1", "node-b", "zone2")],
        node_idx=0, nodes=_ZZ,
        constraints=[_ZONE_C], paths={"zone": [("zone2", 1), ("", MAX32)]},
        match={("zone", "zone2"): 1},
    ),
    dict(
        name="add a pod when scheduling a node-affinity-matched pod (gate off and on)",
        pod=_pod((1, "zone", DNS, FOO)), added=_zp("p-b1", "node-b", "zone2"),
        pods=[_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")], node_idx=1, nodes=_ZZ,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 2)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 2},
    ),
    dict(
        name="add a label selector not matched pod",
        pod=_pod((1, "zone", DNS, FOO)), added=_zp("p-b1", "node-b", "zone2", foo=False),
        pods=[_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")], node_idx=1, nodes=_ZZ,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 1},
    ),
    dict(
        name="add a pod when scheduling a taint-untolerated pod",
        pod=_pod((1, "zone", DNS, FOO)), added=_zp("p-b1", "node-b", "zone2"),
        pods=[_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")], node_idx=1, nodes=_ZZ_T,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 2)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 2},
    ),
    dict(
        name="add a pod when scheduling a taint-tolerated pod",
        pod=_pod((1, "zone", DNS, FOO), tolerations=["node.kubernetes.io/unschedulable"]),
        added=_zp("p-b1", "node-b", "zone2"),
        pods=[_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")], node_idx=1, nodes=_ZZ_T,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 2)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 2},
    ),
]


@pytest.mark.parametrize("case", ADD_POD, ids=[c["name"] for c in ADD_POD])
def test_prefilter_state_add_pod(case: dict[str, Any]) -> None:
    idx = make_index(copy.deepcopy(case["nodes"]), copy.deepcopy(case["pods"]))
    state, status = pre_filter(case["pod"], idx, LIST_ARGS)
    assert status is None and state is not None
    state.update_with_pod(case["added"], case["pod"], case["nodes"][case["node_idx"]], 1)
    check_state(state, case["constraints"], case["paths"], case["match"])


_3N = [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")]
REMOVE_POD: list[dict[str, Any]] = [
    dict(
        name="one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_3N,
        pods=[P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        deleted_idx=0, node_idx=0,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 1},
    ),
    dict(
        name="one spreadConstraint on node, topologyKeyToMinPodsMap changed",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
        pods=[P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-x1", "node-x", foo=""),
              P("p-y1", "node-y", foo="")],
        deleted_idx=0, node_idx=0,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 1), ("zone2", 2)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 2},
    ),
    dict(
        name="delete an irrelevant pod won't help",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
        pods=[P("p-a0", "node-a", bar=""), P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""),
              P("p-x1", "node-x", foo=""), P("p-y1", "node-y", foo="")],
        deleted_idx=0, node_idx=0,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 2), ("zone2", 2)]},
        match={("zone", "zone1"): 2, ("zone", "zone2"): 2},
    ),
    dict(
        name="delete a non-existing pod won't help",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
        pods=[P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-x1", "node-x", foo=""),
              P("p-y1", "node-y", foo="")],
        deleted_idx=-1, deleted=P("p-a0", "node-a", bar=""), node_idx=0,
        constraints=[_ZONE_C], paths={"zone": [("zone1", 2), ("zone2", 2)]},
        match={("zone", "zone1"): 2, ("zone", "zone2"): 2},
    ),
    dict(
        name="two spreadConstraints",
        pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), nodes=_3N,
        pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo=""),
              P("p-x1", "node-x", foo=""), P("p-x2", "node-x", foo="")],
        deleted_idx=3, node_idx=2,
        constraints=[_ZONE_C, _NODE_C],
        paths={"zone": [("zone2", 1), ("zone1", 3)], "node": [("node-b", 1), ("node-x", 1)]},
        match={("zone", "zone1"): 3, ("zone", "zone2"): 1, ("node", "node-a"): 2, ("node", "node-b"): 1,
               ("node", "node-x"): 1},
    ),
    dict(
        # deletedPodIdx defaults to 0 upstream, so existingPods[0] is the pod removed.
        name="remove a pod when scheduling a node-affinity-unmatched pod (gate off and on)",
        pod=_pod((1, "zone", DNS, FOO), node_affinity_not_in=("foo", ["bar"])), nodes=_ZZ,
        pods=[_zp("p-a2", "node-a", "zone1"), _zp("p-b1", "node-b", "zone2")],
        deleted_idx=0, node_idx=0,
        constraints=[_ZONE_C], paths={"zone": [("zone2", 1), ("", MAX32)]},
        match={("zone", "zone2"): 1},
    ),
    dict(
        name="remove a pod when scheduling a node-affinity-matched pod (gate off and on)",
        pod=_pod((1, "zone", DNS, FOO)), nodes=_ZZ,
        pods=[_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        deleted_idx=-1, deleted=_zp("p-b1", "node-b", "zone2"), node_idx=1,
        constraints=[_ZONE_C], paths={"zone": [("zone2", 0), ("zone1", 1)]},
        match={("zone", "zone1"): 1, ("zone", "zone2"): 0},
    ),
]


@pytest.mark.parametrize("case", REMOVE_POD, ids=[c["name"] for c in REMOVE_POD])
def test_prefilter_state_remove_pod(case: dict[str, Any]) -> None:
    pods = copy.deepcopy(case["pods"])
    idx = make_index(copy.deepcopy(case["nodes"]), pods)
    state, status = pre_filter(case["pod"], idx, LIST_ARGS)
    assert status is None and state is not None
    deleted = pods[case["deleted_idx"]] if case["deleted_idx"] >= 0 else case["deleted"]
    state.update_with_pod(deleted, case["pod"], case["nodes"][case["node_idx"]], -1)
    check_state(state, case["constraints"], case["paths"], case["match"])


def test_prefilter_state_clone() -> None:
    idx = make_index(copy.deepcopy(_4N), copy.deepcopy(_5P))
    state, _ = pre_filter(_pod((1, "zone", DNS, FOO)), idx, LIST_ARGS)
    assert state is not None
    clone = state.clone()
    clone.update_with_pod(P("x", "node-x", foo=""), _pod((1, "zone", DNS, FOO)), _4N[2], 1)
    assert state.tp_value_to_match_num[0] == {"zone1": 3, "zone2": 2}
    assert clone.tp_value_to_match_num[0] == {"zone1": 3, "zone2": 3}
    assert _paths(state.critical_paths[0]) == [("zone2", 2), ("zone1", 3)]


# ----- TestSingleConstraint / TestMultipleConstraints (Filter status codes) ----------------

OK, UN, UU = "Success", "Unschedulable", "UnschedulableAndUnresolvable"
_6P = [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo=""),
       P("p-y1", "node-y", foo=""), P("p-y2", "node-y", foo=""), P("p-y3", "node-y", foo="")]
_NFOO = [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b", "foo": ""}),
         N("node-x", {"node": "node-x", "foo": ""}), N("node-y", {"node": "node-y"})]
_NFOO_T = _NFOO[:3] + [N("node-y", {"node": "node-y"}, TAINTS)]
_P3 = [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")]
_ABC3 = [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}), N("node-c", {"node": "node-c"})]
_22_1 = [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo=""),
         P("p-b2", "node-b", foo=""), P("p-c1", "node-c", foo="")]


def _codes(a: str, b: str, x: str, y: str) -> dict[str, str]:
    return {"node-a": a, "node-b": b, "node-x": x, "node-y": y}


SINGLE: list[dict[str, Any]] = [
    dict(name="no existing pods", pod=_pod((1, "zone", DNS, FOO)), nodes=_4N, pods=[], want=_codes(OK, OK, OK, OK)),
    dict(name="no existing pods, incoming pod doesn't match itself", pod=_pod((1, "zone", DNS, BAR)), nodes=_4N,
         pods=[], want=_codes(OK, OK, OK, OK)),
    dict(name="existing pods in a different namespace do not count", pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
         pods=[Pod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
               Pod("p-b1").ns("ns2").node("node-a").label("foo", "").obj(),
               P("p-x1", "node-x", foo=""), P("p-y1", "node-y", foo="")],
         want=_codes(OK, OK, UN, UN)),
    dict(name="existing pods do not match null selector", pod=_pod((1, "zone", DNS, None)), nodes=_4N,
         pods=[P("p-x1", "node-x", foo=""), P("p-y1", "node-y", foo="")], want=_codes(OK, OK, OK, OK)),
    dict(name="pods spread across zones as 3/3, all nodes fit", pod=_pod((1, "zone", DNS, FOO)), nodes=_4N,
         pods=_6P, want=_codes(OK, OK, OK, OK)),
    dict(name="pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
         pod=_pod((1, "zone", DNS, FOO)),
         nodes=[zn("node-a", "zone1"), N("node-b", {"zon": "zone1", "node": "node-b"}), zn("node-x", "zone2"),
                zn("node-y", "zone2")],
         pods=[P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-x1", "node-x", foo=""),
               P("p-y1", "node-y", foo="")],
         want=_codes(OK, UU, UN, UN)),
    dict(name="pod cannot be scheduled as all nodes don't have label 'rack'", pod=_pod((1, "rack", DNS, FOO)),
         nodes=[zn("node-a", "zone1"), zn("node-x", "zone2")], pods=[], want={"node-a": UU, "node-x": UU}),
    dict(name="pods spread across nodes as 2/1/0/3, only node-x fits", pod=_pod((1, "node", DNS, FOO)), nodes=_4N,
         pods=_6P, want=_codes(UN, UN, OK, UN)),
    dict(name="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
         pod=_pod((2, "node", DNS, FOO)), nodes=_4N, pods=_6P, want=_codes(UN, OK, OK, UN)),
    dict(name="pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
         pod=_pod((1, "node", DNS, FOO), labels={"bar": ""}), nodes=_4N, pods=_6P, want=_codes(UN, OK, OK, UN)),
    dict(name="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
         pod=_pod((1, "node", DNS, FOO), node_affinity_in=("node", ["node-a", "node-y"])), nodes=_4N, pods=_6P,
         want=_codes(OK, OK, OK, UN)),
    dict(name="terminating Pods should be excluded", pod=_pod((1, "node", DNS, FOO)),
         nodes=[N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"})],
         pods=[Pod("p-a").node("node-a").label("foo", "").terminating().obj(), P("p-b", "node-b", foo="")],
         want={"node-a": OK, "node-b": UN}),
    dict(name="incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
         pod=_pod((1, "zone", DNS, FOO), node_affinity_not_in=("node", ["node-b"])), nodes=_4N,
         pods=[P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
         want=_codes(OK, OK, UN, UN)),
    dict(name="2/2/1, maxSkew 2, domains < minDomains: the third node fits",
         pod=_pod((2, "node", DNS, FOO, 4)), nodes=_ABC3, pods=_22_1, want={"node-a": UN, "node-b": UN, "node-c": OK}),
    dict(name="2/2/1, maxSkew 2, domains > minDomains: all nodes fit",
         pod=_pod((2, "node", DNS, FOO, 2)), nodes=_ABC3, pods=_22_1, want={"node-a": OK, "node-b": OK, "node-c": OK}),
    dict(name="zones 2/1, maxSkew 2, domains < minDomains: the third and fourth nodes fit",
         pod=_pod((2, "zone", DNS, FOO, 3)), nodes=_4N, pods=_P3, want=_codes(UN, UN, OK, OK)),
    dict(name="zones 2/1, maxSkew 2, domains > minDomains: all nodes fit",
         pod=_pod((2, "zone", DNS, FOO, 1)), nodes=_4N, pods=_P3, want=_codes(OK, OK, OK, OK)),
    dict(name="NodeAffinityPolicy honored with labelSelectors",
         pod=_pod((1, "node", DNS, FOO), node_selector={"foo": ""}), nodes=_NFOO, pods=_P3,
         want=_codes(UN, UN, OK, OK)),
    dict(name="NodeAffinityPolicy ignored with labelSelectors",
         pod=_pod((1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}), nodes=_NFOO, pods=_P3,
         want=_codes(UN, UN, OK, UN)),
    dict(name="NodeAffinityPolicy honored with nodeAffinity",
         pod=_pod((1, "node", DNS, FOO), node_affinity_in=("foo", [""])), nodes=_NFOO, pods=_P3,
         want=_codes(UN, UN, OK, OK)),
    dict(name="NodeAffinityPolicy ignored with nodeAffinity",
         pod=_pod((1, "node", DNS, FOO, None, IGNORE), node_affinity_in=("foo", [""])), nodes=_NFOO, pods=_P3,
         want=_codes(UN, UN, OK, UN)),
    dict(name="NodeTaintsPolicy honored", pod=_pod((1, "node", DNS, FOO, None, None, HONOR)), nodes=_NFOO_T,
         pods=_P3, want=_codes(UN, UN, OK, OK)),
    dict(name="NodeTaintsPolicy ignored", pod=_pod((1, "node", DNS, FOO)), nodes=_NFOO_T, pods=_P3,
         want=_codes(UN, UN, OK, UN)),
]

_ZF = [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo="")]
_ABY = [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")]

MULTIPLE: list[dict[str, Any]] = [
    dict(name="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), nodes=_4N, pods=_6P, want=_codes(UN, UN, OK, UN)),
    dict(name="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)), nodes=_4N,
         pods=_6P + [P("p-y4", "node-y", foo="")], want=_codes(UN, UN, UN, UN)),
    dict(name="Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}), nodes=_4N,
         pods=[P("p-a1", "node-a", foo=""), P("p-y1", "node-y", bar="")], want=_codes(UN, UN, OK, UN)),
    dict(name="Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}), nodes=_4N,
         pods=[P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
         want=_codes(UN, UN, UN, UN)),
    dict(name="Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}), nodes=_4N,
         pods=[P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo="", bar=""), P("p-y1", "node-y", foo=""),
               P("p-y2", "node-y", foo="", bar=""), P("p-y3", "node-y", foo="")],
         want=_codes(UN, OK, UN, UN)),
    dict(name="Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"bar": ""}), nodes=_4N,
         pods=[P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
         want=_codes(OK, OK, UN, UN)),
    dict(name="two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
         nodes=[zn("node-a", "zone1"), zn("node-b", "zone1"), N("node-x", {"zone": "zone2"}), zn("node-y", "zone2")],
         pods=[P("p-a1", "node-a", foo=""), P("p-y3", "node-y", foo="")], want=_codes(UN, OK, UU, UN)),
    dict(name="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}),
         nodes=_ZF + [zn("node-y", "zone2")], pods=_ABY, want=_codes(UN, UN, OK, UN)),
    dict(name="two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
         pod=_pod((1, "zone", DNS, FOO, None, None, HONOR), (1, "node", DNS, FOO)),
         nodes=_ZF + [N("node-y", {"zone": "zone2", "node": "node-y"}, TAINTS)], pods=_ABY,
         want=_codes(UN, UN, OK, UN)),
    dict(name="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
         pod=_pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_selector={"foo": ""}),
         nodes=[zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
                N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS)],
         pods=_ABY, want=_codes(UN, OK, OK, UN)),
    dict(name="two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
         pod=_pod((1, "zone", DNS, FOO, None, None, HONOR), (1, "node", DNS, FOO, None, IGNORE),
                  node_selector={"foo": ""}),
         nodes=[zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo=""),
                N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS)],
         pods=_ABY, want=_codes(UN, UN, OK, UN)),
]


def _filter_codes(case: dict[str, Any]) -> dict[str, str]:
    nodes = copy.deepcopy(case["nodes"])
    idx = make_index(nodes, copy.deepcopy(case["pods"]))
    state, status = pre_filter(case["pod"], idx, LIST_ARGS)
    assert status is None and state is not None
    labels = case["pod"]["metadata"].get("labels") or {}
    got = {}
    for n in nodes:
        o = filter_node(state, labels, n["metadata"].get("labels") or {})
        got[n["metadata"]["name"]] = OK if o is None else o.code
        if o is not None:
            assert status_of(o) in (SKEW, MISSING)
    batch = filter_nodes(state, labels, idx)
    assert {n["metadata"]["name"]: (OK if o is None else o.code) for n, o in zip(nodes, batch)} == got
    return got


@pytest.mark.parametrize("case", SINGLE, ids=[c["name"] for c in SINGLE])
def test_single_constraint(case: dict[str, Any]) -> None:
    assert _filter_codes(case) == case["want"]


@pytest.mark.parametrize("case", MULTIPLE, ids=[c["name"] for c in MULTIPLE])
def test_multiple_constraints(case: dict[str, Any]) -> None:
    assert _filter_codes(case) == case["want"]
