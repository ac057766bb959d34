"""The runtime: everything a plugin sees of a running scenario, one object per scenario.

In the spirit of controller-runtime's Manager and datasette's `datasette` argument: controllers
and admission hooks get a `Runtime` instead of the engine's parts. It offers a read-only
cluster reader, `client(actor)` for writes, the simulated clock, the seed, a recorder for
timeline events, the scenario's step status, the capabilities the scenario's controllers
declared, plugin options, and the plugin contributions a controller builds on (scheduler
plugins and extenders). The engine builds one per scenario; `Runtime.standalone()` builds one
without an engine (tests, and hosts such as `kubesim serve` that drive the cluster from outside).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import json_merge_patch

from kubesim.api import (
    ObjectMeta,
    PatchOperation,
    PatchOperationResult,
    PodMigration,
    PodResult,
    ScenarioStep,
    TypeMeta,
)
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.controllers.client import Client
from kubesim.feature_gates import FeatureGates

if TYPE_CHECKING:
    from kubesim.api import StepPhase
    from kubesim.cluster import Cluster, FieldSelector, LabelSelector, WatchEvent
    from kubesim.plugins import Hooks
    from kubesim.scenario.recorder import TimelineRecorder

__all__ = [
    "GRACEFUL_POD_DELETION",
    "Capabilities",
    "ClusterReader",
    "Recorder",
    "Runtime",
    "StepGate",
]

GRACEFUL_POD_DELETION = "graceful-pod-deletion"
"""A capability: bound pods are deleted gracefully and something (a kubelet) finishes them."""

_KNOWN_CAPABILITIES = frozenset({GRACEFUL_POD_DELETION})


class StepGate(Protocol):
    """Read access to the running scenario's step status (for CheckScenarioStepPhase)."""

    @property
    def step(self) -> ScenarioStep: ...

    @property
    def phase(self) -> StepPhase | None: ...

    @property
    def running_simulation_controller(self) -> str: ...


@attrs.define
class _StandaloneGate:
    """The step status of a runtime that no engine drives: step 0, no phase."""

    step: ScenarioStep = attrs.field(factory=lambda: ScenarioStep(0, 0))
    phase: StepPhase | None = None
    running_simulation_controller: str = ""


@attrs.frozen
class Capabilities:
    """What the scenario's cluster does because a controller declared it (`Controller.provides`)."""

    graceful_pod_deletion: bool = False
    """Deleting a pod bound to a node only marks it until a delete with grace period 0 (a kubelet)."""

    @classmethod
    def of(cls, declared: Iterable[str]) -> Capabilities:
        """Capabilities from declared names; an unknown name is a ValueError naming it."""
        names = set(declared)
        unknown = sorted(names - _KNOWN_CAPABILITIES)
        if unknown:
            raise ValueError(f"unknown capability {unknown[0]!r} (known: {', '.join(sorted(_KNOWN_CAPABILITIES))})")
        return cls(graceful_pod_deletion=GRACEFUL_POD_DELETION in names)


class ClusterReader:
    """Read-only access to the cluster: get, list and watch. Writes go through `Runtime.client`."""

    __slots__ = ("_cluster",)

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None, *, copy: bool = True
    ) -> dict[str, Any]:
        """A copy of one object; NotFound when it does not exist.

        copy=False returns the stored object (no copy: a controller that only reads, or copies
        only what it writes, saves a deep copy per read); read it, never mutate it.
        """
        return self._cluster.get(api_version, kind, name, namespace, copy=copy)

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | Mapping[str, Any] | LabelSelector | None = None,
        field_selector: str | FieldSelector | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """The stored objects of a kind sorted by (namespace, name); read-only, never mutate them."""
        return self._cluster.list(
            api_version, kind, namespace, label_selector=label_selector, field_selector=field_selector
        )

    def watch(
        self, handler: Callable[[WatchEvent], None], *, kinds: Iterable[str] | None = None
    ) -> Callable[[], None]:
        """Deliver every committed change to `handler`; returns the function that stops it.

        `kinds` (e.g. {"Pod", "Node"}) delivers only changes of objects of those kinds: a
        controller that declares what it watches costs nothing on every other write.
        """
        return self._cluster.watch(handler, kinds=kinds)

    def namespaced(self, api_version: str, kind: str) -> bool:
        """Whether a kind is namespaced; NotFound for a kind the cluster does not serve."""
        return self._cluster.registry.lookup(api_version, kind).namespaced


