"""End-to-end: built-in objects of the wrong shape are refused as the API server decodes them.

Each scenario goes through the installed `kubesim validate` and `kubesim run`; both must end
at once with exit 2 and the same message: the operation's field path, then upstream's
decoding error (`... cannot be handled as a Deployment: json: cannot unmarshal ...`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubesim.testing import run_kubesim

API = "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1"
CREATE = "spec.operations[0].createOperation.object"


def _scenario(*ops: dict[str, Any]) -> dict[str, Any]:
    steps = [{"step": i, **op} for i, op in enumerate(ops)]
    return {"apiVersion": API, "kind": "Scenario", "metadata": {"name": "hostile"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}},
                     "operations": [*steps, {"step": len(ops), "doneOperation": {}}]}}


def _create(obj: dict[str, Any]) -> dict[str, Any]:
    return {"createOperation": {"object": obj}}


def _node(status: Any = None, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}} if status is None else status,
            **extra}


def _deployment(labels: Any = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": labels or {"a": "b"}},
            "spec": {"selector": {"matchLabels": {"a": "b"}},
                     "template": {"metadata": {"labels": {"a": "b"}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}}, **spec}}


def _pod(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}


def _patch(patch: dict[str, Any], subresource: str | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"},
                          "patch": json.dumps(patch), "patchType": "application/merge-patch+json"}
    if subresource:
        op["subresource"] = subresource
    return {"patchOperation": op}


DEPLOY = 'Deployment in version "v1" cannot be handled as a Deployment: '
NODE = 'Node in version "v1" cannot be handled as a Node: '
POD = 'Pod in version "v1" cannot be handled as a Pod: '

REFUSED = [
    pytest.param(_scenario(_create(_deployment(labels={"a": 1}))), CREATE, DEPLOY + "json: cannot unmarshal number "
                 "into Go struct field ObjectMeta.metadata.labels of type string", id="labels-int"),
    pytest.param(_scenario(_create(_deployment(labels=["a"]))), CREATE, DEPLOY + "json: cannot unmarshal array "
                 "into Go struct field ObjectMeta.metadata.labels of type map[string]string", id="labels-list"),
    pytest.param(_scenario(_create(_deployment(replicas=2**70))), CREATE, DEPLOY + "json: cannot unmarshal number "
                 "1180591620717411303424 into Go struct field DeploymentSpec.spec.replicas of type int32",
                 id="replicas-2**70"),
    pytest.param(_scenario(_create(_deployment(replicas=2.5))), CREATE, DEPLOY + "json: cannot unmarshal number "
                 "2.5 into Go struct field DeploymentSpec.spec.replicas of type int32", id="replicas-2.5"),
    pytest.param(_scenario(_create(_deployment(replicas="3"))), CREATE, DEPLOY + "json: cannot unmarshal string "
                 "into Go struct field DeploymentSpec.spec.replicas of type int32", id="replicas-string"),
    pytest.param(_scenario(_create(_deployment(replica=3))), CREATE, DEPLOY + 'strict decoding error: unknown '
                 'field "spec.replica"', id="unknown-field"),
    pytest.param(_scenario(_create(_node(status=[]))), CREATE, NODE + "json: cannot unmarshal array into Go struct "
                 "field Node.status of type v1.NodeStatus", id="node-status-list"),
    pytest.param(_scenario(_create(_node(status={"allocatable": "lots"}))), CREATE, NODE + "json: cannot unmarshal "
                 "string into Go struct field NodeStatus.status.allocatable of type v1.ResourceList",
                 id="allocatable-string"),
    pytest.param(_scenario(_create(_node(spec={"taints": "NoSchedule"}))), CREATE, NODE + "json: cannot unmarshal "
                 "string into Go struct field NodeSpec.spec.taints of type []v1.Taint", id="taints-string"),
    pytest.param(_scenario(_create(_pod(tolerations="all"))), CREATE, POD + "json: cannot unmarshal string into Go "
                 "struct field PodSpec.spec.tolerations of type []v1.Toleration", id="tolerations-string"),
    pytest.param(_scenario(_create(_node()), _patch({"status": {"allocatable": "lots"}}, "status")),
                 "spec.operations[1].patchOperation.patch", NODE + "json: cannot unmarshal string into Go struct "
                 "field NodeStatus.status.allocatable of type v1.ResourceList", id="status-patch-allocatable"),
    pytest.param(_scenario(_create(_node()), _patch({"spec": {"taints": "x"}})),
                 "spec.operations[1].patchOperation.patch", NODE + "json: cannot unmarshal string into Go struct "
                 "field NodeSpec.spec.taints of type []v1.Taint", id="patch-taints"),
    pytest.param(_scenario(_create(_node()), {"patchOperation": {
        "typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"}, "subresource": "status",
        "patch": json.dumps([{"op": "replace", "path": "/status/allocatable", "value": "lots"}]),
        "patchType": "application/json-patch+json"}}), "spec.operations[1].patchOperation.patch",
        NODE + "json: cannot unmarshal string into Go struct field NodeStatus.status.allocatable of type "
        "v1.ResourceList", id="json-patch-allocatable"),
    pytest.param(_scenario(_create(_node(status={"allocatable": {"cpu": 1e30}}))), CREATE, NODE + "status.allocatable[cpu]: "
                 "invalid quantity '1e+30': too large (kubesim accepts magnitudes below 1e30)", id="node-quantity-1e30"),
    pytest.param(_scenario(_create(_node()), {"deleteOperation": {
        "typeMeta": {"apiVersion": "v1", "kind": "Node"}, "objectMeta": {"name": "n"},
        "deleteOptions": {"gracePeriodSeconds": 2**70}}}), "spec.operations[1].deleteOperation.deleteOptions."
        "gracePeriodSeconds", "json: cannot unmarshal number 1180591620717411303424 into Go struct field "
        "DeleteOptions.gracePeriodSeconds of type int64", id="grace-period-2**70"),
]


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize(("doc", "where", "message"), REFUSED)
def test_refused_at_once_with_upstreams_message(
    tmp_path: Path, command: str, doc: dict[str, Any], where: str, message: str
) -> None:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    started = time.monotonic()
    proc = run_kubesim(command, "s.yaml", *(["-o", "r.json"] if command == "run" else []), cwd=tmp_path, timeout=60)
    assert time.monotonic() - started < 20
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"error: s.yaml: {where}: {message}"


def test_a_node_quantity_beyond_int64_decodes_and_runs(tmp_path: Path) -> None:
    """cpu: 2**70 is a valid Quantity; the scheduler's int64 tables saturate instead of overflowing."""
    pod = _pod(resources=None)
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1000"}}
    doc = _scenario(_create(_node(status={"allocatable": {"cpu": 2**70, "memory": 2**70, "pods": "110"}})),
                    _create(pod))
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(doc))
    assert run_kubesim("validate", "s.yaml", cwd=tmp_path).returncode == 0
    proc = run_kubesim("run", "s.yaml", "-q", "-o", "r.json", cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pods = [e for events in (proc.result or {})["status"]["scenarioResult"]["timeline"].values() for e in events
            if "podScheduled" in json.dumps(e)]
    assert pods, "the pod was not scheduled onto the huge node"
