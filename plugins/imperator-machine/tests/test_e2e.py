"""The Machine plugin through `kubesim run`: reservation pods scheduled and running, a guest taking one's place."""

from __future__ import annotations

from pathlib import Path

from kubesim.testing import run_kubesim

SCENARIO = """
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: machine}
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
  - id: node
    step: 0
    createOperation:
      object:
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}, capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
  - id: machine
    step: 0
    createOperation:
      object:
        apiVersion: imperator.tenzen-y.io/v1alpha1
        kind: Machine
        metadata: {name: m, labels: {imperator.tenzen-y.io/machine-group: m}}
        spec:
          nodePool: [{name: n1, mode: ready, machineType: [{name: half}]}]
          machineTypes: [{name: half, spec: {cpu: 2000m, memory: 4Gi}, available: 2}]
  - id: guest
    step: 1
    createOperation:
      object:
        apiVersion: v1
        kind: Pod
        metadata:
          name: guest
          namespace: guests
          labels: {imperator.tenzen-y.io/machine-group: m, imperator.tenzen-y.io/machine-type: half,
                   imperator.tenzen-y.io/pod-role: guest}
        spec:
          containers: [{name: c, image: busybox, resources: {requests: {cpu: "2", memory: 4Gi}}}]
  - {id: done, step: 5, doneOperation: {}}
"""

PLUGINS = ("scheduler", "kubelet", "statefulset", "imperator-machine", "imperator-nodepool")


def test_machine_scenario(tmp_path: Path) -> None:
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    run = run_kubesim("run", "scenario.yaml", "-o", "result.json", "--export-cluster", "state.json",
                      cwd=tmp_path, plugins=PLUGINS, drop_env=("IMPERATOR_",))
    code, stderr, result, state = run.returncode, run.stderr, run.result, run.exported
    assert code == 0, stderr
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    usage: dict[int, dict[str, int]] = {}
    for step, events in result["status"]["scenarioResult"]["timeline"].items():
        for e in events:
            if "patch" in e and e["patch"]["result"]["kind"] == "Machine":
                for entry in e["patch"]["result"]["status"].get("availableMachines") or ():
                    usage[int(step)] = entry["usage"]
    # step 0: both reservations run; 1: the guest waits and one reservation goes (30 s grace);
    # 4: it is gone and the guest is bound
    assert usage[0] == {"maximum": 2, "reserved": 2, "used": 0, "waiting": 0}
    assert usage[1] == {"maximum": 2, "reserved": 1, "used": 0, "waiting": 1}
    assert usage[4] == {"maximum": 2, "reserved": 1, "used": 1, "waiting": 0}
    assert sorted(usage) == [0, 1, 4]
    guest = next(o for o in state if o["kind"] == "Pod" and o["metadata"]["name"] == "guest")
    assert guest["spec"]["nodeName"] == "n1" and guest["status"]["phase"] == "Running"
    sts = next(o for o in state if o["kind"] == "StatefulSet")
    assert (sts["metadata"]["name"], sts["spec"]["replicas"], sts["status"]["readyReplicas"]) == ("m-half", 1, 1)
