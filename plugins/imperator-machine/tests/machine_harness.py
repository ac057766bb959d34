"""The Machine plugin's world: kubesim.testing's SimEnv with the imperator CRDs and the API
server's admission for them and for StatefulSets. The test plays whatever is not running (the
scheduler, the kubelet) by hand."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubesim import testing
from kubesim.cluster import Admitter
from kubesim.controllers import ControllerFactory
from kubesim.testing import SimEnv
from kubesim_imperator_machine import MACHINE_CRD, admit_machine
from kubesim_imperator_nodepool import API_VERSION, MACHINE_NODE_POOL_CRD


class Sim(SimEnv):
    """Controllers under test on a fresh cluster; writes made by the test are the scenario's."""

    def __init__(self, *factories: ControllerFactory, admitters: Iterable[Admitter] = ()) -> None:
        super().__init__(factories, crds=(MACHINE_CRD, MACHINE_NODE_POOL_CRD),
                         admitters=(admit_machine, *admitters))

    def machine(self, name: str) -> dict[str, Any]:
        return self.cluster.get(API_VERSION, "Machine", name)

    def usage(self, machine: str, machine_type: str) -> dict[str, int]:
        """checkMachineAvailableStatus: one machine type's status.availableMachines usage."""
        for entry in (self.machine(machine).get("status") or {}).get("availableMachines") or ():
            if entry["name"] == machine_type:
                return dict(entry["usage"])
        return {}

    def names(self, api_version: str, kind: str, namespace: str | None = None) -> list[str]:
        return [o["metadata"]["name"] for o in self.cluster.list(api_version, kind, namespace)]

    # --- playing the scheduler and the kubelet ----------------------------------------

    def set_pod_status(self, namespace: str, name: str, state: str) -> None:
        """updatePodContainerStatus: "running", "creating" or "pending" (unschedulable)."""
        pod = self.cluster.get("v1", "Pod", name, namespace)
        now = self.clock.timestamp()
        if state == "running":
            pod["status"]["phase"] = "Running"
            pod["status"]["conditions"] = [{"type": "ContainersReady", "status": "True", "lastTransitionTime": now}]
        elif state == "creating":
            pod["status"]["phase"] = "Pending"
            pod["status"]["conditions"] = [{"type": "ContainersReady", "status": "False", "lastTransitionTime": now}]
        elif state == "pending":
            pod["status"]["phase"] = "Pending"
            pod["status"]["conditions"] = [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": now},
                {"type": "ContainersReady", "status": "False", "lastTransitionTime": now},
            ]
        else:
            raise ValueError(state)
        self.cluster.update(pod, actor="kubelet", subresource="status")


def namespace(name: str, inject: bool = False) -> dict[str, Any]:
    """A namespace, labelled for the pod injector when `inject`."""
    return testing.namespace(name, labels={"imperator.tenzen.io/inject-resource": "enabled"} if inject else None)


def node(name: str, **status: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                           "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    obj["status"].update(status)
    return obj


def machine(name: str, node_pool: list[dict[str, Any]], machine_types: list[dict[str, Any]],
            group: str | None = None) -> dict[str, Any]:
    labels = {} if group == "" else {"imperator.tenzen-y.io/machine-group": group or name}
    return {"apiVersion": API_VERSION, "kind": "Machine", "metadata": {"name": name, "labels": labels},
            "spec": {"nodePool": node_pool, "machineTypes": machine_types}}

