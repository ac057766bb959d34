"""An in-process world for controller tests: cluster, clock, the two controllers, and a stand-in
for the scheduler and the kubelet.

`World.settle()` runs the controllers round-robin until none has work and then checks that
every waiter holds, as the scenario engine does after each step. `World.bind_and_ready()`
plays scheduler and kubelet for pods the test wants running.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

import attrs
from kubesim import Capabilities, Runtime, ScenarioStep
from kubesim.api import StepPhase
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import AdmissionRequest, AdmissionResponse, Cluster, copy_tree
from kubesim.controllers import Controller
from kubesim.plugins import load_plugins
from kubesim.scenario.recorder import TimelineRecorder
from kubesim_replicaset.admission import admit
from kubesim_replicaset.deployment import DeploymentController
from kubesim_replicaset.replicaset import ReplicaSetController


@attrs.define
class Gate:
    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


class World:
    """A fresh cluster with the controllers under test; the test's own writes are the scenario's."""

    def __init__(self, *factories: Callable[[Runtime], Controller],
                 admitters: Iterable[Callable[[AdmissionRequest], AdmissionResponse | None]] = (),
                 seed: int = 0) -> None:
        self.clock = Clock(DEFAULT_EPOCH)
        self.cluster = Cluster(self.clock, seed=seed)
        for a in (admit, *admitters):
            self.cluster.add_admitter(a, phase="mutating")
            self.cluster.add_admitter(a, phase="validating")
        self.gate = Gate()
        self.timeline = TimelineRecorder(lambda: self.gate.step)
        self.writes: list[tuple[str, str, str, str]] = []
        self.cluster.watch(self.timeline.observe)
        self.cluster.watch(self._count)
        self.runtime = Runtime(
            self.cluster, self.clock, self.timeline, load_plugins(entry_points=False), self.gate, seed=seed,
            capabilities=Capabilities.of(c for f in (factories or (DeploymentController, ReplicaSetController)) for c in getattr(f, "provides", ())),
        )
        self.controllers: list[Controller] = []
        for factory in factories or (DeploymentController, ReplicaSetController):
            self.controllers.append(factory(self.runtime))

    def _count(self, event: Any) -> None:
        meta = event.object.get("metadata") or {}
        self.writes.append((event.actor, event.type if event.subresource is None else f"{event.type}/{event.subresource}",
                            event.object.get("kind"), meta.get("name", "")))

    def writes_by(self, actor: str, kind: str | None = None) -> list[tuple[str, str, str, str]]:
        return [w for w in self.writes if w[0] == actor and (kind is None or w[2] == kind)]

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

    # --- objects -----------------------------------------------------------------------

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        return self.cluster.create(obj, actor="scenario")

    def patch(self, kind: str, name: str, patch: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
        api = "v1" if kind == "Pod" else "apps/v1"
        return self.cluster.patch(api, kind, name, patch, "application/merge-patch+json", namespace=namespace,
                                  actor="scenario")

    def get(self, kind: str, name: str, namespace: str = "default") -> dict[str, Any]:
        return self.cluster.get("v1" if kind == "Pod" else "apps/v1", kind, name, namespace)

    def pods(self, namespace: str = "default", *, label: str | None = None) -> list[dict[str, Any]]:
        return [p for p in self.cluster.list("v1", "Pod", namespace, label_selector=label)]

    def replicasets(self, namespace: str = "default") -> list[dict[str, Any]]:
        return list(self.cluster.list("apps/v1", "ReplicaSet", namespace))

    def bind_and_ready(self, pods: Iterable[dict[str, Any]] | None = None, node: str = "node-1") -> int:
        """Bind the given (default: every unbound, not deleted) pods to `node` and mark them Ready."""
        todo = [p for p in (self.pods() if pods is None else pods)
                if not (p.get("spec") or {}).get("nodeName") and not p["metadata"].get("deletionTimestamp")]
        for p in todo:
            self.cluster.bind(p["metadata"]["namespace"], p["metadata"]["name"], node, actor="scheduler")
            self.set_ready(p["metadata"]["name"])
        return len(todo)

    def set_ready(self, name: str, ready: bool = True, namespace: str = "default") -> None:
        pod = copy_tree(self.get("Pod", name, namespace))
        status = pod.setdefault("status", {})
        status["phase"] = "Running"
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        conditions.append({"type": "Ready", "status": "True" if ready else "False",
                           "lastTransitionTime": self.clock.timestamp()})
        status["conditions"] = conditions
        self.cluster.update(pod, actor="kubelet", subresource="status")


def rs_object(name: str, replicas: int, labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    """An apps/v1 ReplicaSet selecting `labels` with a one-container template."""
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": "foo/bar"}]},
            },
            **spec,
        },
    }


def deployment_object(name: str, replicas: int, labels: dict[str, str], image: str = "foo/bar:1",
                      **spec: Any) -> dict[str, Any]:
    """An apps/v1 Deployment selecting `labels`."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
            **spec,
        },
    }


def pod_object(name: str, labels: dict[str, str], owner: dict[str, Any] | None = None,
               controller: bool = True) -> dict[str, Any]:
    """A bare pod, optionally owned by `owner` (as its controller unless told otherwise)."""
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": dict(labels)}
    if owner is not None:
        meta["ownerReferences"] = [{
            "apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
            "uid": owner["metadata"]["uid"], "controller": controller,
        }]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "foo/bar"}]}}
