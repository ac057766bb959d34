"""Scheduler extenders without the network: upstream's extender_test.go tables
(TestSchedulerWithExtenders, TestIsInterested, TestConvertToMetaVictims,
TestConvertToVictims) with a port of testing/framework/fake_extender.go as an in-process
extender, the wire format as encoding/json reads it, binding through an extender, and an
in-process extender from the kubesim_scheduler_extenders hook in `kubesim run`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from kubesim_cli import run_kubesim
from kubesim_scheduler import FilterPlugin, Scheduler, ScorePlugin, Status, in_tree_registry
from kubesim_scheduler.extender import Extender, ExtenderError, InProcessTransport, build_extenders
from kubesim_scheduler.extender_types import (
    ExtenderDecodeError,
    convert_to_meta_victims,
    decode_body,
    extender_args,
    parse_filter_result,
    parse_host_priority_list,
    parse_preemption_result,
)
from kubesim_scheduler.framework import Code, NodeTable, PodInfo, ProfileConfig
from kubesim_scheduler.plugins.defaultpreemption import Victims
from scheduler_harness import make_node, make_pod

# ------------------------------------------------------------ fake_extender.go

FitPredicate = Callable[[Mapping[str, Any], str], Status | None]
PriorityFunc = Callable[[Mapping[str, Any], Sequence[str]], list[tuple[str, int]]]


def true_predicate(pod: Mapping[str, Any], node: str) -> Status | None:
    return None


def false_predicate(pod: Mapping[str, Any], node: str) -> Status | None:
    return Status(Code.UNSCHEDULABLE, f'pod is unschedulable on the node "{node}"')


def error_predicate(pod: Mapping[str, Any], node: str) -> Status | None:
    return Status(Code.ERROR, "some error")


def node1_predicate(pod: Mapping[str, Any], node: str) -> Status | None:
    return None if node == "node1" else Status(Code.UNSCHEDULABLE, f'node "{node}" is not allowed')


def node2_predicate(pod: Mapping[str, Any], node: str) -> Status | None:
    return None if node == "node2" else Status(Code.UNSCHEDULABLE, f'node "{node}" is not allowed')


def error_prioritizer(pod: Mapping[str, Any], nodes: Sequence[str]) -> list[tuple[str, int]]:
    raise RuntimeError("some error")


def node1_prioritizer(pod: Mapping[str, Any], nodes: Sequence[str]) -> list[tuple[str, int]]:
    return [(n, 10 if n == "node1" else 1) for n in nodes]


def node2_prioritizer(pod: Mapping[str, Any], nodes: Sequence[str]) -> list[tuple[str, int]]:
    return [(n, 10 if n == "node2" else 1) for n in nodes]


class FakeExtender:
    """FakeExtender, speaking the extender wire format in process."""

    def __init__(
        self, name: str, predicates: Sequence[FitPredicate] = (),
        prioritizers: Sequence[tuple[PriorityFunc, int]] = (), weight: int = 0, *,
        uninterested: bool = False, ignorable: bool = False, binder: Callable[[], str] | None = None,
    ) -> None:
        self.name = name
        self.predicates = list(predicates)
        self.prioritizers = list(prioritizers)
        self.weight = weight
        self.uninterested = uninterested
        self.ignorable = ignorable
        self.binder = binder
        self.calls: list[str] = []

    def extender(self) -> Extender:
        """IsFilter/IsPrioritizer as upstream's fake: by its predicates and prioritizers."""
        return Extender(
            self.name, InProcessTransport(self),
            filter_verb="filter" if self.predicates else "", prioritize_verb="prioritize" if self.prioritizers else "",
            bind_verb="bind", weight=self.weight, ignorable=self.ignorable,
            interested=lambda pod: not self.uninterested,
        )

    def _run(self, pod: Mapping[str, Any], node: str) -> Status | None:
        for p in self.predicates:
            s = p(pod, node)
            if s is not None and not s.is_success():
                return s
        return None

    def filter(self, args: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append("filter")
        kept, failed, unresolvable = [], {}, {}
        for node in args["Nodes"]["items"]:
            name = node["metadata"]["name"]
            s = self._run(args["Pod"], name)
            if s is None:
                kept.append(node)
            elif s.code == Code.UNSCHEDULABLE:
                failed[name] = f'FakeExtender: node "{name}" failed'
            elif s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                unresolvable[name] = f'FakeExtender: node "{name}" failed and unresolvable'
            else:
                raise RuntimeError(s.message())
        return {"Nodes": {"items": kept}, "FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable}

    def prioritize(self, args: Mapping[str, Any]) -> list[dict[str, Any]]:
        self.calls.append("prioritize")
        names = [n["metadata"]["name"] for n in args["Nodes"]["items"]]
        combined: dict[str, int] = {}
        for fn, weight in self.prioritizers:
            if weight == 0:
                continue
            for host, score in fn(args["Pod"], names):
                combined[host] = combined.get(host, 0) + score * weight
        return [{"Host": h, "Score": s} for h, s in combined.items()]

    def bind(self, args: Mapping[str, Any]) -> dict[str, Any]:
        self.calls.append("bind")
        return {"Error": self.binder() if self.binder else ""}


class TrueFilter(FilterPlugin):
    name = "TrueFilter"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        return None


class EqualPrioritizer(ScorePlugin):
    name = "EqualPrioritizerPlugin"

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        return 1


class Node2Prioritizer(ScorePlugin):
    name = "Node2Prioritizer"

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        return 100 if node_info.name == "node2" else 10


REGISTRY = {**in_tree_registry(), TrueFilter.name: TrueFilter, EqualPrioritizer.name: EqualPrioritizer,
            Node2Prioritizer.name: Node2Prioritizer}


def profile(filters: Sequence[str] = ("TrueFilter",), scores: Mapping[str, int] | None = None) -> ProfileConfig:
    plugins: dict[str, tuple[str, ...]] = {"queueSort": ("PrioritySort",), "bind": ("DefaultBinder",)}
    if filters:
        plugins["filter"] = tuple(filters)
    if scores:
        plugins["score"] = tuple(scores)
    return ProfileConfig(plugins=plugins, weights=dict(scores or {}))


def scheduler(prof: ProfileConfig, extenders: Sequence[FakeExtender], nodes: Sequence[str], **kw: Any) -> Scheduler:
    s = Scheduler([prof], registry=REGISTRY, extenders=[e.extender() for e in extenders], **kw)
    for n in nodes:
        s.add_node(make_node(n, {"cpu": "4", "memory": "8Gi", "pods": 10}))
    return s


# (name, filters, scores, extenders, nodes, expected (host, evaluated, feasible) or None for an error)
WITH_EXTENDERS = [
    ("test 1", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [true_predicate]), FakeExtender("FakeExtender2", [error_predicate])],
     ["node1", "node2"], None),
    ("test 2", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [true_predicate]), FakeExtender("FakeExtender2", [false_predicate])],
     ["node1", "node2"], None),
    ("test 3", ("TrueFilter",), {"EqualPrioritizerPlugin": 1},
     [FakeExtender("FakeExtender1", [true_predicate]), FakeExtender("FakeExtender2", [node1_predicate])],
     ["node1", "node2"], ("node1", 2, 1)),
    ("test 4", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [node2_predicate]), FakeExtender("FakeExtender2", [node1_predicate])],
     ["node1", "node2"], None),
    ("test 5", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [true_predicate], [(error_prioritizer, 10)], 1)],
     ["node1"], ("node1", 1, 1)),
    ("test 6", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [true_predicate], [(node1_prioritizer, 10)], 1),
      FakeExtender("FakeExtender2", [true_predicate], [(node2_prioritizer, 10)], 5)],
     ["node1", "node2"], ("node2", 2, 2)),
    ("test 7", ("TrueFilter",), {"Node2Prioritizer": 20},
     [FakeExtender("FakeExtender1", [true_predicate], [(node1_prioritizer, 10)], 1)],
     ["node1", "node2"], ("node2", 2, 2)),
    ("test 8", ("TrueFilter",), {"Node2Prioritizer": 1},
     [FakeExtender("FakeExtender1", [error_predicate], [(error_prioritizer, 10)], uninterested=True)],
     ["node1", "node2"], ("node2", 2, 2)),
    ("test 9", ("TrueFilter",), {"EqualPrioritizerPlugin": 1},
     [FakeExtender("FakeExtender1", [error_predicate], ignorable=True),
      FakeExtender("FakeExtender2", [node1_predicate])],
     ["node1", "node2"], ("node1", 2, 1)),
    ("test 10 - no scoring, extender filters configured, multiple feasible nodes are evaluated", ("TrueFilter",), None,
     [FakeExtender("FakeExtender1", [true_predicate]), FakeExtender("FakeExtender2", [node1_predicate])],
     ["node1", "node2"], ("node1", 2, 1)),
    ("test 11 - no scoring, no prefilters or  extender filters configured, a single feasible node is evaluated",
     (), None, [FakeExtender("FakeExtender1", binder=lambda: "")], ["node1", "node2"], ("node1", 1, 1)),
]


