"""A small hand-written result (the JSON `kubesim run -o` writes) and fixtures around it.

The story, step by step (the expectations in the tests are computed by hand from it):

0. nodes n1 (4 cpu, 8Gi, 3 pods) and n2 (2 cpu, 4Gi)
1. pods p1 (1 cpu, 1Gi) and p2 (3500m, 2Gi) are created; p1 is bound to n1 (full detail:
   n1 scores Fit 75 + Balanced 90 = 165, n2 scores 50 + 100 = 150); p2 fails twice:
   "Insufficient cpu" on both nodes (once at full detail, once at summary detail)
2. node n3 (8 cpu, 16Gi) joins, p2 is bound to it (its third attempt, one feasible node,
   so no scores); the kubelet reports p1's usage (500m, 512Mi)
3. n2 is cordoned; p3 (1 cpu, 1Gi) is created already bound to n1; p1 is preempted by
   default/p4 and deleted
4. nothing happens
5. done
"""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest

from kubesim.api import Scenario
from kubesim.results import parse_results

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"


def node(name: str, cpu: str, memory: str, pods: str = "110", unschedulable: bool = False) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "uid": f"uid-{name}"},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }
    if unschedulable:
        obj["spec"] = {"unschedulable": True}
    return obj


def pod(name: str, cpu: str, memory: str, node_name: str | None = None, annotations: dict[str, str] | None = None,
        priority: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                            "priority": priority}
    if node_name:
        spec["nodeName"] = node_name
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}}


def step(major: int, minor: int = 0) -> dict[str, int]:
    return {"major": major, "minor": minor}


def create(id: str, at: dict[str, int], obj: dict[str, Any], actor: str = "scenario") -> dict[str, Any]:
    return {"id": id, "step": at, "actor": actor, "create": {"operation": {"object": obj}, "result": obj}}


def patch(id: str, at: dict[str, int], obj: dict[str, Any], body: str, actor: str) -> dict[str, Any]:
    return {"id": id, "step": at, "actor": actor, "patch": {
        "operation": {"typeMeta": {"apiVersion": obj["apiVersion"], "kind": obj["kind"]},
                      "objectMeta": {"name": obj["metadata"]["name"], "namespace": obj["metadata"].get("namespace")},
                      "patch": body, "patchType": "application/merge-patch+json"},
        "result": obj}}


def delete(id: str, at: dict[str, int], kind: str, name: str, namespace: str | None, actor: str) -> dict[str, Any]:
    meta = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"id": id, "step": at, "actor": actor, "delete": {"operation": {
        "typeMeta": {"apiVersion": "v1", "kind": kind}, "objectMeta": meta}}}


def score(raw: int, final: int | None = None) -> dict[str, int]:
    return {"rawScore": raw, "normalizedScore": raw, "finalScore": raw if final is None else final}


