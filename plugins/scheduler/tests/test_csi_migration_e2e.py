"""End-to-end through the installed `kubesim run`: in-tree EBS volumes count against the
ebs.csi.aws.com attach limit of the node's CSINode (CSI migration in NodeVolumeLimits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kubesim.api.pod_ref import expand_pod_refs
from kubesim_cli import run_kubesim

LIMIT = "node(s) exceed max volume count"


def _create(step: int, obj: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"{obj['kind'].lower()}-{obj['metadata']['name']}", "step": step, "createOperation": {"object": obj}}


def _node(name: str) -> dict[str, Any]:
    res = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": res, "capacity": res, "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, volume_id: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "app"}],
                     "volumes": [{"name": "disk", "awsElasticBlockStore": {"volumeID": volume_id}}]}}


def _scenario() -> dict[str, Any]:
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-1"},
               "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 1}}]}}
    return {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
            "metadata": {"name": "csi-migration"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                     "operations": [
                         _create(0, _node("node-1")), _create(0, csinode),
                         _create(1, _pod("first", "aws://us-east-1a/vol-1")),
                         # the same disk by its plain ID: one attachment, it fits
                         _create(2, _pod("same-disk", "vol-1")),
                         # another disk: a second ebs.csi.aws.com volume exceeds the count of 1
                         _create(3, _pod("other-disk", "vol-2")),
                         {"id": "done", "step": 4, "doneOperation": {}}]}}


def test_in_tree_inline_volumes_count_against_the_csi_attach_limit(tmp_path: Path) -> None:
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(_scenario(), sort_keys=False))
    proc = run_kubesim("run", "scenario.yaml", "-o", "result.json", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = expand_pod_refs(json.loads((tmp_path / "result.json").read_text()))
    scheduled, waiting = {}, {}
    for events in result["status"]["scenarioResult"]["timeline"].values():
        for e in events:
            if "podScheduled" in e:
                scheduled[e["podScheduled"]["pod"]["metadata"]["name"]] = e["podScheduled"]["boundTo"]
            if "podUnscheduled" in e:
                waiting[e["podUnscheduled"]["pod"]["metadata"]["name"]] = e["podUnscheduled"]
    assert scheduled == {"first": "node-1", "same-disk": "node-1"}
    attempt = waiting["other-disk"]["scheduleResult"][-1]
    assert attempt["pluginResults"]["filter"]["node-1"]["NodeVolumeLimits"] == LIMIT