@pytest.mark.parametrize(("name", "filters", "scores", "extenders", "nodes", "expected"), WITH_EXTENDERS,
                         ids=[c[0] for c in WITH_EXTENDERS])
def test_scheduler_with_extenders(
    name: str, filters: tuple[str, ...], scores: dict[str, int] | None, extenders: list[FakeExtender],
    nodes: list[str], expected: tuple[str, int, int] | None,
) -> None:
    s = scheduler(profile(filters, scores), extenders, nodes)
    a = s.evaluate(make_pod("ignored"), score_single=False)
    if expected is None:
        assert not a.succeeded
        return
    assert a.succeeded, a.message()
    feasible = len(a.feasible_nodes())
    assert (a.node, feasible + len(a.filter_statuses()), feasible) == expected


def test_an_extender_error_fails_the_attempt_with_its_text() -> None:
    s = scheduler(profile(), [FakeExtender("E1", [true_predicate]), FakeExtender("E2", [error_predicate])], ["node1", "node2"])
    a = s.evaluate(make_pod("p"))
    assert a.status is not None and a.status.code == Code.ERROR
    assert a.message() == "some error"


def test_extender_failures_become_node_statuses_and_fit_error_reasons() -> None:
    s = scheduler(profile(), [FakeExtender("E1", [false_predicate])], ["node1", "node2"])
    a = s.evaluate(make_pod("p"))
    assert a.message() == '0/2 nodes are available: 1 FakeExtender: node "node1" failed, 1 FakeExtender: node "node2" failed.'
    statuses = a.filter_statuses()
    assert statuses["node1"].code == Code.UNSCHEDULABLE and statuses["node1"].plugin == "E1"
    # the timeline's filter results: every plugin passed, then the extender's verdict
    assert a.filter_results() == {
        "node1": {"TrueFilter": "passed", "E1": 'FakeExtender: node "node1" failed'},
        "node2": {"TrueFilter": "passed", "E1": 'FakeExtender: node "node2" failed'},
    }
    assert a.feasible_nodes() == []