P1_ATTEMPT = {
    "step": step(1, 0),
    "allCandidateNodes": ["n1", "n2"], "allFilteredNodes": ["n1", "n2"],
    "pluginResults": {
        "filter": {"n1": {"TaintToleration": "passed", "NodeResourcesFit": "passed"},
                   "n2": {"TaintToleration": "passed", "NodeResourcesFit": "passed"}},
        "score": {"n1": {"NodeResourcesFit": score(75), "NodeResourcesBalancedAllocation": score(90)},
                  "n2": {"NodeResourcesFit": score(50), "NodeResourcesBalancedAllocation": score(100)}},
    },
}
P2_MESSAGE = "0/2 nodes are available: 2 Insufficient cpu."
P2_ATTEMPT_FULL = {
    "step": step(1, 1),
    "allCandidateNodes": ["n1", "n2"], "allFilteredNodes": [],
    "pluginResults": {
        "filter": {"n1": {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"},
                   "n2": {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"}},
        "score": {},
    },
    "message": P2_MESSAGE,
}
P2_ATTEMPT_SUMMARY = {
    "step": step(1, 1), "pluginResults": {"filter": {}, "score": {}}, "message": P2_MESSAGE,
    "candidateNodeCount": 2, "filteredNodeCount": 0, "filterReasonCounts": {"Insufficient cpu": 2},
}
P2_ATTEMPT_BOUND = {
    "step": step(2, 0),
    "allCandidateNodes": ["n1", "n2", "n3"], "allFilteredNodes": ["n3"],
    "pluginResults": {
        "filter": {"n1": {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"},
                   "n2": {"TaintToleration": "passed", "NodeResourcesFit": "Insufficient cpu"},
                   "n3": {"TaintToleration": "passed", "NodeResourcesFit": "passed"}},
        "score": {},
    },
}


def build_result() -> dict[str, Any]:
    n1, n2, n3 = node("n1", "4", "8Gi", pods="3"), node("n2", "2", "4Gi"), node("n3", "8", "16Gi")
    p1, p2 = pod("p1", "1", "1Gi"), pod("p2", "3500m", "2Gi")
    p1_bound = copy.deepcopy(p1)
    p1_bound["spec"]["nodeName"] = "n1"
    p2_bound = copy.deepcopy(p2)
    p2_bound["spec"]["nodeName"] = "n3"
    p1_usage = copy.deepcopy(p1_bound)
    p1_usage["metadata"]["annotations"] = {"kubesim.io/usage": json.dumps({"cpu": "500m", "memory": "512Mi"})}
    p3 = pod("p3", "1", "1Gi", node_name="n1")
    timeline = {
        "0": [create("n1", step(0), n1), create("n2", step(0), n2)],
        "1": [
            create("p1", step(1), p1),
            create("p2", step(1), p2),
            {"id": "event-1", "step": step(1, 1), "actor": "scheduler", "podScheduled": {
                "pod": p1_bound, "createdAt": step(1), "boundTo": "n1", "boundAt": step(1, 1),
                "scheduleResult": [P1_ATTEMPT]}},
            {"id": "event-2", "step": step(1, 1), "actor": "scheduler", "podUnscheduled": {
                "pod": p2, "createdAt": step(1), "scheduleResult": [P2_ATTEMPT_FULL]}},
            {"id": "event-3", "step": step(1, 1), "actor": "scheduler", "podUnscheduled": {
                "pod": p2, "createdAt": step(1), "scheduleResult": [P2_ATTEMPT_SUMMARY]}},
        ],
        "2": [
            create("n3", step(2), n3),
            {"id": "event-4", "step": step(2, 1), "actor": "scheduler", "podScheduled": {
                "pod": p2_bound, "createdAt": step(1), "boundTo": "n3", "boundAt": step(2, 1),
                "scheduleResult": [P2_ATTEMPT_FULL, P2_ATTEMPT_SUMMARY, P2_ATTEMPT_BOUND]}},
            patch("event-5", step(2, 1), p1_usage, '{"metadata":{"annotations":{}}}', actor="kubelet"),
        ],
        "3": [
            patch("cordon", step(3), node("n2", "2", "4Gi", unschedulable=True), '{"spec":{"unschedulable":true}}',
                  actor="scenario"),
            create("p3", step(3), p3),
            {"id": "event-6", "step": step(3, 1), "actor": "scheduler", "podPreempted": {
                "pod": p1_usage, "createdAt": step(1), "boundTo": "n1", "preemptedBy": "default/p4",
                "preemptedAt": step(3, 1)}},
            delete("event-7", step(3, 1), "Pod", "p1", "default", actor="scheduler"),
        ],
        "5": [{"id": "done", "step": step(5), "actor": "scenario", "done": {"operation": {}}}],
    }
    return copy.deepcopy({
        "apiVersion": API, "kind": "Scenario", "metadata": {"name": "small"},
        "spec": {"operations": []},
        "status": {"phase": "Succeeded", "stepStatus": {"step": step(5), "phase": "Finished"},
                   "scenarioResult": {"simulatorVersion": "test", "timeline": timeline}},
    })


@pytest.fixture
def small_doc() -> dict[str, Any]:
    """The hand-written result as JSON data."""
    return build_result()


@pytest.fixture
def small_result(small_doc: dict[str, Any]) -> Scenario:
    """The hand-written result as a Scenario."""
    [result] = parse_results([small_doc], "small.json")
    return result


def result_from(timeline: dict[str, list[dict[str, Any]]], name: str = "built") -> Scenario:
    """A result with this timeline (events built with the helpers above)."""
    last = max((int(k) for k in timeline), default=0)
    doc = {
        "apiVersion": API, "kind": "Scenario", "metadata": {"name": name}, "spec": {"operations": []},
        "status": {"phase": "Succeeded", "stepStatus": {"step": step(last), "phase": "Finished"},
                   "scenarioResult": {"simulatorVersion": "test", "timeline": copy.deepcopy(timeline)}},
    }
    [result] = parse_results([doc])
    return result


@pytest.fixture
def build() -> SimpleNamespace:
    """The builders of this module, for tests that write their own timelines."""
    return SimpleNamespace(node=node, pod=pod, create=create, patch=patch, delete=delete, step=step,
                           result=result_from)
