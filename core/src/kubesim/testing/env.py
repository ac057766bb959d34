"""A scenario's world without the scenario engine: a cluster, its Runtime (clock, seed,
recorder, capabilities) and the controllers under test, stepped and settled by the test the
way the engine does it.

    with SimEnv(controllers=[ReplicaSetController], objects=[replicaset("web", 3)]) as env:
        env.settle()
        assert len(env.list("v1", "Pod", "default")) == 3

The test plays whatever does not run (a scheduler, a kubelet) with `env.client(actor)`.
"""

from __future__ import annotations

import builtins
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from types import ModuleType, TracebackType
from typing import Any

from kubesim.api import ScenarioStep, ScenarioStepStatus
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.cluster import Admitter, Cluster
from kubesim.controllers import (
    Capabilities,
    Client,
    Controller,
    ControllerFactory,
    LoopGuard,
    NotSettled,
    Runtime,
    SettleLimits,
    settle,
)
from kubesim.errors import AlreadyExists, NotFound
from kubesim.plugins import Hooks, load_plugins
from kubesim.scenario.recorder import TimelineRecorder

__all__ = ["SettleError", "SimEnv"]


class SettleError(NotSettled, AssertionError):
    """The controllers did not settle (the engine's NotSettled): pytest reports it as a failed check."""