def test_unresolvable_extender_failures_win_and_are_not_preempted_for() -> None:
    def unresolvable(pod: Mapping[str, Any], node: str) -> Status | None:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "gone") if node == "node1" else None

    s = scheduler(profile(), [FakeExtender("E1", [unresolvable])], ["node1", "node2"])
    a = s.evaluate(make_pod("p"))
    assert a.node == "node2"
    assert a.filter_statuses()["node1"].format() == 'UnschedulableAndUnresolvable: [FakeExtender: node "node1" failed and unresolvable]'


def test_extender_scores_are_scaled_and_weighted_in_the_results() -> None:
    ext = FakeExtender("E1", [true_predicate], [(node1_prioritizer, 1)], 3)
    s = scheduler(profile(scores={"EqualPrioritizerPlugin": 1}), [ext], ["node1", "node2"])
    a = s.evaluate(make_pod("p"))
    assert a.scores()["node1"]["E1"] == {"rawScore": 10, "normalizedScore": 100, "finalScore": 300}
    assert a.scores()["node2"]["E1"] == {"rawScore": 1, "normalizedScore": 10, "finalScore": 30}
    assert a.totals() == {"node1": 301, "node2": 31}
    assert a.node == "node1"


def test_prioritize_is_not_called_for_a_single_feasible_node() -> None:
    ext = FakeExtender("E1", [node1_predicate], [(node1_prioritizer, 1)], 1)
    s = scheduler(profile(scores={"EqualPrioritizerPlugin": 1}), [ext], ["node1", "node2"])
    s.add_pod(make_pod("p"))
    a = s.schedule_one()
    assert a is not None and a.node == "node1"
    assert ext.calls == ["filter", "bind"]


