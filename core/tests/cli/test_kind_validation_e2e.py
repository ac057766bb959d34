"""End-to-end: objects the API server's per-kind validation refuses stop `validate` and `run` with
exit 2, the operation's field path and upstream's message, before anything runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun

RunKubesim = Callable[..., KubesimRun]

HEAD = """apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: hostile}
spec:
  controllers: {simulationControllers: {enabled: [{name: marker}]}}
  operations:
  - step: 0
    createOperation:
      object:
"""
AT = "hostile.yaml: spec.operations[0].createOperation.object: "
POD = "apiVersion: v1, kind: Pod, metadata: {name: p}"
CONTAINERS = "containers: [{name: c, image: i}]"
TEMPLATE = "template: {metadata: {labels: {app: w}}, spec: {" + CONTAINERS + "}}"


def _object(flow: str) -> str:
    return HEAD + "        {" + flow + "}\n"


CASES = {
    "deployment-replicas": (
        "apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: -1, "
        "selector: {matchLabels: {app: w}}, " + TEMPLATE + "}",
        'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    "node-memory": (
        "apiVersion: v1, kind: Node, metadata: {name: n1}, status: {capacity: {memory: -5Gi}}",
        'Node "n1" is invalid: status.capacity.memory: Invalid value: "-5Gi": must be greater than or equal to 0'),
    "taint-effect": (
        "apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taints: [{key: k, effect: Sometimes}]}",
        'Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: '
        '"NoSchedule", "PreferNoSchedule", "NoExecute"'),
    "toleration-operator": (
        POD + ", spec: {" + CONTAINERS + ", tolerations: [{key: k, operator: Equals, value: v}]}",
        'Pod "p" is invalid: spec.tolerations[0].operator: Unsupported value: "Equals": supported values: '
        '"Equal", "Exists"'),
    "max-skew": (
        POD + ", spec: {" + CONTAINERS + ", topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, "
        "whenUnsatisfiable: DoNotSchedule}]}",
        'Pod "p" is invalid: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero'),
    "affinity-weight": (
        POD + ", spec: {" + CONTAINERS + ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
        "[{weight: 0, preference: {matchExpressions: [{key: k, operator: Exists}]}}]}}}",
        'Pod "p" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: '
        "Invalid value: 0: must be in the range 1-100"),
    "priority-class-name": (
        POD + ", spec: {" + CONTAINERS + ", priorityClassName: Not_A_Name}",
        'Pod "p" is invalid: spec.priorityClassName: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain'),
    "priority-class-value": (
        "apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: top}, value: 2000000000",
        'PriorityClass.scheduling.k8s.io "top" is invalid: value: Forbidden: maximum allowed value of a user '
        "defined priority is 1000000000"),
    "pdb-both": (
        "apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: b}, spec: {minAvailable: 1, "
        "maxUnavailable: 1}",
        'PodDisruptionBudget.policy "b" is invalid: spec: Invalid value: {"minAvailable":1,"maxUnavailable":1}: '
        "minAvailable and maxUnavailable cannot be both set"),
    "job-restart-policy": (
        "apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {parallelism: -1, " + TEMPLATE + "}",
        'Job.batch "j" is invalid: [spec.parallelism: Invalid value: -1: must be greater than or equal to 0, '
        'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"]'),
    "job-own-selector": (
        "apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {selector: {matchLabels: {app: w}}, "
        "template: {metadata: {labels: {app: w}}, spec: {restartPolicy: Never, " + CONTAINERS + "}}}",
        'Job.batch "j" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"w",'
        '"batch.kubernetes.io/controller-uid":"00000000-0000-0000-0000-000000000000"}}: `selector` not auto-generated'),
    "daemonset-selector": (
        "apiVersion: apps/v1, kind: DaemonSet, metadata: {name: d}, spec: {selector: {matchLabels: {app: x}}, "
        + TEMPLATE + "}",
        'DaemonSet.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"w"}: `selector` does '
        "not match template `labels`"),
}


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_invalid_object(kubesim: RunKubesim, tmp_path: Path, case: str, command: str) -> None:
    flow, expected = CASES[case]
    (tmp_path / "hostile.yaml").write_text(_object(flow))
    args = ("-o", "out.json") if command == "run" else ()
    proc = kubesim(command, "hostile.yaml", *args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {AT}{expected}"), proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_valid_objects_of_each_kind_pass(kubesim: RunKubesim, tmp_path: Path) -> None:
    objects = [
        "apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 0, "
        "selector: {matchLabels: {app: w}}, " + TEMPLATE + "}",
        "apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taints: [{key: k, effect: NoSchedule}]}, "
        "status: {capacity: {memory: 5Gi}}",
        "apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: b}, spec: {minAvailable: 50%}",
        "apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: top}, value: 1000000000",
    ]
    text = HEAD.rsplit("  - step: 0\n", 1)[0] + "".join(
        f"  - step: 0\n    createOperation:\n      object: {{{o}}}\n" for o in objects)
    (tmp_path / "ok.yaml").write_text(text)
    proc = kubesim("validate", "ok.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hostile: valid (4 operations)\n"