class SimEnv:
    """The controllers under test on a fresh cluster; the test's own writes are the scenario's.

    `plugins` are hook modules whose CRDs and admission the runtime installs as the engine
    does; `crds` and `admitters` add single ones. Controllers get `env.runtime`.
    """

    def __init__(
        self,
        controllers: Iterable[ControllerFactory] = (),
        objects: Iterable[Mapping[str, Any]] = (),
        *,
        seed: int = 0,
        plugins: Iterable[ModuleType] = (),
        crds: Iterable[Mapping[str, Any]] = (),
        admitters: Iterable[Callable[..., Any]] = (),
        options: Mapping[str, Any] | None = None,
        start_time: datetime = DEFAULT_EPOCH,
        step_duration: timedelta = timedelta(seconds=10),
        limits: SettleLimits = SettleLimits(),
        hooks: Hooks | None = None,
    ) -> None:
        factories = list(controllers)
        self.step_duration = step_duration
        self.limits = limits
        self.clock = Clock(start_time)
        self.cluster = Cluster(self.clock, seed=seed)
        self.step_status = ScenarioStepStatus()
        self.timeline = TimelineRecorder(lambda: self.step_status.step)
        self.cluster.watch(self.timeline.observe)
        self._writes = 0  # every committed write: the settle loop's measure of progress
        self.cluster.watch(self._count_write)
        self.hooks = hooks if hooks is not None else load_plugins(entry_points=False, extra=plugins)
        self.runtime = Runtime(
            self.cluster,
            self.clock,
            self.timeline,
            self.hooks,
            self.step_status,
            seed=seed,
            options=options,
            capabilities=Capabilities.of(c for f in factories for c in getattr(f, "provides", ())),
        )
        self.runtime.install_extensions()
        for crd in crds:
            self.cluster.registry.register_crd(dict(crd))
        for admit in admitters:
            bound = self._bind(admit)
            self.cluster.add_admitter(bound, phase="mutating")
            self.cluster.add_admitter(bound, phase="validating")
        self.controllers: list[Controller] = [factory(self.runtime) for factory in factories]
        for obj in objects:
            self.create(obj)

    def _bind(self, admit: Callable[..., Any]) -> Admitter:
        """An admission function; one that takes a `runtime` argument gets this env's, as hooks do."""
        if "runtime" in inspect.signature(admit).parameters:
            return functools.partial(admit, runtime=self.runtime)
        return admit

    def _count_write(self, event: object) -> None:
        self._writes += 1

    @property
    def seed(self) -> int:
        """The seed of generated names and random choices."""
        return self.runtime.seed

    # --- lifecycle ------------------------------------------------------------------

    def close(self) -> None:
        """Stop the controllers' watches."""
        for controller in self.controllers:
            controller.close()

    def __enter__(self) -> SimEnv:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def controller(self, name: str) -> Controller:
        """The running controller called `name`."""
        for controller in self.controllers:
            if controller.name == name:
                return controller
        raise KeyError(
            f"no controller {name!r} runs here (running: {', '.join(c.name for c in self.controllers)})"
        )

    # --- steps ----------------------------------------------------------------------

    @property
    def current_step(self) -> ScenarioStep:
        """The current step (MajorStep, MinorStep)."""
        return self.step_status.step

    def settle(self) -> int:
        """Run the controllers until none has work and every waiter holds, with the engine's loop
        (kubesim.controllers.settle) and its bounds; returns the loops that reported work.

        Raises SettleError (the engine's NotSettled) naming the controllers that do not settle.
        """
        guard = LoopGuard(
            lambda: self._writes,
            objects=lambda: len(self.cluster.objects()),
            limits=self.limits,
            label=f"step {self.current_step.major}",
        )
        try:
            settle(self.controllers, changes=lambda: self._writes, guard=guard)
        except NotSettled as exc:
            raise SettleError(exc.message, exc.controllers) from None
        return guard.loops

    def step(self, seconds: float | None = None) -> None:
        """Start the next MajorStep (`seconds` later, default the step duration) and settle."""
        self.clock.advance(self.step_duration if seconds is None else timedelta(seconds=seconds))
        self.step_status.step = ScenarioStep(self.step_status.step.major + 1, 0)
        self.settle()

    # --- objects (as the scenario's operations) ---------------------------------------

    def client(self, actor: str) -> Client:
        """A client whose writes are attributed to `actor` (play "scheduler", "kubelet", ...)."""
        return self.runtime.client(actor)

    def create(self, obj: Mapping[str, Any], *, actor: str = "scenario") -> dict[str, Any]:
        """Create `obj`; returns the stored object."""
        return self.cluster.create(dict(obj), actor=actor)

    def apply(self, obj: Mapping[str, Any], *, actor: str = "scenario") -> dict[str, Any]:
        """Create `obj`, or replace the stored one of the same name (its resourceVersion is taken over)."""
        try:
            return self.cluster.create(dict(obj), actor=actor)
        except AlreadyExists:
            meta = obj["metadata"]
            stored = self.cluster.get(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
            new = {**obj, "metadata": {**meta, "resourceVersion": stored["metadata"]["resourceVersion"]}}
            return self.cluster.update(new, actor=actor)

    def update(
        self, obj: Mapping[str, Any], *, actor: str = "scenario", subresource: str | None = None
    ) -> dict[str, Any]:
        """Replace the stored object (or its `subresource`, e.g. "status")."""
        return self.cluster.update(dict(obj), actor=actor, subresource=subresource)

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        body: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str | None = None,
        actor: str = "scenario",
    ) -> dict[str, Any]:
        """Patch an object: a "merge", "strategic" or "json" patch (or its content type)."""
        return self.cluster.patch(
            api_version,
            kind,
            name,
            body,
            patch_type,
            namespace=namespace,
            actor=actor,
            subresource=subresource,
        )

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        actor: str = "scenario",
        **options: Any,
    ) -> None:
        """Delete an object (options: propagation_policy, grace_period_seconds)."""
        self.cluster.delete(api_version, kind, name, namespace, actor=actor, **options)

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        """A copy of one object; NotFound when it does not exist."""
        return self.cluster.get(api_version, kind, name, namespace)

    def exists(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> bool:
        """Whether the object exists."""
        try:
            self.cluster.get(api_version, kind, name, namespace)
        except NotFound:
            return False
        return True

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | Mapping[str, Any] | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """The objects of a kind, sorted by (namespace, name); read-only."""
        return list(self.cluster.list(api_version, kind, namespace, label_selector=label_selector))

    def events(self) -> builtins.list[Any]:
        """The recorded timeline events in order (MajorSteps ascending)."""
        return [e for major in sorted(self.timeline.timeline, key=int) for e in self.timeline.timeline[major]]