def test_an_extender_binds_instead_of_the_bind_plugins() -> None:
    ext = FakeExtender("E1", [true_predicate])
    s = scheduler(profile(), [ext], ["node1"], record_results=True)
    s.add_pod(make_pod("p"))
    a = s.schedule_one()
    assert a is not None and a.bound and a.node == "node1"
    assert ext.calls[-1] == "bind"
    # the binding is written for the extender (the scheduler's binder), DefaultBinder did not run
    assert s.bindings == [(a.pod_key, "node1")]
    assert a.point_results is not None and "bind" not in a.point_results
    assert a.extender_responses["bind"] == {"E1": {"Error": ""}}


def test_a_failing_extender_bind_fails_the_attempt_unless_ignorable() -> None:
    s = scheduler(profile(), [FakeExtender("E1", binder=lambda: "cannot bind")], ["node1"])
    s.add_pod(make_pod("p"))
    a = s.schedule_one()
    assert a is not None and not a.bound and a.message() == "cannot bind"
    assert s.bindings == []
    s = scheduler(profile(), [FakeExtender("E1", binder=lambda: "cannot bind", ignorable=True)], ["node1"],
                  record_results=True)
    s.add_pod(make_pod("p"))
    a = s.schedule_one()
    assert a is not None and a.bound
    assert a.point_results is not None and a.point_results["bind"] == {"DefaultBinder": "success"}


def test_extender_rejections_requeue_on_any_event() -> None:
    """Upstream registers ExtenderName with a wildcard event: a node update requeues the pod."""
    ext = FakeExtender("E1", [false_predicate])
    s = scheduler(profile(), [ext], ["node1"])
    s.add_pod(make_pod("p"))
    a = s.schedule_one()
    assert a is not None and not a.succeeded
    key = a.pod_key
    assert key in s.queue.unschedulable
    s.update_node(make_node("node1", {"cpu": "4", "memory": "8Gi", "pods": 10}, labels={"x": "y"}))
    assert key not in s.queue.unschedulable


# ------------------------------------------------------------- TestIsInterested


def pod_with(resources: Mapping[str, Any] | None = None, init: Mapping[str, Any] | None = None) -> dict[str, Any]:
    pod = make_pod("p", reqs=[None])
    if resources is not None:
        pod["spec"]["containers"][0]["resources"] = dict(resources)
    if init is not None:
        pod["spec"]["initContainers"] = [{"name": "init", "image": "", "resources": dict(init)}]
    return pod


IS_INTERESTED = [
    ("Empty managed resources", (), {"metadata": {"name": "p"}, "spec": {}}, True),
    ("Managed memory, empty resources", ("memory",), pod_with(), False),
    ("Managed memory, container memory with Requests", ("memory",), pod_with({"requests": {"memory": "0"}}), True),
    ("Managed memory, container memory with Limits", ("memory",), pod_with({"limits": {"memory": "0"}}), True),
    ("Managed memory, init container memory", ("memory",), pod_with(init={"requests": {"memory": "0"}}), True),
]


