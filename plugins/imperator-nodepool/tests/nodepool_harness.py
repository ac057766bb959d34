"""An in-process world for the imperator plugins' tests: a cluster with the imperator CRDs and
admission, a clock, a timeline, and the controllers under test.

`Sim.settle()` runs the controllers round-robin until none has work, as the scenario engine
does between operations, and then checks that every waiter holds; `Sim.advance(seconds)`
moves simulated time on first, as a new MajorStep does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

import attrs
from kubesim import ControllerContext, ScenarioStep
from kubesim.api import StepPhase
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Admitter, Cluster
from kubesim.controllers import Controller
from kubesim.plugins import load_plugins
from kubesim.scenario.recorder import TimelineRecorder
from kubesim_imperator_nodepool import MACHINE_NODE_POOL_CRD, admit_machine_node_pool


@attrs.define
class Gate:
    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


class Sim:
    """Controllers under test on a fresh cluster; writes made by the test are the scenario's."""

    def __init__(
        self,
        *factories: Callable[[ControllerContext], Controller],
        crds: Iterable[dict[str, Any]] = (),
        admitters: Iterable[Admitter] = (),
    ) -> None:
        self.clock = Clock(DEFAULT_EPOCH)
        self.cluster = Cluster(self.clock)
        self.gate = Gate()
        self.timeline = TimelineRecorder(lambda: self.gate.step)
        self.cluster.watch(self.timeline.observe)
        for crd in (MACHINE_NODE_POOL_CRD, *crds):
            self.cluster.registry.register_crd(crd)
        for admit in (admit_machine_node_pool, *admitters):
            self.cluster.add_admitter(admit, phase="mutating")
            self.cluster.add_admitter(admit, phase="validating")
        hooks = load_plugins(entry_points=False)
        self.controllers: list[Controller] = []
        for factory in factories:
            ctx = ControllerContext(name=factory.name, cluster=self.cluster, clock=self.clock,
                                    timeline=self.timeline, hooks=hooks, gate=self.gate, options={})
            self.controllers.append(factory(ctx))

    def close(self) -> None:
        for c in self.controllers:
            c.close()

    def settle(self, limit: int = 100_000) -> int:
        """Run until no controller has work; every waiter must hold then. Returns the loops run."""
        loops = 0
        while True:
            progress = False
            for c in self.controllers:
                if c.run_once():
                    progress = True
                    loops += 1
            if loops > limit:
                raise AssertionError(f"controllers did not settle within {limit} loops")
            if not progress:
                break
        for c in self.controllers:
            assert c.waiter().satisfied(), f"{c.name} is not settled: {getattr(c, 'last_blocker', '')}"
        return loops

    def advance(self, seconds: float = 10) -> None:
        """The next MajorStep: move the clock on, then settle."""
        self.clock.advance(timedelta(seconds=seconds))
        self.gate.step = ScenarioStep(self.gate.step.major + 1, 0)
        self.settle()

    # --- objects -----------------------------------------------------------------------

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.cluster.create(obj)

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        return self.cluster.get(api_version, kind, name, namespace)

    def node(self, name: str) -> dict[str, Any]:
        return self.cluster.get("v1", "Node", name)

    def exists(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> bool:
        return any(o["metadata"]["name"] == name for o in self.cluster.list(api_version, kind, namespace))


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

