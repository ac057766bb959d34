"""The imperator plugins' world: kubesim.testing's SimEnv with the MachineNodePool CRD and
admission (plus any the test adds), and node accessors for upstream's checks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubesim.cluster import Admitter
from kubesim.controllers import ControllerFactory
from kubesim.testing import SimEnv
from kubesim_imperator_nodepool import MACHINE_NODE_POOL_CRD


class Sim(SimEnv):
    """Controllers under test on a fresh cluster; writes made by the test are the scenario's."""

    def __init__(self, *factories: ControllerFactory, crds: Iterable[dict[str, Any]] = (),
                 admitters: Iterable[Admitter] = ()) -> None:
        super().__init__(factories, crds=(MACHINE_NODE_POOL_CRD, *crds),
                         admitters=admitters)

    def node(self, name: str) -> dict[str, Any]:
        return self.get("v1", "Node", name)


def new_node(name: str, **status: Any) -> dict[str, Any]:
    """A node as upstream's tests create it: a Ready condition and nothing else (newFakeNode)."""
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    node["status"].update(status)
    return node


def labels(obj: dict[str, Any]) -> dict[str, str]:
    return dict(obj["metadata"].get("labels") or {})


def annotations(obj: dict[str, Any]) -> dict[str, str]:
    return dict(obj["metadata"].get("annotations") or {})


def taints(node: dict[str, Any]) -> list[dict[str, Any]]:
    return list((node.get("spec") or {}).get("taints") or [])