@pytest.mark.parametrize(("label", "managed", "pod", "want"), IS_INTERESTED, ids=[c[0] for c in IS_INTERESTED])
def test_is_interested(label: str, managed: tuple[str, ...], pod: dict[str, Any], want: bool) -> None:
    ext = Extender("http://e", InProcessTransport(object()), managed_resources=managed)
    assert ext.is_interested(pod) is want


# ----------------------------------------------- TestConvertToMetaVictims / Victims


def uid_pod(name: str, uid: str, node: str = "") -> dict[str, Any]:
    p = make_pod(name, node=node)
    p["metadata"]["uid"] = uid
    return p


def test_convert_to_meta_victims() -> None:
    victims = {
        "node1": Victims([PodInfo(uid_pod("pod1", "uid1")), PodInfo(uid_pod("pod3", "uid3"))], 1),
        "node2": Victims([PodInfo(uid_pod("pod2", "uid2")), PodInfo(uid_pod("pod4", "uid4"))], 2),
    }
    assert convert_to_meta_victims(victims) == {
        "node1": {"Pods": [{"UID": "uid1"}, {"UID": "uid3"}], "NumPDBViolations": 1},
        "node2": {"Pods": [{"UID": "uid2"}, {"UID": "uid4"}], "NumPDBViolations": 2},
    }


class Preempter:
    name = "preempter"

    def __init__(self, result: Any) -> None:
        self.result = result
        self.args: list[Any] = []

    def preempt(self, args: Any) -> Any:
        self.args.append(args)
        return self.result


def two_node_table() -> NodeTable:
    table = NodeTable()
    for i, n in enumerate(("node1", "node2")):
        table.add_node(make_node(n, {"cpu": "4", "memory": "8Gi", "pods": 10}))
        table.add_pod(PodInfo(uid_pod(f"pod{i + 1}", f"uid{i + 1}", n)))
        table.add_pod(PodInfo(uid_pod(f"pod{i + 3}", f"uid{i + 3}", n)))
    return table


def test_convert_to_victims() -> None:
    meta = {
        "node1": {"Pods": [{"UID": "uid1"}, {"UID": "uid3"}], "NumPDBViolations": 1},
        "node2": {"Pods": [{"UID": "uid2"}, {"UID": "uid4"}], "NumPDBViolations": 2},
    }
    ext = Extender.from_object(Preempter({"NodeNameToMetaVictims": meta}))
    got, raw = ext.process_preemption(make_pod("preemptor"), {}, two_node_table())
    assert raw == {"NodeNameToMetaVictims": meta}
    assert {n: ([p.name for p in v.pods], v.num_pdb_violations) for n, v in got.items() if v} == {
        "node1": (["pod1", "pod3"], 1), "node2": (["pod2", "pod4"], 2)}


def test_convert_to_victims_errors() -> None:
    ext = Extender.from_object(Preempter({"NodeNameToMetaVictims": {"node9": {"Pods": [{"UID": "uid1"}]}}}))
    with pytest.raises(ExtenderError, match='^nodeinfo not found for node name "node9"$'):
        ext.process_preemption(make_pod("p"), {}, two_node_table())
    ext = Extender.from_object(Preempter({"NodeNameToMetaVictims": {"node1": {"Pods": [{"UID": "uid2"}]}}}))
    with pytest.raises(ExtenderError) as e:
        ext.process_preemption(make_pod("p"), {}, two_node_table())
    assert str(e.value) == ("extender: preempter claims to preempt pod (UID: &{uid2}) on node: node1, "
                            "but the pod is not found on that node")