class Recorder:
    """Timeline events a plugin adds: scheduling results, and status writes worth seeing.

    The engine records every create, update and delete on its own; status-subresource writes
    are left out unless a plugin records them here.
    """

    __slots__ = ("_timeline",)

    def __init__(self, timeline: TimelineRecorder) -> None:
        self._timeline = timeline

    @property
    def step(self) -> ScenarioStep:
        """The scenario's current step."""
        return self._timeline.step

    def pod_created_at(self, pod: Mapping[str, Any]) -> ScenarioStep:
        """The step at which a pod was created (the current step when unknown)."""
        return self._timeline.pod_created_at(pod)

    def record_pod(self, kind: str, result: PodResult, *, actor: str) -> None:
        """Record a "podScheduled", "podUnscheduled" or "podPreempted" event."""
        self._timeline.record_pod(kind, result, actor=actor)

    def record_migration(self, migration: PodMigration, *, actor: str) -> None:
        """Record a "podMigrated" event (a migration plugin moved a pod to another node)."""
        self._timeline.record_migration(migration, actor=actor)

    def record_status(self, actor: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        """Record a status write `before` -> `after` as a merge patch of the status by `actor`."""
        patch = json_merge_patch.create_patch(
            {"status": before.get("status") or {}}, {"status": after.get("status") or {}}
        )
        meta = after.get("metadata") or {}
        op = PatchOperation(
            TypeMeta(after.get("apiVersion", ""), after.get("kind", "")),
            ObjectMeta(meta.get("name", ""), meta.get("namespace"), meta.get("uid")),
            patch=json.dumps(patch, separators=(",", ":"), sort_keys=True),
            patch_type="application/merge-patch+json",
        )
        self._timeline.record(actor=actor, patch=PatchOperationResult(op, dict(after)))


class Runtime:
    """One scenario's runtime: all a controller or admission hook sees of the engine."""

    def __init__(
        self,
        cluster: Cluster,
        clock: Clock,
        timeline: TimelineRecorder,
        hooks: Hooks | None,
        step_status: StepGate,
        *,
        seed: int = 0,
        options: Mapping[str, Any] | None = None,
        capabilities: Capabilities | None = None,
        simulated_time: bool = False,
    ) -> None:
        self._cluster = cluster
        self._hooks = hooks
        self.reader = ClusterReader(cluster)
        self.clock = clock
        self.seed = seed
        self.recorder = Recorder(timeline)
        self.step_status = step_status
        self.options: Mapping[str, Any] = dict(options or {})
        self._feature_gates: FeatureGates | None = None
        self.capabilities = capabilities or Capabilities()
        self.simulated_time = simulated_time
        """Whether the scenario runs in simulated time (kubesim.simtime): a tick per step, metrics
        built from simSpec. The kubelet then writes no kubesim.io/usage annotation at each phase."""
        cluster.graceful_pod_deletion = self.capabilities.graceful_pod_deletion

    @classmethod
    def standalone(
        cls,
        *,
        seed: int = 0,
        start_time: datetime = DEFAULT_EPOCH,
        options: Mapping[str, Any] | None = None,
        capabilities: Capabilities | None = None,
        hooks: Hooks | None = None,
    ) -> Runtime:
        """A runtime over a fresh cluster with no engine (tests; hosts that drive it from outside)."""
        from kubesim.cluster import Cluster
        from kubesim.scenario.recorder import TimelineRecorder

        clock = Clock(start_time)
        gate = _StandaloneGate()
        runtime = cls(Cluster(clock, seed=seed), clock, TimelineRecorder(lambda: gate.step), hooks, gate,
                      seed=seed, options=options, capabilities=capabilities)
        runtime.install_extensions()
        return runtime

    @property
    def feature_gates(self) -> FeatureGates:
        """The feature gates in force (`--feature-gates`, else kube-scheduler v1.34's defaults):
        `runtime.feature_gates.enabled("DynamicResourceAllocation")`."""
        if self._feature_gates is None:
            self._feature_gates = FeatureGates(self.options.get("feature_gates") or None)
        return self._feature_gates

    def install_extensions(self) -> None:
        """Register the plugins' CRDs and admission hooks (which get this runtime) on the cluster."""
        if self._hooks is None:
            return
        for crd in self._hooks.custom_resources():
            self._cluster.registry.register_crd(dict(crd))
        for admit in self._hooks.admitters(self):
            self._cluster.add_admitter(admit, phase="mutating")
            self._cluster.add_admitter(admit, phase="validating")

    def client(self, actor: str) -> Client:
        """A client whose writes are attributed to `actor` (a controller's name)."""
        return Client(self._cluster, actor)

    def scheduler_plugins(self) -> dict[str, type]:
        """Scheduler framework plugin classes by name, from every installed plugin."""
        return self._hooks.scheduler_plugins() if self._hooks is not None else {}

    def scheduler_extenders(self) -> list[Any]:
        """In-process scheduler extenders, from every installed plugin."""
        return self._hooks.scheduler_extenders() if self._hooks is not None else []
