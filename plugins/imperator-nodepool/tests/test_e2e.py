"""The MachineNodePool controller through `kubesim run`, as the SimulationController under test."""

from __future__ import annotations

from pathlib import Path

from kubesim.testing import run_kubesim

SCENARIO = """
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: node-pool}
spec:
  controllers:
    simulationControllers:
      enabled: [{name: imperator-nodepool}]
  operations:
  - {id: a, step: 0, createOperation: {object: {apiVersion: v1, kind: Node, metadata: {name: a}}}}
  - {id: b, step: 0, createOperation: {object: {apiVersion: v1, kind: Node, metadata: {name: b}}}}
  - id: pool
    step: 0
    createOperation:
      object:
        apiVersion: imperator.tenzen-y.io/v1alpha1
        kind: MachineNodePool
        metadata: {name: g-node-pool}
        spec:
          machineGroupName: g
          machineTypeStock: [{name: t}]
          nodePool:
          - {name: a, mode: ready, taint: true, machineType: [{name: t}]}
          - {name: b, mode: maintenance, machineType: [{name: t}]}
  - id: down
    step: 1
    patchOperation:
      typeMeta: {apiVersion: v1, kind: Node}
      objectMeta: {name: a}
      patchType: application/json-patch+json
      patch: '[{"op":"add","path":"/spec/taints/-","value":{"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}}]'
  - id: gone
    step: 2
    deleteOperation:
      typeMeta: {apiVersion: imperator.tenzen-y.io/v1alpha1, kind: MachineNodePool}
      objectMeta: {name: g-node-pool}
  - {id: done, step: 3, doneOperation: {}}
"""


def test_node_pool_scenario(tmp_path: Path) -> None:
    (tmp_path / "scenario.yaml").write_text(SCENARIO)
    run = run_kubesim("run", "scenario.yaml", "-o", "result.json", "--export-cluster", "state.json",
                      cwd=tmp_path, plugins=("imperator-nodepool",), drop_env=("IMPERATOR_",))
    code, stderr, result, state = run.returncode, run.stderr, run.result, run.exported
    assert code == 0, stderr
    assert result["status"]["phase"] == "Succeeded", result["status"].get("message")
    timeline = result["status"]["scenarioResult"]["timeline"]
    health = {int(step): [c["condition"] for c in e["patch"]["result"]["status"]["nodePool"]]
              for step, events in timeline.items() for e in events
              if "patch" in e and e["patch"]["result"]["kind"] == "MachineNodePool"
              and "nodePool" in (e["patch"]["result"].get("status") or {})}
    assert health == {0: ["Healthy", "Maintenance"], 1: ["Unhealthy", "Maintenance"]}
    node_updates = [int(step) for step, events in timeline.items() for e in events
                    if "patch" in e and e["patch"]["result"]["kind"] == "Node" and e["actor"] == "imperator-nodepool"]
    assert sorted(set(node_updates)) == [0, 1, 2]  # labelled, relabelled not-ready, cleaned up
    nodes = {o["metadata"]["name"]: o for o in state if o["kind"] == "Node"}
    assert all("labels" not in n["metadata"] for n in nodes.values())
    assert [t["key"] for t in nodes["a"]["spec"]["taints"]] == ["node.kubernetes.io/unreachable"]
    assert not [o for o in state if o["kind"] == "MachineNodePool"]