def test_preemption_args_shapes() -> None:
    victims = {"node1": Victims([PodInfo(uid_pod("pod1", "uid1"))], 0)}
    for capable in (False, True):
        obj = Preempter({"NodeNameToMetaVictims": {}})
        obj.node_cache_capable = capable  # type: ignore[attr-defined]
        Extender.from_object(obj).process_preemption(make_pod("preemptor"), victims, two_node_table())
        args = obj.args[0]
        assert list(args) == ["Pod", "NodeNameToVictims", "NodeNameToMetaVictims"]
        if capable:
            assert args["NodeNameToVictims"] is None
            assert args["NodeNameToMetaVictims"] == {"node1": {"Pods": [{"UID": "uid1"}], "NumPDBViolations": 0}}
        else:
            assert args["NodeNameToMetaVictims"] is None
            assert args["NodeNameToVictims"]["node1"]["Pods"][0]["metadata"]["uid"] == "uid1"
            assert args["NodeNameToVictims"]["node1"]["NumPDBViolations"] == 0


# ----------------------------------------------------------------- wire format


def test_extender_args_shapes() -> None:
    pod, node = make_pod("p"), make_node("n1", {"cpu": "1"})
    assert extender_args(pod, [node], None) == {"Pod": pod, "Nodes": {"metadata": {}, "items": [node]}, "NodeNames": None}
    assert extender_args(pod, None, ["n1"]) == {"Pod": pod, "Nodes": None, "NodeNames": ["n1"]}


def test_response_keys_match_go_field_names_ignoring_case() -> None:
    r = parse_filter_result({"nodenames": ["a"], "failedNodes": {"b": "no"}, "FAILEDANDUNRESOLVABLENODES": {"c": "never"},
                             "error": "", "unknown": 1}, node_cache_capable=True)
    assert (r.node_names, r.failed, r.failed_and_unresolvable, r.error) == (["a"], {"b": "no"}, {"c": "never"}, "")
    # a node-cache-capable extender may still answer with Nodes; NodeNames wins when both come
    assert parse_filter_result({"Nodes": {"items": [{"metadata": {"name": "x"}}]}}, True).node_names == ["x"]
    assert parse_filter_result({"Nodes": {"items": [{"metadata": {"name": "x"}}]}, "NodeNames": ["y"]}, True).node_names == ["y"]
    # without node cache, NodeNames is not read (upstream reads Nodes only); no list keeps no node
    assert parse_filter_result({"NodeNames": ["y"]}, False).node_names is None
    assert parse_filter_result({"Nodes": {}}, False).node_names == []
    assert parse_host_priority_list([{"host": "n1", "score": 3}, None]) == [("n1", 3), ("", 0)]
    assert parse_preemption_result({"NodeNameToMetaVictims": {"n": {"Pods": [{"UID": "u"}], "NumPDBViolations": 1}}})["n"].pod_uids == ("u",)


@pytest.mark.parametrize(("body", "fn", "message"), [
    ({"Error": 5}, lambda d: parse_filter_result(d, False),
     "json: cannot unmarshal number 5 into Go struct field ExtenderFilterResult.Error of type string"),
    ([], lambda d: parse_filter_result(d, False), "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"),
    ([{"Host": "a", "Score": 1.5}], parse_host_priority_list,
     "json: cannot unmarshal number 1.5 into Go struct field HostPriority.Score of type int64"),
    ({"Host": "a"}, parse_host_priority_list, "json: cannot unmarshal object into Go value of type v1.HostPriorityList"),
])
def test_responses_of_the_wrong_type_are_go_errors(body: Any, fn: Callable[[Any], Any], message: str) -> None:
    with pytest.raises(ExtenderDecodeError) as e:
        fn(body)
    assert str(e.value) == message


def test_decode_body_reads_the_first_value_like_a_go_decoder() -> None:
    assert decode_body(' {"Error": ""} trailing') == {"Error": ""}
    for text, message in (("", "EOF"), ("  ", "EOF"), ('{"Error":', "unexpected EOF"),
                          ("<html>", "invalid character '<' looking for beginning of value"),
                          ("nope", "invalid character 'o' in literal null (expecting 'u')"), ("tr", "unexpected EOF")):
        with pytest.raises(ExtenderDecodeError) as e:
            decode_body(text)
        assert str(e.value) == message


