"""The injector through `kubesim run`: guest pods injected, scheduled where their machine type is, refused when none is left."""

from __future__ import annotations

from pathlib import Path

from kubesim.testing import run_kubesim

GUEST = """
  - id: {name}
    step: {step}
    createOperation:
      object:
        apiVersion: v1
        kind: Pod
        metadata:
          name: {name}
          namespace: guests
          labels: {{imperator.tenzen-y.io/machine-group: m, imperator.tenzen-y.io/machine-type: gpu,
                   imperator.tenzen-y.io/pod-role: guest}}
        spec:
          containers: [{{name: c, image: cuda}}]
"""

SCENARIO = """
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: injector}
spec:
  controllers:
    simulationControllers:
      enabled: [{name: scheduler}]
  operations:
  - {id: ns, step: 0, createOperation: {object: {apiVersion: v1, kind: Namespace, metadata: {name: imperator-system}}}}
  - id: guests
    step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: Namespace
        metadata: {name: guests, labels: {imperator.tenzen.io/inject-resource: enabled}}
  - id: gpu-node
    step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: Node
        metadata: {name: gpu-node, labels: {nvidia.com/gpu.machine: DGX-1}}
        status:
          allocatable: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "1", pods: "110"}
          capacity: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "1", pods: "110"}
  - id: cpu-node
    step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: Node
        metadata: {name: cpu-node}
        status: {allocatable: {cpu: "64", memory: 256Gi, pods: "110"}, capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
  - id: machine
    step: 0
    createOperation:
      object:
        apiVersion: imperator.tenzen-y.io/v1alpha1
        kind: Machine
        metadata: {name: m, labels: {imperator.tenzen-y.io/machine-group: m}}
        spec:
          nodePool: [{name: gpu-node, mode: ready, taint: true, machineType: [{name: gpu}]}]
          machineTypes:
          - {name: gpu, available: 1,
             spec: {cpu: "4", memory: 16Gi, gpu: {type: nvidia.com/gpu, num: 1, machine: DGX-1}}}
""" + GUEST.format(name="first", step=1) + """
  - id: second
    step: 5
    createOperation:
      object:
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata: {name: second, namespace: guests}
        spec:
          replicas: 1
          selector: {matchLabels: {app: second}}
          template:
            metadata:
              labels: {app: second, imperator.tenzen-y.io/machine-group: m, imperator.tenzen-y.io/machine-type: gpu,
                       imperator.tenzen-y.io/pod-role: guest}
            spec:
              containers: [{name: c, image: cuda}]
  - {id: done, step: 6, doneOperation: {}}
"""

PLUGINS = ("scheduler", "kubelet", "statefulset", "replicaset", "imperator-machine", "imperator-nodepool",
           "pod-injector")


def test_injector_scenario(tmp_path: Path) -> None:
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    run = run_kubesim("run", "scenario.yaml", "-o", "result.json", "--export-cluster", "state.json",
                      cwd=tmp_path, plugins=PLUGINS, drop_env=("IMPERATOR_",))
    code, stderr, result, state = run.returncode, run.stderr, run.result, run.exported
    assert code == 0, stderr
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    first = next(o for o in state if o["kind"] == "Pod" and o["metadata"]["name"] == "first")
    assert first["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "4", "memory": "16Gi",
                                                                      "nvidia.com/gpu": "1"}
    assert first["spec"]["nodeName"] == "gpu-node"  # not the big cpu-node: the affinity says gpu-node
    bound = [int(step) for step, events in result["status"]["scenarioResult"]["timeline"].items() for e in events
             if "podScheduled" in e and e["podScheduled"]["pod"]["metadata"]["name"] == "first"]
    assert bound == [4]  # the reservation pod's 30 s grace period after step 1
    rs = next(o for o in state if o["kind"] == "ReplicaSet")
    failure = next(c for c in rs["status"]["conditions"] if c["type"] == "ReplicaFailure")
    assert failure["message"] == ('admission webhook "mutator.pod.imperator.tenzen-y.io" denied the request: '
                                  "name: <>, namespace: <guests>; there is no <gpu> left")
