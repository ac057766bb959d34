"""A small in-process world for controller tests: a cluster, a clock and PreSimulationControllers.

`Sim.settle()` runs the controllers round-robin until none has work, as the scenario engine
does, and then checks that every waiter holds; `Sim.advance(seconds)` moves simulated time
on first, as a new MajorStep does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
from kubesim import Capabilities, Runtime, ScenarioStep
from kubesim.api import StepPhase
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Cluster
from kubesim.controllers import Controller
from kubesim.plugins import load_plugins
from kubesim.scenario.recorder import TimelineRecorder


@attrs.define
class Gate:
    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


class Sim:
    """Controllers under test on a fresh cluster; writes by the test are the scenario's."""

    def __init__(self, *factories: Callable[[Runtime], Controller], seed: int = 0) -> None:
        self.clock = Clock(DEFAULT_EPOCH)
        self.cluster = Cluster(self.clock, seed=seed)
        self.gate = Gate()
        self.timeline = TimelineRecorder(lambda: self.gate.step)
        self.cluster.watch(self.timeline.observe)
        self.runtime = Runtime(
            self.cluster, self.clock, self.timeline, load_plugins(entry_points=False), self.gate, seed=seed,
            capabilities=Capabilities.of(c for f in factories for c in getattr(f, "provides", ())),
        )
        self.controllers: list[Controller] = []
        for factory in factories:
            name = factory.name
            self.controllers.append(factory(self.runtime))

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
            assert c.waiter().satisfied(), f"{c.name}: nothing to do but its waiter is not satisfied"
        return loops

    def advance(self, seconds: float) -> None:
        """Start a new MajorStep `seconds` later and settle."""
        self.clock.advance(timedelta(seconds=seconds))
        self.gate.step = ScenarioStep(self.gate.step.major + 1, 0)
        self.settle()

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.cluster.create(obj, actor="scenario")

    def get(self, kind: str, name: str, namespace: str | None = "default") -> dict[str, Any]:
        api_version = {"Pod": "v1", "Node": "v1", "PersistentVolumeClaim": "v1"}.get(kind, "apps/v1")
        return self.cluster.get(api_version, kind, name, namespace if kind not in ("Node",) else None)

    def exists(self, kind: str, name: str, namespace: str | None = "default") -> bool:
        from kubesim.errors import NotFound

        try:
            self.get(kind, name, namespace)
        except NotFound:
            return False
        return True

    def close(self) -> None:
        for c in self.controllers:
            c.close()

    def events(self) -> list[tuple[int, str, str, str, str]]:
        """(major step, actor, verb, kind, name) of every recorded timeline event."""
        out = []
        for major, events in sorted(self.timeline.timeline.items(), key=lambda kv: int(kv[0])):
            for e in events:
                for verb in ("create", "patch", "delete"):
                    result = getattr(e, verb)
                    if result is None:
                        continue
                    op = result.operation
                    if verb == "create":
                        obj = result.result
                        kind, name = obj["kind"], obj["metadata"]["name"]
                    else:
                        kind, name = op.type_meta.kind, op.object_meta.name
                    out.append((int(major), str(e.actor), verb, kind, name))
        return out


def node(name: str, *, ready: str | None = None, cpu: str = "4", ip: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                              "capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    if ip is not None:
        status["addresses"] = [{"type": "InternalIP", "address": ip}]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": status}


def pod(name: str, node_name: str | None = None, *, sim_spec: str | None = None, grace: int | None = None,
        **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if sim_spec is not None:
        meta["annotations"] = {"simSpec": sim_spec}
    body: dict[str, Any] = {"containers": [{"name": "main", "image": "nginx:1.27"}], **spec}
    if node_name is not None:
        body["nodeName"] = node_name
    if grace is not None:
        body["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """type -> (status, reason) of an object's conditions."""
    return {c["type"]: (c["status"], c.get("reason")) for c in (obj.get("status") or {}).get("conditions") or ()}
