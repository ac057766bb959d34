"""kubesim.perf.compile: each scheduler_perf op as Scenario operations on steps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kubesim.errors import InvalidInput
from kubesim.perf.compile import Plan, compile_workload
from kubesim.perf.config import parse_test_cases

POD = """apiVersion: v1
kind: Pod
metadata: {generateName: web-, labels: {app: web}}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: 100m}}}]
"""
NODE = """apiVersion: v1
kind: Node
metadata: {name: "n-{{.Index}}", labels: {rack: "r{{Mod .Index 2}}"}}
status: {capacity: {cpu: "4", pods: "10"}}
"""
CM = """apiVersion: v1
kind: ConfigMap
metadata: {name: "cm-{{.Index}}"}
data: {v: "{{.value}}", next: "{{AddInt .Index 1}}"}
"""


def _plan(tmp_path: Path, ops: list[dict[str, Any]], params: dict[str, Any] | None = None, **kw: Any) -> Plan:
    for name, text in (("pod.yaml", POD), ("node.yaml", NODE), ("cm.yaml", CM)):
        (tmp_path / name).write_text(text)
    data = [{"name": "T", "workloadTemplate": ops, "workloads": [{"name": "w", "params": params or {}}]}]
    (case,) = parse_test_cases(data, str(tmp_path / "perf.yaml"))
    return compile_workload(case, case.workloads[0], **kw)


def _ops(plan: Plan, kind: str = "createOperation") -> list[dict[str, Any]]:
    return [o for o in plan.scenario["spec"]["operations"] if kind in o]


def _objects(plan: Plan, obj_kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [(o["step"], o["createOperation"]["object"]) for o in _ops(plan)
            if o["createOperation"]["object"]["kind"] == obj_kind]


def test_create_nodes_default_template_and_label_strategy(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [{"opcode": "createNodes", "countParam": "$n", "labelNodePrepareStrategy": {
        "labelKey": "zone", "labelValues": ["a", "b", "c"]}}], {"n": 4})
    nodes = _objects(plan, "Node")
    assert [n["metadata"]["name"] for _, n in nodes] == ["sample-node-0", "sample-node-1", "sample-node-2",
                                                         "sample-node-3"]
    assert [n["metadata"]["labels"]["zone"] for _, n in nodes] == ["a", "b", "c", "a"]  # round robin
    assert nodes[0][1]["status"]["allocatable"] == {"pods": "110", "cpu": "4", "memory": "32Gi"}
    assert plan.scenario["spec"]["controllers"]["preSimulationControllers"] == {"disabled": [{"name": "*"}]}
    assert plan.scenario["spec"]["operations"][-1] == {"step": 1, "doneOperation": {}}


def test_node_template_with_text_template_unique_label_and_allocatable(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        {"opcode": "createNodes", "count": 2, "nodeTemplatePath": "node.yaml",
         "uniqueNodeLabelStrategy": {"labelKey": "kubernetes.io/hostname"}},
        {"opcode": "createNodes", "count": 1, "nodeAllocatableStrategy": {
            "nodeAllocatable": {"attachable-volumes-csi-ebs": "5"}, "csiNodeAllocatable": {"ebs": {"count": 5}},
            "migratedPlugins": ["kubernetes.io/aws-ebs"]}},
    ])
    nodes = _objects(plan, "Node")
    assert [(s, n["metadata"]["name"], n["metadata"]["labels"]) for s, n in nodes[:2]] == [
        (0, "n-0", {"rack": "r0", "kubernetes.io/hostname": "n-0"}),
        (0, "n-1", {"rack": "r1", "kubernetes.io/hostname": "n-1"})]
    assert nodes[0][1]["status"]["allocatable"] == {"cpu": "4", "pods": "10"}  # copied from capacity
    assert nodes[2][0] == 1 and nodes[2][1]["status"]["allocatable"]["attachable-volumes-csi-ebs"] == "5"
    (_, csi), = _objects(plan, "CSINode")
    assert csi["spec"]["drivers"] == [{"name": "ebs", "nodeID": "sample-node-0", "allocatable": {"count": 5}}]
    assert csi["metadata"]["annotations"] == {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}


def test_create_pods_namespaces_metrics_and_skip_wait(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        {"opcode": "createPods", "count": 2, "skipWaitToCompletion": True},
        {"opcode": "createPods", "count": 3, "podTemplatePath": "pod.yaml", "collectMetrics": True},
        {"opcode": "createPods", "count": 1, "namespace": "mine"},
    ])
    pods = _objects(plan, "Pod")
    assert [(s, p["metadata"]["namespace"], p["metadata"]["name"]) for s, p in pods] == [
        (0, "namespace-0", "pod-0"), (0, "namespace-0", "pod-1"),  # the next op joins the skipped op's step
        (0, "namespace-1", "web-0"), (0, "namespace-1", "web-1"), (0, "namespace-1", "web-2"),
        (1, "mine", "pod-0")]
    assert [o["metadata"]["name"] for _, o in _objects(plan, "Namespace")] == ["namespace-0", "namespace-1", "mine"]
    (collector,) = plan.collectors
    assert collector.name == "T/w" and (collector.first_step, collector.last_step) == (0, 0)
    assert collector.pods == {("namespace-1", "web-0"), ("namespace-1", "web-1"), ("namespace-1", "web-2")}


def test_pods_with_persistent_volumes_and_signatures(tmp_path: Path) -> None:
    (tmp_path / "pv.yaml").write_text("apiVersion: v1\nkind: PersistentVolume\nspec: {capacity: {storage: 1Gi}}\n")
    plan = _plan(tmp_path, [{"opcode": "createPods", "count": 2, "persistentVolumeTemplatePath": "pv.yaml",
                             "signatureBatchSize": 2}])
    (_, pv), _ = _objects(plan, "PersistentVolume")
    (_, pvc), _ = _objects(plan, "PersistentVolumeClaim")
    (_, pod), _ = _objects(plan, "Pod")
    assert pv["spec"]["claimRef"] == {"namespace": "namespace-0", "name": "pvc-pod-0"}
    assert pvc["spec"]["volumeName"] == pv["metadata"]["name"]
    assert pod["spec"]["volumes"] == [{"name": "vol", "persistentVolumeClaim": {"claimName": "pvc-pod-0"}}]
    assert pod["metadata"]["labels"] == {"signature": "signature-label-0"}


def test_pod_sets_namespaces_and_create_namespaces(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [{"opcode": "createNamespaces", "prefix": "team", "count": 2},
                            {"opcode": "createPodSets", "count": 2, "namespacePrefix": "set",
                             "createPodsOp": {"opcode": "createPods", "count": 1, "collectMetrics": True}}])
    assert [(s, n["metadata"]["name"]) for s, n in _objects(plan, "Namespace")] == [
        (0, "team-0"), (0, "team-1"), (1, "set-0"), (1, "set-1")]
    assert [(s, p["metadata"]["namespace"]) for s, p in _objects(plan, "Pod")] == [(1, "set-0"), (1, "set-1")]
    assert len(plan.collectors) == 2


def test_delete_pods_by_label_at_a_rate(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [{"opcode": "createPods", "count": 4, "podTemplatePath": "pod.yaml", "namespace": "x"},
                            {"opcode": "createPods", "count": 1, "namespace": "x"},
                            {"opcode": "deletePods", "namespace": "x", "labelSelector": {"app": "web"},
                             "deletePodsPerSecond": 2}],
                 step_seconds=1.0)
    deletes = [(o["step"], o["deleteOperation"]["objectMeta"]["name"]) for o in _ops(plan, "deleteOperation")]
    assert deletes == [(2, "web-0"), (2, "web-1"), (3, "web-2"), (3, "web-3")]  # pod-0 has no app=web


def test_barrier_sleep_and_collection_window(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        {"opcode": "createPods", "count": 1, "skipWaitToCompletion": True},
        {"opcode": "barrier"},
        {"opcode": "startCollectingMetrics", "name": "m", "namespaces": ["namespace-4"]},
        {"opcode": "sleep", "duration": "2500ms"},
        {"opcode": "createPods", "count": 1},
        {"opcode": "stopCollectingMetrics"},
    ])
    assert [s for s, _ in _objects(plan, "Pod")] == [0, 4]  # barrier: step 1; sleep 2.5s: 3 more steps
    (collector,) = plan.collectors
    assert (collector.name, collector.first_step, collector.last_step) == ("T/w/m", 1, 4)
    assert collector.measures("namespace-4", "pod-0", {}) and not collector.measures("namespace-0", "pod-0", {})


def test_churn_recreate_and_create(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [{"opcode": "churn", "mode": "recreate", "number": 2, "intervalMilliseconds": 500,
                             "templatePaths": ["pod.yaml"]},
                            {"opcode": "sleep", "duration": "3s"}])
    ops = plan.scenario["spec"]["operations"]
    actions = [(o["step"], "create", o["createOperation"]["object"]["metadata"]["name"]) if "createOperation" in o
               else (o["step"], "delete", o["deleteOperation"]["objectMeta"]["name"])
               for o in ops if "doneOperation" not in o and o.get("createOperation", {}).get("object", {}).get("kind")
               != "Namespace"]
    # ticks every 0.5 s from step 0 to the last step (3): slots 0,1 created, then deleted, then created
    assert actions == [(0, "create", "web-0"), (1, "create", "web-1"), (1, "delete", "web-0"),
                       (2, "delete", "web-1"), (2, "create", "web-2"), (3, "create", "web-3"), (3, "delete", "web-2")]
    created = _plan(tmp_path, [{"opcode": "churn", "mode": "create", "number": 3, "intervalMilliseconds": 200,
                                "templatePaths": ["pod.yaml"]}, {"opcode": "sleep", "duration": "5s"}])
    assert len(_objects(created, "Pod")) == 3


def test_create_any_and_update_any_render_templates(tmp_path: Path) -> None:
    plan = _plan(tmp_path, [
        {"opcode": "createAny", "templatePath": "cm.yaml", "countParam": "$n", "namespace": "cfg",
         "templateParams": {"value": "$v"}},
        {"opcode": "updateAny", "templatePath": "cm.yaml", "count": 2, "namespace": "cfg",
         "templateParams": {"value": "new"}, "updatePerSecond": 1},
    ], {"n": 2, "v": "old"})
    cms = _objects(plan, "ConfigMap")
    assert [(c["metadata"], c["data"]) for _, c in cms] == [
        ({"name": "cm-0", "namespace": "cfg"}, {"v": "old", "next": "1"}),
        ({"name": "cm-1", "namespace": "cfg"}, {"v": "old", "next": "2"})]
    patches = _ops(plan, "patchOperation")
    assert [(p["step"], p["patchOperation"]["objectMeta"]) for p in patches] == [
        (1, {"name": "cm-0", "namespace": "cfg"}), (2, {"name": "cm-1", "namespace": "cfg"})]
    assert json.loads(patches[0]["patchOperation"]["patch"]) == {"data": {"next": "1", "v": "new"}}


def test_two_compilations_are_identical(tmp_path: Path) -> None:
    ops = [{"opcode": "createNodes", "count": 3}, {"opcode": "createPods", "count": 5, "collectMetrics": True},
           {"opcode": "churn", "mode": "create", "intervalMilliseconds": 300, "templatePaths": ["pod.yaml"]}]
    assert json.dumps(_plan(tmp_path, ops).scenario) == json.dumps(_plan(tmp_path, ops).scenario)


@pytest.mark.parametrize("ops, expected", [
    ([{"opcode": "createPods", "count": 1, "podTemplatePath": "missing.yaml"}],
     "[0].workloadTemplate[0].podTemplatePath: cannot read template"),
    ([{"opcode": "createAny", "templatePath": "bad.yaml"}], "template: unsupported template action"),
    ([{"opcode": "createPods", "count": 1, "podTemplatePath": "list.yaml"}], "expected one Kubernetes object"),
    ([{"opcode": "stopCollectingMetrics"}], "stopCollectingMetrics without startCollectingMetrics"),
    ([{"opcode": "createNodes", "count": 50}], "writes more than 10 objects (--max-objects)"),
])
def test_compile_errors_name_the_field(tmp_path: Path, ops: list[dict[str, Any]], expected: str) -> None:
    (tmp_path / "bad.yaml").write_text("kind: ConfigMap\nmetadata: {name: '{{ range .Index }}'}\n")
    (tmp_path / "list.yaml").write_text("- a\n")
    with pytest.raises(InvalidInput) as info:
        _plan(tmp_path, ops, max_objects=10)
    assert any(expected in str(p) for p in info.value.problems), info.value.problems


def test_templates_without_kind_are_of_the_op_kind(tmp_path: Path) -> None:
    (tmp_path / "bare.yaml").write_text("metadata: {generateName: bare-}\nspec: {containers: [{name: c, image: i}]}\n")
    plan = _plan(tmp_path, [{"opcode": "createPods", "count": 1, "podTemplatePath": "bare.yaml"}])
    ((_, pod),) = _objects(plan, "Pod")
    assert pod["apiVersion"] == "v1" and pod["metadata"]["name"] == "bare-0"


def test_a_workload_reaching_an_unsupported_op_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as info:
        _plan(tmp_path, [{"opcode": "createNodes", "count": 1},
                         {"opcode": "createResourceDriver", "driverName": "d", "nodes": "*"}])
    assert [str(p) for p in info.value.problems] == [
        (f"{tmp_path / 'perf.yaml'}: [0].workloadTemplate[1].opcode: opcode 'createResourceDriver' is not supported "
         "by kubesim perf (workload 'w')")]
