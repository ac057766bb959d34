"""PodTopologySpread: upstream test tables (filtering_test.go, scoring_test.go) and conformance cases.

The stored upstream filtering_test.go predates v1.34's per-constraint state (it keys counts by
(topologyKey, value) pair); its expectations are converted per constraint here. Cases that only
exist to run with the NodeInclusionPolicy/MatchLabelKeys feature gates off are left out (both are
on in v1.34) unless their result is the same with the gates on.
"""

from __future__ import annotations

import copy
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

import conformance_data
from interpodaffinity_builders import Node, Pod, sel
from kubesim_scheduler.plugins.interpodaffinity import ClusterIndex
from kubesim.k8s.selectors import label_selector_as_selector as selector_from_label_selector
from kubesim_scheduler.plugins.podtopologyspread import (
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
from kubesim_scheduler.plugins.podtopologyspread.gomath import go_log, go_round

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


def C(
    max_skew: int, key: str, selector: Any, min_domains: int = 1, naff: str = HONOR, ntaint: str = IGNORE
) -> tuple:
    return (max_skew, key, selector, min_domains, naff, ntaint)


def check_state(
    state: Any, constraints: list[tuple], paths: dict[str, Any], match: dict[tuple[str, str], int]
) -> None:
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
_5P = [
    P("p-a1", "node-a", foo=""),
    P("p-a2", "node-a", foo=""),
    P("p-b1", "node-b", foo=""),
    P("p-y1", "node-y", foo=""),
    P("p-y2", "node-y", foo=""),
]
_7P = _5P + [P("p-y3", "node-y", foo=""), P("p-y4", "node-y", foo="")]
_ABC = [
    N("node-a", {"node": "node-a", "foo": ""}),
    N("node-b", {"node": "node-b", "foo": ""}),
    N("node-c", {"node": "node-c", "bar": ""}),
]
_ABC_PODS = [
    P("p-a", "node-a", bar=""),
    P("p-b", "node-b", bar=""),
    P("p-c", "node-b", bar=""),
    P("p-d", "node-c"),
]
_ABC_T = [
    N("node-a", {"node": "node-a"}),
    N("node-b", {"node": "node-b"}),
    N("node-c", {"node": "node-c", "bar": ""}, TAINTS),
]
_FOO_A = [
    P("p-a1", "node-a", foo="a"),
    P("p-a2", "node-a", foo="a"),
    P("p-b1", "node-b", foo="a"),
    P("p-y1", "node-y", foo="a"),
    P("p-y2", "node-y", foo="a"),
]


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
    {
        "name": "clean cluster with one spreadConstraint",
        "pod": _pod((5, "zone", DNS, sel({"foo": "bar"}))),
        "nodes": _4N,
        "pods": [],
        "constraints": [C(5, "zone", sel({"foo": "bar"}))],
        "paths": {"zone": [("zone1", 0), ("zone2", 0)]},
        "match": {("zone", "zone1"): 0, ("zone", "zone2"): 0},
    },
    {
        "name": "normal case with one spreadConstraint",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": _5P,
        "constraints": [C(1, "zone", FOO)],
        "paths": {"zone": [("zone2", 2), ("zone1", 3)]},
        "match": {("zone", "zone1"): 3, ("zone", "zone2"): 2},
    },
    {
        "name": "normal case with null label selector",
        "pod": _pod((1, "zone", DNS, None)),
        "nodes": _4N,
        "pods": _5P,
        "constraints": [C(1, "zone", None)],
        "paths": {"zone": [("zone2", 0), ("zone1", 0)]},
        "match": {("zone", "zone1"): 0, ("zone", "zone2"): 0},
    },
    {
        "name": "normal case with one spreadConstraint, on a 3-zone cluster",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N + [zn("node-o", "zone3"), zn("node-p", "zone3")],
        "pods": _5P,
        "constraints": [C(1, "zone", FOO)],
        "paths": {"zone": [("zone3", 0), ("zone2", 2)]},
        "match": {("zone", "zone1"): 3, ("zone", "zone2"): 2, ("zone", "zone3"): 0},
    },
    {
        "name": "namespace mismatch doesn't count",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            Pod("p-a2").ns("ns1").node("node-a").label("foo", "").obj(),
            P("p-b1", "node-b", foo=""),
            Pod("p-y1").ns("ns2").node("node-y").label("foo", "").obj(),
            P("p-y2", "node-y", foo=""),
        ],
        "constraints": [C(1, "zone", FOO)],
        "paths": {"zone": [("zone2", 1), ("zone1", 2)]},
        "match": {("zone", "zone1"): 2, ("zone", "zone2"): 1},
    },
    {
        "name": "normal case with two spreadConstraints",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _7P,
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-x", 0), ("node-b", 1)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 4,
            ("node", "node-a"): 2,
            ("node", "node-b"): 1,
            ("node", "node-x"): 0,
            ("node", "node-y"): 4,
        },
    },
    {
        "name": "soft spreadConstraints should be bypassed",
        "pod": _pod((1, "zone", SA, FOO), (1, "zone", DNS, FOO), (1, "node", SA, FOO), (1, "node", DNS, FOO)),
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        "pods": _7P,
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 1), ("node-a", 2)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 4,
            ("node", "node-a"): 2,
            ("node", "node-b"): 1,
            ("node", "node-y"): 4,
        },
    },
    {
        "name": "different labelSelectors - simple version",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        "pods": [P("p-a", "node-a", foo=""), P("p-b", "node-b", bar="")],
        "constraints": [C(1, "zone", FOO), C(1, "node", BAR)],
        "paths": {"zone": [("zone2", 0), ("zone1", 1)], "node": [("node-a", 0), ("node-y", 0)]},
        "match": {
            ("zone", "zone1"): 1,
            ("zone", "zone2"): 0,
            ("node", "node-a"): 0,
            ("node", "node-b"): 1,
            ("node", "node-y"): 0,
        },
    },
    {
        "name": "different labelSelectors - complex pods",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-y", "zone2")],
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
            P("p-y4", "node-y", foo="", bar=""),
        ],
        "constraints": [C(1, "zone", FOO), C(1, "node", BAR)],
        "paths": {"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 0), ("node-a", 1)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 4,
            ("node", "node-a"): 1,
            ("node", "node-b"): 0,
            ("node", "node-y"): 2,
        },
    },
    {
        "name": "two spreadConstraints, and with podAffinity",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_affinity_not_in=("node", ["node-x"])),
        "nodes": _4N,
        "pods": _7P,
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-b", 1), ("node-a", 2)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 4,
            ("node", "node-a"): 2,
            ("node", "node-b"): 1,
            ("node", "node-y"): 4,
        },
    },
    {
        "name": "default constraints and a service",
        "pod": _pod(labels={"foo": "bar", "baz": "kar"}),
        "nodes": [],
        "pods": [],
        "defaults": [
            {"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS},
            {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA},
            {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": DNS},
        ],
        "objs": [{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        "constraints": [C(3, "node", sel({"foo": "bar"})), C(5, "rack", sel({"foo": "bar"}))],
        "paths": {"node": NEW_PATHS, "rack": NEW_PATHS},
        "match": {},
    },
    {
        "name": "default constraints and a service that doesn't match",
        "pod": _pod(labels={"foo": "bar"}),
        "nodes": [],
        "pods": [],
        "defaults": [{"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        "objs": [{"kind": "Service", "metadata": {}, "spec": {"selector": {"baz": "kep"}}}],
        "want_status": ("Skip", ""),
    },
    {
        "name": "default constraints and a service, but pod has constraints",
        "pod": _pod(
            (1, "zone", DNS, sel({"baz": "tar"})),
            (2, "planet", SA, sel({"fot": "rok"})),
            labels={"foo": "bar", "baz": "tar"},
        ),
        "nodes": [],
        "pods": [],
        "defaults": [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": DNS}],
        "objs": [{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        "constraints": [C(1, "zone", sel({"baz": "tar"}))],
        "paths": {"zone": NEW_PATHS},
        "match": {},
    },
    {
        "name": "default soft constraints and a service",
        "pod": _pod(labels={"foo": "bar"}),
        "nodes": [],
        "pods": [],
        "defaults": [{"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": SA}],
        "objs": [{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": "bar"}}}],
        "want_status": ("Skip", ""),
    },
    {
        "name": "domains are counted for MinDomains",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _7P,
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 3), ("zone2", 4)], "node": [("node-x", 0), ("node-b", 1)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 4,
            ("node", "node-a"): 2,
            ("node", "node-b"): 1,
            ("node", "node-x"): 0,
            ("node", "node-y"): 4,
        },
    },
    {
        "name": "NodeAffinityPolicy honored with nodeSelector (gate-off case gives the same)",
        "pod": _pod((1, "node", DNS, BAR), node_selector={"foo": ""}),
        "nodes": _ABC,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR)],
        "paths": {"node": [("node-a", 1), ("node-b", 2)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2},
    },
    {
        "name": "NodeAffinityPolicy honored with labelSelectors",
        "pod": _pod((1, "node", DNS, BAR), node_selector={"foo": ""}),
        "nodes": _ABC,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR)],
        "paths": {"node": [("node-a", 1), ("node-b", 2)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2},
    },
    {
        "name": "NodeAffinityPolicy ignored with labelSelectors",
        "pod": _pod((1, "node", DNS, BAR, None, IGNORE), node_selector={"foo": ""}),
        "nodes": _ABC,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR, naff=IGNORE)],
        "paths": {"node": [("node-c", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    },
    {
        "name": "NodeAffinityPolicy honored with nodeAffinity",
        "pod": _pod((1, "node", DNS, BAR), node_affinity_in=("foo", [""])),
        "nodes": _ABC,
        "pods": [
            P("p-a", "node-a", bar=""),
            P("p-c", "node-b", bar=""),
            P("p-d", "node-b", bar=""),
            P("p-e", "node-c"),
        ],
        "constraints": [C(1, "node", BAR)],
        "paths": {"node": [("node-a", 1), ("node-b", 2)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2},
    },
    {
        "name": "NodeAffinityPolicy ignored with nodeAffinity",
        "pod": _pod((1, "node", DNS, BAR, None, IGNORE), node_affinity_in=("foo", [""])),
        "nodes": _ABC,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR, naff=IGNORE)],
        "paths": {"node": [("node-c", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    },
    {
        "name": "NodeTaintsPolicy defaults to Ignore (gate-off case gives the same)",
        "pod": _pod((1, "node", DNS, BAR)),
        "nodes": _ABC_T,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR)],
        "paths": {"node": [("node-c", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    },
    {
        "name": "NodeTaintsPolicy ignored",
        "pod": _pod((1, "node", DNS, BAR)),
        "nodes": _ABC_T,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR)],
        "paths": {"node": [("node-c", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    },
    {
        "name": "NodeTaintsPolicy honored",
        "pod": _pod((1, "node", DNS, BAR, None, None, HONOR)),
        "nodes": _ABC_T,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR, ntaint=HONOR)],
        "paths": {"node": [("node-a", 1), ("node-b", 2)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2},
    },
    {
        "name": "NodeTaintsPolicy honored with tolerated taints",
        "pod": _pod(
            (1, "node", DNS, BAR, None, None, HONOR), tolerations=["node.kubernetes.io/unschedulable"]
        ),
        "nodes": _ABC_T,
        "pods": _ABC_PODS,
        "constraints": [C(1, "node", BAR, ntaint=HONOR)],
        "paths": {"node": [("node-c", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 2, ("node", "node-c"): 0},
    },
    {
        "name": "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}),
        "nodes": [zn("node-a", "zone1", foo=""), zn("node-b", "zone1"), zn("node-x", "zone2", foo="")],
        "pods": [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO, naff=IGNORE)],
        "paths": {"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-a", 0), ("node-x", 1)]},
        "match": {
            ("zone", "zone1"): 0,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 0,
            ("node", "node-b"): 2,
            ("node", "node-x"): 1,
        },
    },
    {
        "name": "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        "pod": _pod((1, "zone", DNS, FOO, None, None, HONOR), (1, "node", DNS, FOO)),
        "nodes": [
            zn("node-a", "zone1", foo=""),
            N("node-b", {"zone": "zone1", "node": "node-b"}, TAINTS),
            zn("node-x", "zone2", foo=""),
        ],
        "pods": [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        "constraints": [C(1, "zone", FOO, ntaint=HONOR), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-a", 0), ("node-x", 1)]},
        "match": {
            ("zone", "zone1"): 0,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 0,
            ("node", "node-b"): 2,
            ("node", "node-x"): 1,
        },
    },
    {
        "name": "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_selector={"foo": ""}),
        "nodes": [
            zn("node-a", "zone1"),
            N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
            zn("node-x", "zone2", foo=""),
            zn("node-y", "zone2"),
        ],
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "constraints": [C(1, "zone", FOO), C(1, "node", FOO)],
        "paths": {"zone": [("zone1", 0), ("zone2", 1)], "node": [("node-b", 0), ("node-x", 1)]},
        "match": {("zone", "zone1"): 0, ("zone", "zone2"): 1, ("node", "node-b"): 0, ("node", "node-x"): 1},
    },
    {
        "name": "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
        "pod": _pod(
            (1, "zone", DNS, FOO, None, IGNORE),
            (1, "node", DNS, FOO, None, None, HONOR),
            node_selector={"foo": ""},
        ),
        "nodes": [
            zn("node-a", "zone1"),
            N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
            zn("node-x", "zone2", foo=""),
            zn("node-y", "zone2", foo=""),
        ],
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-x2", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "constraints": [C(1, "zone", FOO, naff=IGNORE), C(1, "node", FOO, ntaint=HONOR)],
        "paths": {"zone": [("zone1", 2), ("zone2", 3)], "node": [("node-y", 1), ("node-x", 2)]},
        "match": {("zone", "zone1"): 2, ("zone", "zone2"): 3, ("node", "node-x"): 2, ("node", "node-y"): 1},
    },
    {
        "name": "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        "pod": _pod((1, "zone", DNS, FOO, None, None, None, ["bar"]), labels={"foo": "", "bar": "a"}),
        "nodes": _4N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar="a"),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo="", bar="a"),
            P("p-y2", "node-y", bar=""),
        ],
        "constraints": [C(1, "zone", sel({"bar": "a"}, ("foo", "Exists", None)))],
        "paths": {"zone": [("zone2", 1), ("zone1", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 1},
    },
    {
        "name": "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        "pod": _pod((1, "zone", DNS, sel(), None, None, None, ["foo"]), labels={"foo": "a"}),
        "nodes": _4N,
        "pods": _FOO_A,
        "constraints": [C(1, "zone", sel({"foo": "a"}))],
        "paths": {"zone": [("zone2", 2), ("zone1", 3)]},
        "match": {("zone", "zone1"): 3, ("zone", "zone2"): 2},
    },
    {
        "name": "key in matchLabelKeys is ignored when LabelSelector is nil",
        "pod": _pod((1, "zone", DNS, None, None, None, None, ["bar"])),
        "nodes": _4N,
        "pods": _FOO_A,
        "constraints": [C(1, "zone", None)],
        "paths": {"zone": [("zone2", 0), ("zone1", 0)]},
        "match": {("zone", "zone1"): 0, ("zone", "zone2"): 0},
    },
    {
        "name": "key in matchLabelKeys is ignored when it isn't in pod labels",
        "pod": _pod((1, "zone", DNS, FOO, None, None, None, ["bar"])),
        "nodes": _4N,
        "pods": _FOO_A,
        "constraints": [C(1, "zone", FOO)],
        "paths": {"zone": [("zone2", 2), ("zone1", 3)]},
        "match": {("zone", "zone1"): 3, ("zone", "zone2"): 2},
    },
    {
        "name": "skip if not specified",
        "pod": _pod(),
        "nodes": [zn("node-a", "zone1")],
        "pods": [],
        "want_status": ("Skip", ""),
    },
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
_ZZ = [
    N("node-a", {"zone": "zone1", "node": "node-a", "foo": "bar"}),
    N("node-b", {"zone": "zone2", "node": "node-b", "foo": ""}),
]
_ZZ_T = [
    N("node-a", {"zone": "zone1", "node": "node-a"}, TAINTS),
    N("node-b", {"zone": "zone2", "node": "node-b"}),
]


def _zp(name: str, node_name: str, zone: str, foo: bool = True) -> dict[str, Any]:
    p = Pod(name).node(node_name).label("zone", zone)
    if foo:
        p.label("foo", "")
    return p.obj()


ADD_POD: list[dict[str, Any]] = [
    {
        "name": "node a and b both impact current min match",
        "pod": _pod((1, "node", DNS, FOO)),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1")],
        "constraints": [_NODE_C],
        "paths": {"node": [("node-b", 0), ("node-a", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 0},
    },
    {
        "name": "only node a impacts current min match",
        "pod": _pod((1, "node", DNS, FOO)),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [P("p-b1", "node-b", foo="")],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1")],
        "constraints": [_NODE_C],
        "paths": {"node": [("node-a", 1), ("node-b", 1)]},
        "match": {("node", "node-a"): 1, ("node", "node-b"): 1},
    },
    {
        "name": "add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
        "pod": _pod((1, "node", DNS, FOO)),
        "added": Pod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
        "pods": [P("p-b1", "node-b", foo="")],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1")],
        "constraints": [_NODE_C],
        "paths": {"node": [("node-a", 0), ("node-b", 1)]},
        "match": {("node", "node-a"): 0, ("node", "node-b"): 1},
    },
    {
        "name": "add pod on non-critical node won't trigger re-calculation",
        "pod": _pod((1, "node", DNS, FOO)),
        "added": P("p-b2", "node-b", foo=""),
        "pods": [P("p-b1", "node-b", foo="")],
        "node_idx": 1,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1")],
        "constraints": [_NODE_C],
        "paths": {"node": [("node-a", 0), ("node-b", 2)]},
        "match": {("node", "node-a"): 0, ("node", "node-b"): 2},
    },
    {
        "name": "node a and x both impact topologyKeyToMinPodsMap on zone and node",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-x", "zone2")],
        "constraints": [_ZONE_C, _NODE_C],
        "paths": {"zone": [("zone2", 0), ("zone1", 1)], "node": [("node-x", 0), ("node-a", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 0, ("node", "node-a"): 1, ("node", "node-x"): 0},
    },
    {
        "name": "only node a impacts topologyKeyToMinPodsMap on zone and node",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [P("p-x1", "node-x", foo="")],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-x", "zone2")],
        "constraints": [_ZONE_C, _NODE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 1)], "node": [("node-a", 1), ("node-x", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-x"): 1},
    },
    {
        "name": "node a impacts the node constraint, node x the zone constraint",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        "constraints": [_ZONE_C, _NODE_C],
        "paths": {"zone": [("zone2", 1), ("zone1", 3)], "node": [("node-a", 1), ("node-x", 1)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 1,
            ("node", "node-b"): 2,
            ("node", "node-x"): 1,
        },
    },
    {
        "name": "constraints hold different labelSelectors, node a impacts the zone constraint",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "added": P("p-a1", "node-a", foo=""),
        "pods": [
            P("p-b1", "node-b", foo="", bar=""),
            P("p-x1", "node-x", foo="", bar=""),
            P("p-x2", "node-x", bar=""),
        ],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        "constraints": [_ZONE_C, C(1, "node", BAR)],
        "paths": {"zone": [("zone2", 1), ("zone1", 2)], "node": [("node-a", 0), ("node-b", 1)]},
        "match": {
            ("zone", "zone1"): 2,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 0,
            ("node", "node-b"): 1,
            ("node", "node-x"): 2,
        },
    },
    {
        "name": "constraints hold different labelSelectors, node a impacts both constraints",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "added": P("p-a1", "node-a", foo="", bar=""),
        "pods": [
            P("p-b1", "node-b", bar=""),
            P("p-x1", "node-x", foo="", bar=""),
            P("p-x2", "node-x", bar=""),
        ],
        "node_idx": 0,
        "nodes": [zn("node-a", "zone1"), zn("node-b", "zone1"), zn("node-x", "zone2")],
        "constraints": [_ZONE_C, C(1, "node", BAR)],
        "paths": {"zone": [("zone1", 1), ("zone2", 1)], "node": [("node-a", 1), ("node-b", 1)]},
        "match": {
            ("zone", "zone1"): 1,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 1,
            ("node", "node-b"): 1,
            ("node", "node-x"): 2,
        },
    },
    {
        "name": "add a pod when scheduling a node-affinity-unmatched pod (gate off and on)",
        "pod": _pod((1, "zone", DNS, FOO), node_affinity_not_in=("foo", ["bar"])),
        "added": _zp("p-a1", "node-a", "zone1"),
        "pods": [_zp("p-a2", "node-a", "zone1"), _zp("p-b1", "node-b", "zone2")],
        "node_idx": 0,
        "nodes": _ZZ,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone2", 1), ("", MAX32)]},
        "match": {("zone", "zone2"): 1},
    },
    {
        "name": "add a pod when scheduling a node-affinity-matched pod (gate off and on)",
        "pod": _pod((1, "zone", DNS, FOO)),
        "added": _zp("p-b1", "node-b", "zone2"),
        "pods": [_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        "node_idx": 1,
        "nodes": _ZZ,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 2)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 2},
    },
    {
        "name": "add a label selector not matched pod",
        "pod": _pod((1, "zone", DNS, FOO)),
        "added": _zp("p-b1", "node-b", "zone2", foo=False),
        "pods": [_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        "node_idx": 1,
        "nodes": _ZZ,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 1},
    },
    {
        "name": "add a pod when scheduling a taint-untolerated pod",
        "pod": _pod((1, "zone", DNS, FOO)),
        "added": _zp("p-b1", "node-b", "zone2"),
        "pods": [_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        "node_idx": 1,
        "nodes": _ZZ_T,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 2)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 2},
    },
    {
        "name": "add a pod when scheduling a taint-tolerated pod",
        "pod": _pod((1, "zone", DNS, FOO), tolerations=["node.kubernetes.io/unschedulable"]),
        "added": _zp("p-b1", "node-b", "zone2"),
        "pods": [_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        "node_idx": 1,
        "nodes": _ZZ_T,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 2)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 2},
    },
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
    {
        "name": "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _3N,
        "pods": [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        "deleted_idx": 0,
        "node_idx": 0,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 1},
    },
    {
        "name": "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "deleted_idx": 0,
        "node_idx": 0,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 1), ("zone2", 2)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 2},
    },
    {
        "name": "delete an irrelevant pod won't help",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [
            P("p-a0", "node-a", bar=""),
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "deleted_idx": 0,
        "node_idx": 0,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 2), ("zone2", 2)]},
        "match": {("zone", "zone1"): 2, ("zone", "zone2"): 2},
    },
    {
        "name": "delete a non-existing pod won't help",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "deleted_idx": -1,
        "deleted": P("p-a0", "node-a", bar=""),
        "node_idx": 0,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone1", 2), ("zone2", 2)]},
        "match": {("zone", "zone1"): 2, ("zone", "zone2"): 2},
    },
    {
        "name": "two spreadConstraints",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": _3N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-x2", "node-x", foo=""),
        ],
        "deleted_idx": 3,
        "node_idx": 2,
        "constraints": [_ZONE_C, _NODE_C],
        "paths": {"zone": [("zone2", 1), ("zone1", 3)], "node": [("node-b", 1), ("node-x", 1)]},
        "match": {
            ("zone", "zone1"): 3,
            ("zone", "zone2"): 1,
            ("node", "node-a"): 2,
            ("node", "node-b"): 1,
            ("node", "node-x"): 1,
        },
    },
    {
        # deletedPodIdx defaults to 0 upstream, so existingPods[0] is the pod removed.
        "name": "remove a pod when scheduling a node-affinity-unmatched pod (gate off and on)",
        "pod": _pod((1, "zone", DNS, FOO), node_affinity_not_in=("foo", ["bar"])),
        "nodes": _ZZ,
        "pods": [_zp("p-a2", "node-a", "zone1"), _zp("p-b1", "node-b", "zone2")],
        "deleted_idx": 0,
        "node_idx": 0,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone2", 1), ("", MAX32)]},
        "match": {("zone", "zone2"): 1},
    },
    {
        "name": "remove a pod when scheduling a node-affinity-matched pod (gate off and on)",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _ZZ,
        "pods": [_zp("p-a1", "node-a", "zone1"), _zp("p-b2", "node-b", "zone2")],
        "deleted_idx": -1,
        "deleted": _zp("p-b1", "node-b", "zone2"),
        "node_idx": 1,
        "constraints": [_ZONE_C],
        "paths": {"zone": [("zone2", 0), ("zone1", 1)]},
        "match": {("zone", "zone1"): 1, ("zone", "zone2"): 0},
    },
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
_6P = [
    P("p-a1", "node-a", foo=""),
    P("p-a2", "node-a", foo=""),
    P("p-b1", "node-b", foo=""),
    P("p-y1", "node-y", foo=""),
    P("p-y2", "node-y", foo=""),
    P("p-y3", "node-y", foo=""),
]
_NFOO = [
    N("node-a", {"node": "node-a", "foo": ""}),
    N("node-b", {"node": "node-b", "foo": ""}),
    N("node-x", {"node": "node-x", "foo": ""}),
    N("node-y", {"node": "node-y"}),
]
_NFOO_T = _NFOO[:3] + [N("node-y", {"node": "node-y"}, TAINTS)]
_P3 = [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")]
_ABC3 = [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}), N("node-c", {"node": "node-c"})]
_22_1 = [
    P("p-a1", "node-a", foo=""),
    P("p-a2", "node-a", foo=""),
    P("p-b1", "node-b", foo=""),
    P("p-b2", "node-b", foo=""),
    P("p-c1", "node-c", foo=""),
]


def _codes(a: str, b: str, x: str, y: str) -> dict[str, str]:
    return {"node-a": a, "node-b": b, "node-x": x, "node-y": y}


SINGLE: list[dict[str, Any]] = [
    {
        "name": "no existing pods",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [],
        "want": _codes(OK, OK, OK, OK),
    },
    {
        "name": "no existing pods, incoming pod doesn't match itself",
        "pod": _pod((1, "zone", DNS, BAR)),
        "nodes": _4N,
        "pods": [],
        "want": _codes(OK, OK, OK, OK),
    },
    {
        "name": "existing pods in a different namespace do not count",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": [
            Pod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
            Pod("p-b1").ns("ns2").node("node-a").label("foo", "").obj(),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "want": _codes(OK, OK, UN, UN),
    },
    {
        "name": "existing pods do not match null selector",
        "pod": _pod((1, "zone", DNS, None)),
        "nodes": _4N,
        "pods": [P("p-x1", "node-x", foo=""), P("p-y1", "node-y", foo="")],
        "want": _codes(OK, OK, OK, OK),
    },
    {
        "name": "pods spread across zones as 3/3, all nodes fit",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(OK, OK, OK, OK),
    },
    {
        "name": "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        "pod": _pod((1, "zone", DNS, FOO)),
        "nodes": [
            zn("node-a", "zone1"),
            N("node-b", {"zon": "zone1", "node": "node-b"}),
            zn("node-x", "zone2"),
            zn("node-y", "zone2"),
        ],
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        "want": _codes(OK, UU, UN, UN),
    },
    {
        "name": "pod cannot be scheduled as all nodes don't have label 'rack'",
        "pod": _pod((1, "rack", DNS, FOO)),
        "nodes": [zn("node-a", "zone1"), zn("node-x", "zone2")],
        "pods": [],
        "want": {"node-a": UU, "node-x": UU},
    },
    {
        "name": "pods spread across nodes as 2/1/0/3, only node-x fits",
        "pod": _pod((1, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        "pod": _pod((2, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(UN, OK, OK, UN),
    },
    {
        "name": "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        "pod": _pod((1, "node", DNS, FOO), labels={"bar": ""}),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(UN, OK, OK, UN),
    },
    {
        "name": "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        "pod": _pod((1, "node", DNS, FOO), node_affinity_in=("node", ["node-a", "node-y"])),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(OK, OK, OK, UN),
    },
    {
        "name": "terminating Pods should be excluded",
        "pod": _pod((1, "node", DNS, FOO)),
        "nodes": [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"})],
        "pods": [Pod("p-a").node("node-a").label("foo", "").terminating().obj(), P("p-b", "node-b", foo="")],
        "want": {"node-a": OK, "node-b": UN},
    },
    {
        "name": "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        "pod": _pod((1, "zone", DNS, FOO), node_affinity_not_in=("node", ["node-b"])),
        "nodes": _4N,
        "pods": [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        "want": _codes(OK, OK, UN, UN),
    },
    {
        "name": "2/2/1, maxSkew 2, domains < minDomains: the third node fits",
        "pod": _pod((2, "node", DNS, FOO, 4)),
        "nodes": _ABC3,
        "pods": _22_1,
        "want": {"node-a": UN, "node-b": UN, "node-c": OK},
    },
    {
        "name": "2/2/1, maxSkew 2, domains > minDomains: all nodes fit",
        "pod": _pod((2, "node", DNS, FOO, 2)),
        "nodes": _ABC3,
        "pods": _22_1,
        "want": {"node-a": OK, "node-b": OK, "node-c": OK},
    },
    {
        "name": "zones 2/1, maxSkew 2, domains < minDomains: the third and fourth nodes fit",
        "pod": _pod((2, "zone", DNS, FOO, 3)),
        "nodes": _4N,
        "pods": _P3,
        "want": _codes(UN, UN, OK, OK),
    },
    {
        "name": "zones 2/1, maxSkew 2, domains > minDomains: all nodes fit",
        "pod": _pod((2, "zone", DNS, FOO, 1)),
        "nodes": _4N,
        "pods": _P3,
        "want": _codes(OK, OK, OK, OK),
    },
    {
        "name": "NodeAffinityPolicy honored with labelSelectors",
        "pod": _pod((1, "node", DNS, FOO), node_selector={"foo": ""}),
        "nodes": _NFOO,
        "pods": _P3,
        "want": _codes(UN, UN, OK, OK),
    },
    {
        "name": "NodeAffinityPolicy ignored with labelSelectors",
        "pod": _pod((1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}),
        "nodes": _NFOO,
        "pods": _P3,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "NodeAffinityPolicy honored with nodeAffinity",
        "pod": _pod((1, "node", DNS, FOO), node_affinity_in=("foo", [""])),
        "nodes": _NFOO,
        "pods": _P3,
        "want": _codes(UN, UN, OK, OK),
    },
    {
        "name": "NodeAffinityPolicy ignored with nodeAffinity",
        "pod": _pod((1, "node", DNS, FOO, None, IGNORE), node_affinity_in=("foo", [""])),
        "nodes": _NFOO,
        "pods": _P3,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "NodeTaintsPolicy honored",
        "pod": _pod((1, "node", DNS, FOO, None, None, HONOR)),
        "nodes": _NFOO_T,
        "pods": _P3,
        "want": _codes(UN, UN, OK, OK),
    },
    {
        "name": "NodeTaintsPolicy ignored",
        "pod": _pod((1, "node", DNS, FOO)),
        "nodes": _NFOO_T,
        "pods": _P3,
        "want": _codes(UN, UN, OK, UN),
    },
]

_ZF = [zn("node-a", "zone1", foo=""), zn("node-b", "zone1", foo=""), zn("node-x", "zone2", foo="")]
_ABY = [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")]

MULTIPLE: list[dict[str, Any]] = [
    {
        "name": "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _6P,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": _4N,
        "pods": _6P + [P("p-y4", "node-y", foo="")],
        "want": _codes(UN, UN, UN, UN),
    },
    {
        "name": "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "nodes": _4N,
        "pods": [P("p-a1", "node-a", foo=""), P("p-y1", "node-y", bar="")],
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "nodes": _4N,
        "pods": [P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
        "want": _codes(UN, UN, UN, UN),
    },
    {
        "name": "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"foo": "", "bar": ""}),
        "nodes": _4N,
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
        ],
        "want": _codes(UN, OK, UN, UN),
    },
    {
        "name": "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, BAR), labels={"bar": ""}),
        "nodes": _4N,
        "pods": [P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
        "want": _codes(OK, OK, UN, UN),
    },
    {
        "name": "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO)),
        "nodes": [
            zn("node-a", "zone1"),
            zn("node-b", "zone1"),
            N("node-x", {"zone": "zone2"}),
            zn("node-y", "zone2"),
        ],
        "pods": [P("p-a1", "node-a", foo=""), P("p-y3", "node-y", foo="")],
        "want": _codes(UN, OK, UU, UN),
    },
    {
        "name": "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO, None, IGNORE), node_selector={"foo": ""}),
        "nodes": _ZF + [zn("node-y", "zone2")],
        "pods": _ABY,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        "pod": _pod((1, "zone", DNS, FOO, None, None, HONOR), (1, "node", DNS, FOO)),
        "nodes": _ZF + [N("node-y", {"zone": "zone2", "node": "node-y"}, TAINTS)],
        "pods": _ABY,
        "want": _codes(UN, UN, OK, UN),
    },
    {
        "name": "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        "pod": _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO), node_selector={"foo": ""}),
        "nodes": [
            zn("node-a", "zone1", foo=""),
            zn("node-b", "zone1"),
            zn("node-x", "zone2", foo=""),
            N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS),
        ],
        "pods": _ABY,
        "want": _codes(UN, OK, OK, UN),
    },
    {
        "name": "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        "pod": _pod(
            (1, "zone", DNS, FOO, None, None, HONOR),
            (1, "node", DNS, FOO, None, IGNORE),
            node_selector={"foo": ""},
        ),
        "nodes": [
            zn("node-a", "zone1", foo=""),
            zn("node-b", "zone1"),
            zn("node-x", "zone2", foo=""),
            N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS),
        ],
        "pods": _ABY,
        "want": _codes(UN, UN, OK, UN),
    },
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


# ----- TestPreScoreSkip / TestPreScoreStateEmptyNodes --------------------------------------

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
_RS1 = {
    "kind": "ReplicaSet",
    "apiVersion": "apps/v1",
    "metadata": {"namespace": "default", "name": "rs1"},
    "spec": {"selector": FOO},
}


def _dpod(labels: dict[str, str], owner: str | None = None, *spreads: tuple) -> dict[str, Any]:
    p = Pod("p").ns("default").labels(labels)
    if owner:
        p.owner(owner, "ReplicaSet", "apps/v1")
    for s in spreads:
        p.spread(*s)
    return p.obj()


PRESCORE_SKIP: list[dict[str, Any]] = [
    {
        "name": "the pod doesn't have soft topology spread Constraints",
        "pod": Pod("p").ns("default").obj(),
        "args": LIST_ARGS,
        "nodes": [N("node-a", {HOST: "node-a"}), N("node-b", {HOST: "node-b"})],
        "objs": [],
    },
    {
        "name": "default constraints and a replicaset that doesn't match",
        "pod": _dpod({"foo": "bar", "baz": "sup"}, "rs2"),
        "args": PodTopologySpreadArgs(
            ({"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA},), "List"
        ),
        "nodes": [N("node-a", {"planet": "mars"})],
        "objs": [
            {
                "kind": "ReplicaSet",
                "metadata": {"namespace": "default", "name": "rs1"},
                "spec": {"selector": sel(None, ("tar", "Exists", None))},
            }
        ],
    },
]


@pytest.mark.parametrize("case", PRESCORE_SKIP, ids=[c["name"] for c in PRESCORE_SKIP])
def test_prescore_skip(case: dict[str, Any]) -> None:
    idx = make_index(copy.deepcopy(case["nodes"]), [])
    state, status = pre_score(
        case["pod"], idx, list(range(idx.size)), case["args"], StaticOwners(case["objs"])
    )
    assert state is None and status_of(status) == ("Skip", "")


_ZH = [
    N("node-a", {"zone": "zone1", HOST: "node-a"}),
    N("node-b", {"zone": "zone1", HOST: "node-b"}),
    N("node-x", {"zone": "zone2", HOST: "node-x"}),
]
_ZHF = [
    N("node-a", {"zone": "zone1", "foo": "", HOST: "node-a"}),
    N("node-b", {"zone": "zone1", "foo": "", HOST: "node-b"}),
    N("node-x", {"zone": "zone2", HOST: "node-x"}),
]
_ZHF_T = _ZHF[:2] + [N("node-x", {"zone": "zone2", HOST: "node-x"}, TAINTS)]


def W(n: int) -> float:
    return go_log(float(n + 2))


PRESCORE_STATE: list[dict[str, Any]] = [
    {
        "name": "normal case",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, FOO)),
        "nodes": _ZH,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", FOO), C(1, HOST, FOO)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}, {}],
        "weights": [W(2), W(3)],
    },
    {
        "name": "null selector",
        "pod": _pod((1, "zone", SA, None)),
        "nodes": _ZH,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", None)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "node-x doesn't have label zone",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, BAR)),
        "nodes": _ZH[:2] + [N("node-x", {HOST: "node-x"})],
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", FOO), C(1, HOST, BAR)],
        "ignored": {"node-x"},
        "counts": [{"zone1": 0}, {}],
        "weights": [W(1), W(2)],
    },
    {
        "name": "system default constraints and a replicaset",
        "pod": _dpod({"foo": "tar", "baz": "sup"}, "rs1"),
        "nodes": [
            N("node-a", {HOST: "node-a", ZONE: "mars"}),
            N("node-b", {HOST: "node-b", ZONE: "mars"}),
            N("node-c", {HOST: "node-c"}),
            N("node-d", {HOST: "node-d"}),
        ],
        "args": PodTopologySpreadArgs(),
        "objs": [_RS1],
        "constraints": [C(3, HOST, FOO), C(5, ZONE, FOO)],
        "ignored": set(),
        "counts": [{}, {"mars": 0, "": 0}],
        "weights": [W(4), W(2)],
    },
    {
        "name": "default constraints and a replicaset",
        "pod": _dpod({"foo": "tar", "baz": "sup"}, "rs1"),
        "nodes": [N("node-a", {"rack": "rack1", HOST: "node-a", "planet": "mars"})],
        "args": PodTopologySpreadArgs(
            (
                {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": SA},
                {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": DNS},
                {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": SA},
            ),
            "List",
        ),
        "objs": [_RS1],
        "constraints": [C(1, HOST, FOO), C(2, "planet", FOO)],
        "ignored": set(),
        "counts": [{}, {"mars": 0}],
        "weights": [W(1), W(1)],
    },
    {
        "name": "default constraints and a replicaset, but pod has constraints",
        "pod": _dpod(
            {"foo": "bar", "baz": "sup"}, "rs1", (1, "zone", DNS, BAR), (2, "planet", SA, sel({"baz": "sup"}))
        ),
        "nodes": [N("node-a", {"planet": "mars", "galaxy": "andromeda"})],
        "args": PodTopologySpreadArgs(
            ({"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": SA},), "List"
        ),
        "objs": [_RS1],
        "constraints": [C(2, "planet", sel({"baz": "sup"}))],
        "ignored": set(),
        "counts": [{"mars": 0}],
        "weights": [W(1)],
    },
    {
        "name": "NodeAffinityPolicy honored with labelSelectors",
        "pod": _pod((1, "zone", SA, BAR), node_selector={"foo": ""}),
        "nodes": _ZHF,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "NodeAffinityPolicy ignored with labelSelectors",
        "pod": _pod((1, "zone", SA, BAR, None, IGNORE), node_selector={"foo": ""}),
        "nodes": _ZHF,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR, naff=IGNORE)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "NodeAffinityPolicy honored with nodeAffinity",
        "pod": _pod((1, "zone", SA, BAR), node_affinity_in=("foo", [""])),
        "nodes": _ZHF,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "NodeAffinityPolicy ignored with nodeAffinity",
        "pod": _pod((1, "zone", SA, BAR, None, IGNORE), node_affinity_in=("foo", [""])),
        "nodes": _ZHF,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR, naff=IGNORE)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "NodeTaintsPolicy honored",
        "pod": _pod((1, "zone", SA, BAR, None, None, HONOR)),
        "nodes": _ZHF_T,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR, ntaint=HONOR)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
    {
        "name": "NodeTaintsPolicy ignored",
        "pod": _pod((1, "zone", SA, BAR)),
        "nodes": _ZHF_T,
        "args": LIST_ARGS,
        "constraints": [C(1, "zone", BAR)],
        "ignored": set(),
        "counts": [{"zone1": 0, "zone2": 0}],
        "weights": [W(2)],
    },
]


@pytest.mark.parametrize("case", PRESCORE_STATE, ids=[c["name"] for c in PRESCORE_STATE])
def test_prescore_state_empty_nodes(case: dict[str, Any]) -> None:
    idx = make_index(copy.deepcopy(case["nodes"]), [])
    state, status = pre_score(
        case["pod"], idx, list(range(idx.size)), case["args"], StaticOwners(case.get("objs", []))
    )
    assert status is None and state is not None
    assert len(state.constraints) == len(case["constraints"])
    for got, want in zip(state.constraints, case["constraints"]):
        max_skew, key, selector, min_domains, naff, ntaint = want
        assert (got.max_skew, got.topology_key, got.min_domains) == (max_skew, key, min_domains)
        assert (got.node_affinity_policy, got.node_taints_policy) == (naff, ntaint)
        assert got.selector.sig() == selector_from_label_selector(selector).sig()
    assert state.ignored_nodes == case["ignored"]
    assert state.topology_value_to_pod_counts == case["counts"]
    assert state.topology_normalizing_weight == case["weights"]


# ----- TestPodTopologySpreadScore ----------------------------------------------------------


def H(name: str, **extra: str) -> dict[str, Any]:
    return N(name, {HOST: name, **extra})


def _pods(spec: str) -> list[dict[str, Any]]:
    """'a:2 b:1' -> pods p-a1, p-a2, p-b1 labelled foo on node-a/node-b."""
    out = []
    for part in spec.split():
        n, k = part.split(":")
        out += [P(f"p-{n}{i + 1}", f"node-{n}", foo="") for i in range(int(k))]
    return out


_HABCD = [H("node-a"), H("node-b"), H("node-c"), H("node-d")]
_NN = [
    N("node-a", {"node": "node-a", "foo": ""}),
    N("node-b", {"node": "node-b", "foo": ""}),
    N("node-c", {"node": "node-c"}),
]
_NN_T = [
    N("node-a", {"node": "node-a"}),
    N("node-b", {"node": "node-b"}),
    N("node-c", {"node": "node-c"}, TAINTS),
]
_ZH4 = [
    N("node-a", {"zone": "zone1", HOST: "node-a"}),
    N("node-b", {"zone": "zone1", HOST: "node-b"}),
    N("node-c", {"zone": "zone2", HOST: "node-c"}),
    N("node-d", {"zone": "zone2", HOST: "node-d"}),
]
_ZHX = [
    N("node-a", {"zone": "zone1", HOST: "node-a"}),
    N("node-b", {"zone": "zone1", HOST: "node-b"}),
    N("node-x", {"zone": "zone2", HOST: "node-x"}),
    N("node-y", {"zone": "zone2", HOST: "node-y"}),
]

SCORE: list[dict[str, Any]] = [
    {
        "name": "one constraint on node, no existing pods",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": [],
        "nodes": [H("node-a"), H("node-b")],
        "want": {"node-a": 100, "node-b": 100},
    },
    {
        "name": "one constraint on node, only one node is candidate",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": _pods("a:2 b:1"),
        "nodes": [H("node-a")],
        "failed": [H("node-b")],
        "want": {"node-a": 100},
    },
    {
        "name": "one constraint on node, all nodes have the same number of matching pods",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": _pods("a:1 b:1"),
        "nodes": [H("node-a"), H("node-b")],
        "want": {"node-a": 100, "node-b": 100},
    },
    {
        "name": "one constraint on node, all 4 nodes are candidates",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": _pods("a:2 b:1 d:3"),
        "nodes": _HABCD,
        "want": {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
    },
    {
        "name": "one constraint on node, null selector",
        "pod": _pod((1, HOST, SA, None)),
        "pods": _pods("a:2 b:1 d:3"),
        "nodes": _HABCD,
        "want": {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
    },
    {
        "name": "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        "pod": _pod((2, HOST, SA, FOO)),
        "pods": _pods("a:2 b:1 d:3"),
        "nodes": _HABCD,
        "want": {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
    },
    {
        "name": "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        "pod": _pod((3, HOST, SA, FOO)),
        "pods": _pods("a:4 b:3 c:2 d:1"),
        "nodes": _HABCD,
        "want": {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    },
    {
        "name": "system defaulting, nodes don't have zone, pods match service",
        "pod": _pod(),
        "pods": _pods("a:4 b:3 c:2 d:1"),
        "nodes": _HABCD,
        "objs": [{"kind": "Service", "metadata": {}, "spec": {"selector": {"foo": ""}}}],
        "want": {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    },
    {
        "name": "one constraint on node, 3 out of 4 nodes are candidates",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": _pods("a:4 b:2 x:1 y:3"),
        "nodes": [H("node-a"), H("node-b"), H("node-x")],
        "failed": [H("node-y")],
        "want": {"node-a": 33, "node-b": 83, "node-x": 100},
    },
    {
        "name": "one constraint on node, 3 out of 4 candidates, one node doesn't match topology key",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": _pods("a:4 b:2 x:1 y:3"),
        "nodes": [H("node-a"), N("node-b", {"n": "node-b"}), H("node-x")],
        "failed": [H("node-y")],
        "want": {"node-a": 16, "node-b": 0, "node-x": 100},
    },
    {
        "name": "one constraint on zone, 3 out of 4 nodes are candidates",
        "pod": _pod((1, "zone", SA, FOO)),
        "pods": _pods("a:4 b:2 x:1 y:3"),
        "nodes": _ZHX[:3],
        "failed": _ZHX[3:],
        "want": {"node-a": 75, "node-b": 75, "node-x": 100},
    },
    {
        "name": "two Constraints on zone and node, 2 out of 4 nodes are candidates",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, FOO)),
        "pods": _pods("a:2 b:1 x:2 y:4"),
        "nodes": [_ZHX[0], _ZHX[2]],
        "failed": [_ZHX[1], _ZHX[3]],
        "want": {"node-a": 100, "node-x": 63},
    },
    {
        "name": "two Constraints on zone and node, with different labelSelectors",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, BAR), labels={"foo": "", "bar": ""}),
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", bar=""),
        ],
        "nodes": _ZHX,
        "want": {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
    },
    {
        "name": "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, BAR), labels={"foo": "", "bar": ""}),
        "pods": [
            P("p-b1", "node-b", bar=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo="", bar=""),
        ],
        "nodes": _ZHX,
        "want": {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
    },
    {
        "name": "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        "pod": _pod((1, "zone", SA, FOO), (1, HOST, SA, BAR), labels={"foo": "", "bar": ""}),
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", bar=""),
        ],
        "nodes": _ZHX[:3],
        "failed": _ZHX[3:],
        "want": {"node-a": 50, "node-b": 25, "node-x": 100},
    },
    {
        "name": "existing pods in a different namespace do not count",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": [
            Pod("p-a1").ns("ns1").node("node-a").label("foo", "").obj(),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-b2", "node-b", foo=""),
        ],
        "nodes": [H("node-a"), H("node-b")],
        "want": {"node-a": 100, "node-b": 33},
    },
    {
        "name": "terminating Pods should be excluded",
        "pod": _pod((1, HOST, SA, FOO)),
        "pods": [Pod("p-a").node("node-a").label("foo", "").terminating().obj(), P("p-b", "node-b", foo="")],
        "nodes": [H("node-a"), H("node-b")],
        "want": {"node-a": 100, "node-b": 0},
    },
    {
        "name": "minDomains has no effect when ScheduleAnyway",
        "pod": _pod((2, "node", SA, FOO, 10)),
        "pods": _pods("a:2 b:2 c:1"),
        "nodes": [N(f"node-{c}", {"node": f"node-{c}"}) for c in "abc"],
        "want": {"node-a": 75, "node-b": 75, "node-c": 100},
    },
    {
        "name": "NodeAffinityPolicy honored with labelSelectors",
        "pod": _pod((1, "node", SA, FOO), node_selector={"foo": ""}),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN,
        "want": {"node-a": 0, "node-b": 33, "node-c": 100},
    },
    {
        "name": "NodeAffinityPolicy ignored with labelSelectors",
        "pod": _pod((1, "node", SA, FOO, None, IGNORE), node_selector={"foo": ""}),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN,
        "want": {"node-a": 66, "node-b": 100, "node-c": 100},
    },
    {
        "name": "NodeAffinityPolicy honored with nodeAffinity",
        "pod": _pod((1, "node", SA, FOO), node_affinity_in=("foo", [""])),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN,
        "want": {"node-a": 0, "node-b": 33, "node-c": 100},
    },
    {
        "name": "NodeAffinityPolicy ignored with nodeAffinity",
        "pod": _pod((1, "node", SA, FOO, None, IGNORE), node_affinity_in=("foo", [""])),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN,
        "want": {"node-a": 66, "node-b": 100, "node-c": 100},
    },
    {
        "name": "NodeTaintsPolicy honored",
        "pod": _pod((1, "node", SA, FOO, None, None, HONOR)),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN_T,
        "want": {"node-a": 0, "node-b": 33, "node-c": 100},
    },
    {
        "name": "NodeTaintsPolicy ignored",
        "pod": _pod((1, "node", SA, FOO)),
        "pods": _pods("a:2 b:1 c:1"),
        "nodes": _NN_T,
        "want": {"node-a": 66, "node-b": 100, "node-c": 100},
    },
    {
        "name": "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        "pod": _pod(
            (1, "zone", SA, sel(), None, None, None, ["foo"]),
            (1, HOST, SA, sel(), None, None, None, ["bar"]),
            labels={"foo": "", "bar": ""},
        ),
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar=""),
            P("p-y1", "node-c", foo=""),
            P("p-y2", "node-c", bar=""),
        ],
        "nodes": _ZH4,
        "want": {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    },
    {
        "name": "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        "pod": _pod(
            (1, "zone", SA, FOO),
            (1, HOST, SA, BAR, None, None, None, ["baz"]),
            labels={"foo": "", "bar": "", "baz": ""},
        ),
        "pods": [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar="", baz=""),
            P("p-c1", "node-c", foo=""),
            P("p-c2", "node-c", bar=""),
            P("p-d3", "node-c", bar="", baz=""),
        ],
        "nodes": _ZH4,
        "want": {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    },
]


def _scores(case: dict[str, Any], args: PodTopologySpreadArgs) -> dict[str, int]:
    nodes = copy.deepcopy(case["nodes"])
    idx = make_index(nodes + copy.deepcopy(case.get("failed", [])), copy.deepcopy(case["pods"]))
    slots = [idx.node_pos[n["metadata"]["name"]] for n in nodes]
    state, status = pre_score(case["pod"], idx, slots, args, StaticOwners(case.get("objs", [])))
    assert status is None and state is not None
    raw = [score_node(state, idx, s) for s in slots]
    assert score_nodes(state, idx, slots) == raw
    names = [n["metadata"]["name"] for n in nodes]
    return dict(zip(names, normalize_scores(state, names, raw)))


@pytest.mark.parametrize("case", SCORE, ids=[c["name"] for c in SCORE])
def test_pod_topology_spread_score(case: dict[str, Any]) -> None:
    assert _scores(case, PodTopologySpreadArgs()) == case["want"]


def test_go_math() -> None:
    assert go_round(0.5) == 1.0 and go_round(-0.5) == -1.0 and go_round(2.5) == 3.0
    assert go_round(0.49999999999999994) == 0.0
    assert go_log(3.0) == 1.0986122886681096  # differs from libm's correctly rounded 1.0986122886681098


# ----- default selectors (helper/spread.go) ------------------------------------------------


def test_default_selector_from_services_and_owners() -> None:
    from kubesim_scheduler.plugins.podtopologyspread import default_selector

    pod = Pod("p").ns("ns").labels({"app": "web", "tier": "fe", "x": "1"}).obj()
    svc = {
        "kind": "Service",
        "metadata": {"namespace": "ns", "name": "s"},
        "spec": {"selector": {"app": "web"}},
    }
    other_ns = {"kind": "Service", "metadata": {"namespace": "other"}, "spec": {"selector": {"x": "1"}}}
    nil_sel = {"kind": "Service", "metadata": {"namespace": "ns"}, "spec": {}}
    owners = StaticOwners([svc, other_ns, nil_sel])
    s = default_selector(pod, owners)
    assert s.sig() == selector_from_label_selector(sel({"app": "web"})).sig()
    assert default_selector(Pod("q").ns("ns").obj(), owners).empty

    rc = {
        "kind": "ReplicationController",
        "metadata": {"namespace": "ns", "name": "rc"},
        "spec": {"selector": {"tier": "fe"}},
    }
    p_rc = copy.deepcopy(pod)
    p_rc["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ReplicationController", "name": "rc", "controller": True}
    ]
    s = default_selector(p_rc, StaticOwners([svc, rc]))
    assert s.sig() == selector_from_label_selector(sel({"app": "web", "tier": "fe"})).sig()

    ss = {
        "kind": "StatefulSet",
        "metadata": {"namespace": "ns", "name": "ss"},
        "spec": {"selector": sel(None, ("x", "In", ["1", "2"]))},
    }
    p_ss = Pod("p").ns("ns").labels({"app": "web", "x": "1"}).owner("ss", "StatefulSet", "apps/v1").obj()
    s = default_selector(p_ss, StaticOwners([svc, ss]))
    assert s.sig() == selector_from_label_selector(sel({"app": "web"}, ("x", "In", ["1", "2"]))).sig()
    # A non-controller owner or an unknown kind adds nothing.
    p_other = Pod("p").ns("ns").labels({"app": "web"}).owner("d", "Deployment", "apps/v1").obj()
    assert (
        default_selector(p_other, StaticOwners([svc])).sig()
        == selector_from_label_selector(sel({"app": "web"})).sig()
    )


def test_system_defaults_with_replicaset_filter_and_score() -> None:
    """System defaults are ScheduleAnyway only: PreFilter skips, PreScore spreads by host and zone."""
    rs = {
        "kind": "ReplicaSet",
        "metadata": {"namespace": "default", "name": "rs1"},
        "spec": {"selector": sel({"app": "a"})},
    }
    pod = Pod("p").ns("default").label("app", "a").owner("rs1", "ReplicaSet", "apps/v1").obj()
    nodes = [
        N("n1", {HOST: "n1", ZONE: "z1"}),
        N("n2", {HOST: "n2", ZONE: "z1"}),
        N("n3", {HOST: "n3", ZONE: "z2"}),
        N("n4", {HOST: "n4"}),
    ]
    pods = [
        Pod(f"e{i}").ns("default").label("app", "a").node(n).obj()
        for i, n in enumerate(["n1", "n1", "n2", "n4"])
    ]
    idx = make_index(nodes, pods)
    _, status = pre_filter(pod, idx, PodTopologySpreadArgs(), StaticOwners([rs]))
    assert status_of(status) == ("Skip", "")
    state, status = pre_score(pod, idx, [0, 1, 2, 3], PodTopologySpreadArgs(), StaticOwners([rs]))
    assert status is None and state is not None
    assert [c.max_skew for c in state.constraints] == [3, 5]
    assert state.ignored_nodes == set()  # system defaults don't require every key
    assert state.topology_value_to_pod_counts[1] == {"z1": 3, "z2": 0, "": 1}
    raw = score_nodes(state, idx, [0, 1, 2, 3])
    assert normalize_scores(state, ["n1", "n2", "n3", "n4"], raw) == [28, 35, 85, 100]


def test_args_from_dict() -> None:
    assert PodTopologySpreadArgs.from_dict(None).system_defaulted
    a = PodTopologySpreadArgs.from_dict(
        {
            "defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": DNS}],
        }
    )
    assert not a.system_defaulted and len(a.effective_defaults()) == 1
    with pytest.raises(ValueError):
        PodTopologySpreadArgs.from_dict({"defaultingType": "Bogus"})


def test_invalid_selector_is_an_error_status() -> None:
    pod = _pod((1, "zone", DNS, sel(None, ("foo", "In", []))))
    _, status = pre_filter(pod, make_index(copy.deepcopy(_4N), []), LIST_ARGS)
    assert status is not None and status.code == "Error"
    assert status.reasons[0].startswith(
        "get constraints from pod: obtaining pod's hard topology spread constraints: "
    )


def test_incremental_index_matches_rebuilt_index() -> None:
    pod = _pod((1, "zone", DNS, FOO), (1, "node", DNS, FOO))
    nodes = copy.deepcopy(_4N)
    pods = copy.deepcopy(_7P)
    idx = make_index(nodes, [])
    for p in pods:
        idx.add_pod(p)
    idx.remove_pod(pods[0])
    idx.add_pod(pods[0])
    idx.remove_node("node-x")
    idx.add_node(nodes[2])
    fresh = make_index(copy.deepcopy(_4N), copy.deepcopy(_7P))
    a, _ = pre_filter(pod, idx, LIST_ARGS)
    b, _ = pre_filter(pod, fresh, LIST_ARGS)
    assert a is not None and b is not None
    assert a.tp_value_to_match_num == b.tp_value_to_match_num


# ----- conformance (tests/data/conformance) -------------------------------------------------


PLUGIN = "PodTopologySpread"
CONFORMANCE = conformance_data.cases_involving(PLUGIN)


@pytest.mark.parametrize("case,expected", CONFORMANCE, ids=[c[0]["name"] for c in CONFORMANCE])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    """Filter verdicts on nodes that reach this plugin, and final scores (normalized x weight 2)."""
    pod = case["pod"]
    idx = ClusterIndex(case["nodes"], case["existingPods"])
    feasible = expected["feasible"] or []
    state, _status = pre_filter(pod, idx)
    pod_labels = pod["metadata"].get("labels") or {}
    for _, n in idx.nodes():
        name = n["metadata"]["name"]
        want = expected["filter"].get(name, {})
        # Nodes that passed every filter, or were rejected here or by the later InterPodAffinity.
        if not (name in feasible or PLUGIN in want or "InterPodAffinity" in want):
            continue
        got = None if state is None else filter_node(state, pod_labels, n["metadata"].get("labels") or {})
        assert (str(got) if got else None) == want.get(PLUGIN), name
    if len(feasible) < 2:
        return
    slots = [idx.node_pos[n] for n in feasible]
    s_state, _ = pre_score(pod, idx, slots)
    want_scores = {n: expected["scores"][n].get(PLUGIN) for n in feasible}
    if s_state is None:
        assert all(v is None for v in want_scores.values())
        return
    norm = normalize_scores(s_state, feasible, score_nodes(s_state, idx, slots))
    assert {n: 2 * s for n, s in zip(feasible, norm)} == want_scores


# ----- framework adapter (Phase 2) ------------------------------------------------------------


def test_adapter_spreads_pods_while_scheduling() -> None:
    """Scheduling 12 pods with zone maxSkew 1 over 3 zones through the framework fills evenly."""
    from kubesim_scheduler import Scheduler, in_tree_registry
    from kubesim_scheduler.plugins.interpodaffinity import InterPodAffinity
    from kubesim_scheduler.plugins.podtopologyspread import PodTopologySpread

    reg = dict(in_tree_registry())
    reg[InterPodAffinity.name] = InterPodAffinity
    reg[PodTopologySpread.name] = PodTopologySpread
    s = Scheduler(registry=reg, percentage_of_nodes_to_score=100, seed=7)
    for i in range(6):
        n = N(f"n{i}", {HOST: f"n{i}", ZONE: f"z{i % 3}"})
        n["status"] = {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "20"}}
        s.add_node(n)
    for j in range(12):
        s.add_pod(
            Pod(f"p{j}")
            .ns("default")
            .uid(f"u{j}")
            .label("app", "a")
            .spread(1, ZONE, DNS, sel({"app": "a"}))
            .spread(1, HOST, SA, sel({"app": "a"}))
            .obj()
        )
    s.run()
    assert len(s.bindings) == 12
    per_zone: dict[str, int] = {}
    per_node: dict[str, int] = {}
    for _, node_name in s.bindings:
        z = f"z{int(node_name[1:]) % 3}"
        per_zone[z] = per_zone.get(z, 0) + 1
        per_node[node_name] = per_node.get(node_name, 0) + 1
    assert sorted(per_zone.values()) == [4, 4, 4]
    assert sorted(per_node.values()) == [2] * 6


def test_queueing_hints() -> None:
    from kubesim_scheduler.framework import Handle, NodeTable, QueueingHint
    from kubesim_scheduler.plugins.podtopologyspread import PodTopologySpread

    pl = PodTopologySpread({"defaultingType": "List"}, Handle(NodeTable()))
    pod = Pod("p").uid("p").ns("default").label("app", "a").spread(1, ZONE, DNS, sel({"app": "a"})).obj()
    same = Pod("q").uid("q").ns("default").node("n1").label("app", "a").obj()
    other_ns = Pod("r").uid("r").ns("x").node("n1").label("app", "a").obj()
    unrelated = Pod("s").uid("s").ns("default").node("n1").label("app", "b").obj()
    assert pl._after_pod_change(pod, None, same) == QueueingHint.QUEUE
    assert pl._after_pod_change(pod, None, other_ns) == QueueingHint.QUEUE_SKIP
    assert pl._after_pod_change(pod, None, unrelated) == QueueingHint.QUEUE_SKIP
    assert pl._after_pod_change(pod, same, unrelated) == QueueingHint.QUEUE
    assert pl._after_node_change(pod, None, N("n", {ZONE: "z"})) == QueueingHint.QUEUE
    assert pl._after_node_change(pod, None, N("n", {HOST: "n"})) == QueueingHint.QUEUE_SKIP
    assert pl._after_node_change(pod, N("n", {ZONE: "z"}), N("n", {ZONE: "y"})) == QueueingHint.QUEUE
    assert (
        pl._after_node_change(pod, N("n", {ZONE: "z"}), N("n", {ZONE: "z", "k": "v"}))
        == QueueingHint.QUEUE_SKIP
    )