def test_a_filter_extender_may_not_invent_nodes() -> None:
    class Inventor:
        name = "inventor"
        node_cache_capable = True

        def filter(self, args: Any) -> Any:
            return {"NodeNames": ["node1", "ghost"]}

    s = Scheduler([profile()], registry=REGISTRY, extenders=build_extenders([], [Inventor]))
    s.add_node(make_node("node1", {"cpu": "1", "pods": 10}))
    a = s.evaluate(make_pod("p"))
    assert a.message() == 'extender "inventor" claims a filtered node "ghost" which is not found in the input node list'


def test_in_process_extender_protocol_defaults() -> None:
    class Minimal:
        name = "min"

        def prioritize(self, args: Any) -> Any:
            return []

    ext = Extender.from_object(Minimal())
    assert (ext.is_filter(), ext.is_prioritizer(), ext.is_binder(), ext.supports_preemption()) == (False, True, False, False)
    assert (ext.weight, ext.node_cache_capable, ext.ignorable) == (1, False, False)

    class BadWeight(Minimal):
        weight = 0

    with pytest.raises(ValueError, match="weight must be positive"):
        Extender.from_object(BadWeight())


def test_the_nominated_node_goes_through_the_extenders_too() -> None:
    """evaluateNominatedNode runs the extenders; when they reject the node, the full pass
    decides (and the node keeps the extender's status)."""
    ext = FakeExtender("E1", [node2_predicate])
    s = scheduler(profile(), [ext], ["node1", "node2"])
    p = make_pod("p")
    p["status"] = {"nominatedNodeName": "node1"}
    a = s.evaluate(p)
    assert a.node == "node2"
    assert ext.calls == ["filter", "filter"]  # the nominated node alone, then the full pass
    assert a.filter_statuses()["node1"].format() == 'Unschedulable: [FakeExtender: node "node1" failed]'
    p["status"] = {"nominatedNodeName": "node2"}
    ext.calls.clear()
    assert s.evaluate(p).node == "node2" and ext.calls == ["filter"]


PLUGIN_MODULE = '''
from kubesim import hookimpl


class LabelFilter:
    name = "label-filter"
    node_cache_capable = False

    def filter(self, args):
        keep = [n for n in args["Nodes"]["items"] if (n["metadata"].get("labels") or {}).get("gpu") == "yes"]
        failed = {n["metadata"]["name"]: "no gpu label" for n in args["Nodes"]["items"] if n not in keep}
        return {"Nodes": {"items": keep}, "FailedNodes": failed}


@hookimpl
def kubesim_scheduler_extenders():
    return [LabelFilter]
'''


def test_in_process_extenders_from_the_hook_in_kubesim_run(tmp_path: Path) -> None:
    (tmp_path / "label_filter_plugin.py").write_text(PLUGIN_MODULE)
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": labels},
              "status": {"allocatable": alloc, "capacity": alloc}}
             for n, labels in (("plain", {}), ("gpu", {"gpu": "yes"}))]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    ops = [{"id": f"o{i}", "step": 0 if i < 2 else 1, "createOperation": {"object": o}} for i, o in enumerate([*nodes, pod])]
    ops.append({"id": "done", "step": 2, "doneOperation": {}})
    doc = {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
           "metadata": {"name": "hook"},
           "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": ops}}
    (tmp_path / "s.yaml").write_text(json.dumps(doc))
    proc = run_kubesim("run", "s.yaml", "-o", "result.json", cwd=tmp_path,
                       env={"KUBESIM_PLUGINS": "label_filter_plugin", "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    timeline = json.loads((tmp_path / "result.json").read_text())["status"]["scenarioResult"]["timeline"]
    scheduled = next(e["podScheduled"] for e in timeline["1"] if "podScheduled" in e)
    assert scheduled["boundTo"] == "gpu"
    assert scheduled["scheduleResult"][0]["pluginResults"]["filter"]["plain"]["label-filter"] == "no gpu label"
