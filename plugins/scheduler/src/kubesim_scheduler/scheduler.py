"""Scheduler: cluster state in, one scheduling attempt at a time out.

`Scheduler` is kube-scheduler's Scheduler (pkg/scheduler/scheduler.go): it builds the
profiles' frameworks, the node table, the queue and the parts below, and runs ScheduleOne.
The concerns live where upstream keeps them:
- eventhandlers.py: node and pod events into the node table and the queue (a mixin: upstream's
  handlers are Scheduler methods too);
- schedule_one.py: the scheduling cycle (schedulePod, findNodesThatFitPod, prioritizeNodes,
  selectHost);
- binding.py: assume, Reserve, Permit and the pods waiting there, the binding cycle and
  handleBindingCycleError;
- extender_calls.py: filter, prioritize and bind by extenders (the HTTP client is extender.py);
- failure.py: handleSchedulingFailure.
Work that upstream starts in goroutines (asynchronous preemption) runs when the attempt is
over, before schedule_one returns.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .attempt import ScheduleAttempt
from .binding import BindingCycle
from .eventhandlers import EventHandlers
from .extender import Extender
from .extender_calls import ExtenderCalls
from .extender_types import EXTENDER_NAME
from .failure import FailureHandler
from .framework.events import WILDCARD, ActionType, ClusterEvent, ClusterEventWithHint
from .framework.handle import (
    Binder,
    Handle,
    ObjectGetter,
    ObjectLister,
    ObjectUpdater,
    ObjectWriter,
    PatchNominatedNode,
    PreemptPod,
)
from .framework.interface import Plugin
from .framework.node_table import NodeTable
from .framework.nominator import nominated_node_name
from .framework.pod_info import PodInfo, pod_key
from .framework.profile_config import DEFAULT_MULTI_POINT, ProfileConfig
from .framework.runtime import Framework
from .plugins.registry import in_tree_registry
from .schedule_one import MIN_FEASIBLE_NODES_TO_FIND, SchedulingCycle, num_feasible_nodes_to_find
from .scheduling_queue import SchedulingQueue

__all__ = ["Scheduler", "num_feasible_nodes_to_find", "default_profile", "MIN_FEASIBLE_NODES_TO_FIND"]


def default_profile(registry: Mapping[str, type[Plugin]] | None = None, *, dynamic_resource_allocation: bool = True,
                    **kw: Any) -> ProfileConfig:
    """The v1.34 default profile over the plugins available in `registry` (DynamicResources
    only while the DynamicResourceAllocation gate is on, as applyFeatureGates does)."""
    reg = registry if registry is not None else in_tree_registry()
    points = [p for p in DEFAULT_MULTI_POINT if dynamic_resource_allocation or p[0] != "DynamicResources"]
    return ProfileConfig.from_multi_point(points, reg, skip_unknown=True, **kw)


class Scheduler(EventHandlers):
    """A kube-scheduler: profiles, node table, queue; feed it objects, call schedule_one().

    `now` is the simulated clock in seconds since `time_origin` (the epoch time at which
    now() is 0; preemption compares time_origin + now() with pods' status.startTime).
    `binder(pod, node)` writes bindings (defaults to recording them here);
    `lister(kind, namespace)` serves other API objects to plugins (PodDisruptionBudgets
    for preemption among them).
    `preempt_pod(victim, preemptor, node)` evicts a preemption victim (adds the
    DisruptionTarget condition and deletes it; returns False when it was already gone); the
    default removes it from this scheduler. `patch_nominated_node(pod, node)` writes
    status.nominatedNodeName ('' clears it); the default updates the pod held here.
    `writer` updates other API objects for plugins (ResourceClaims for DynamicResources);
    `getter(kind, namespace, name)` reads one of them by key (else the lister is scanned).
    `feature_gates` overrides v1.34 defaults (e.g. SchedulerAsyncPreemption).
    `detail` is the per-attempt detail level kept: 'all', 'none' or the best N nodes.
    `extenders` are called in order after the plugins (see extender.py); `record_results`
    keeps every extension point's per-plugin results on the attempts (for pod annotations).
    `update_object(obj)` replaces API objects for plugins (VolumeBinding's PreBind).
    """

    def __init__(
        self,
        profiles: Sequence[ProfileConfig] | None = None,
        *,
        registry: Mapping[str, type[Plugin]] | None = None,
        seed: int = 0,
        now: Callable[[], float] | None = None,
        binder: Binder | None = None,
        lister: ObjectLister | None = None,
        percentage_of_nodes_to_score: int = 0,
        pod_initial_backoff: float = 1.0,
        pod_max_backoff: float = 10.0,
        detail: str | int = "all",
        preempt_pod: PreemptPod | None = None,
        patch_nominated_node: PatchNominatedNode | None = None,
        feature_gates: Mapping[str, bool] | None = None,
        time_origin: float = 0.0,
        extenders: Sequence[Extender] = (),
        record_results: bool = False,
        writer: ObjectWriter | None = None,
        getter: ObjectGetter | None = None,
        update_object: ObjectUpdater | None = None,
    ) -> None:
        self.registry = dict(registry) if registry is not None else in_tree_registry()
        self._clock = now or (lambda: 0.0)
        self.table = NodeTable()
        self._external_binder = binder
        self._external_preempt = preempt_pod
        self._external_patch_nominated = patch_nominated_node
        self.rng = random.Random(seed)
        self.pods = {}
        self.handle = Handle(
            self.table, lister=lister, binder=self._bind, now=self._clock,
            pod_lookup=self.pods.get, preempt_pod=self._preempt_pod,
            patch_nominated_node=self._patch_nominated_node,
            activate=lambda keys: self.queue.activate(keys), rng=self.rng, features=feature_gates,
            time_origin=time_origin, writer=writer, getter=getter, update_object=update_object,
        )
        if not profiles:
            profiles = [default_profile(self.registry,
                                        dynamic_resource_allocation=self.handle.feature("DynamicResourceAllocation"))]
        self.frameworks = {}
        for p in profiles:
            if p.scheduler_name in self.frameworks:
                raise ValueError(f"duplicate profile {p.scheduler_name!r}")
            self.frameworks[p.scheduler_name] = Framework(p, self.registry, self.handle)
        self._extenders = ExtenderCalls(extenders, self.table, self.handle)
        self.extenders = self._extenders.extenders
        self.record_results = record_results
        self.handle.extenders = self.extenders
        self.handle.extender_recorder = self._extenders.record
        if self.extenders:
            # upstream registers a default enqueue extension under ExtenderName: any event
            # may requeue a pod that extenders rejected nodes for
            for fw in self.frameworks.values():
                fw.events_by_plugin[EXTENDER_NAME] = [ClusterEventWithHint(ClusterEvent(WILDCARD, ActionType.ALL))]
        self.queue = SchedulingQueue(
            self.frameworks, self._clock,
            pod_initial_backoff=pod_initial_backoff, pod_max_backoff=pod_max_backoff,
            nominator=self.handle.nominator,
            pop_from_backoff=self.handle.feature("SchedulerPopFromBackoffQ"),
        )
        self.detail = detail
        self.nodes = {}
        self.bindings: list[tuple[str, str]] = []
        # (victim key, preemptor key, node): every eviction preemption asked for
        self.preemptions: list[tuple[str, str, str]] = []
        self._attempt: ScheduleAttempt | None = None
        failures = FailureHandler(self.queue, self.pods, self.handle)
        self._binding = BindingCycle(self.table, self.queue, self.pods, self.handle, self._extenders, failures)
        self._cycle = SchedulingCycle(
            self.table, self.rng, self._extenders, self._binding, failures, percentage_of_nodes_to_score
        )

    @property
    def percentage_of_nodes_to_score(self) -> int:
        """The share of nodes to find feasible before scoring (0: upstream's adaptive default)."""
        return self._cycle.percentage_of_nodes_to_score

    @property
    def next_start_node_index(self) -> int:
        """Where the next Filter pass starts in the node order (upstream's nextStartNodeIndex)."""
        return self._cycle.next_start_node_index

    # ------------------------------------------------- the handle's writes
    def _bind(self, pod: Mapping[str, Any], node: str) -> None:
        if self._external_binder is not None:
            self._external_binder(pod, node)
            return
        bound = dict(pod)
        bound["spec"] = dict(pod.get("spec") or {}, nodeName=node)
        self.pods[pod_key(pod)] = bound
        self.bindings.append((pod_key(pod), node))

    def _preempt_pod(self, victim: Mapping[str, Any], preemptor: Mapping[str, Any], node: str) -> bool | None:
        """Evict a victim: recorded on the running attempt, then the callback or a local delete."""
        key = pod_key(victim)
        self.preemptions.append((key, pod_key(preemptor), node))
        if self._attempt is not None and self._attempt.pod_key == pod_key(preemptor):
            self._attempt.victims.append(victim)
        if self._external_preempt is not None:
            return self._external_preempt(victim, preemptor, node)
        if key not in self.pods:
            return False
        self.remove_pod(key)
        return True

    def _patch_nominated_node(self, pod: Mapping[str, Any], node: str) -> None:
        """Write status.nominatedNodeName through the callback, or on the pod held here."""
        if self._external_patch_nominated is not None:
            self._external_patch_nominated(pod, node)
            return
        current = self.pods.get(pod_key(pod))
        if current is None or nominated_node_name(current) == node:
            return
        status = dict(current.get("status") or {})
        if node:
            status["nominatedNodeName"] = node
        else:
            status.pop("nominatedNodeName", None)
        updated = dict(current)
        updated["status"] = status
        self.update_pod(updated)

    # --------------------------------------------------------------- cycles
    def schedule_one(self) -> ScheduleAttempt | None:
        """Pop the next pod and run its scheduling and binding cycles; None if none is ready.

        A waiting pod that was allowed, rejected or timed out goes first: its binding cycle
        ends and its attempt is returned again."""
        if self._binding.waiting:
            resumed = self._binding.next_resolved()
            if resumed is not None:
                entry, verdict = resumed
                return self._run_attempt(entry[0].attempt, lambda: self._binding.finish(entry, verdict))
        qpi = self.queue.pop()
        if qpi is None:
            return None
        pi = qpi.pod_info
        fw = self.frameworks.get(pi.scheduler_name)
        if fw is None or (pi.pod.get("metadata") or {}).get("deletionTimestamp") or self.table.pod_info(pi.key) is not None:
            self.queue.done(pi.key)
            return None
        attempt = self._new_attempt(fw, pi)
        return self._run_attempt(attempt, lambda: self._cycle.schedule(fw, pi, qpi, attempt, evaluate_only=False))

    def evaluate(self, pod: Mapping[str, Any], *, score_single: bool = True) -> ScheduleAttempt:
        """Run PreFilter..Score and selectHost for a pod without side effects (no queue, no bind).

        With score_single, a lone feasible node is still scored (upstream skips scoring).
        """
        pi = PodInfo(pod)
        fw = self.frameworks.get(pi.scheduler_name)
        if fw is None:
            raise KeyError(f"profile not found for scheduler name {pi.scheduler_name!r}")
        saved = self._cycle.next_start_node_index
        try:
            attempt = self._new_attempt(fw, pi)
            self._cycle.schedule(fw, pi, None, attempt, evaluate_only=True, score_single=score_single)
            return attempt
        finally:
            self._cycle.next_start_node_index = saved
            self._extenders.recording = None

    def run(self, max_attempts: int | None = None) -> list[ScheduleAttempt]:
        """schedule_one until nothing is ready (or max_attempts)."""
        out: list[ScheduleAttempt] = []
        while max_attempts is None or len(out) < max_attempts:
            a = self.schedule_one()
            if a is None:
                if self.queue.active or (self.queue.pop_from_backoff and self.queue.backoff):
                    continue
                break
            out.append(a)
        return out

    def _new_attempt(self, fw: Framework, pi: PodInfo) -> ScheduleAttempt:
        """The attempt a cycle fills in; extender responses are kept on it while it runs."""
        attempt = ScheduleAttempt(pi.pod, fw.profile_name, self._clock())
        if self.record_results:
            attempt.point_results = {}
        self._extenders.recording = attempt
        return attempt

    def _run_attempt(self, attempt: ScheduleAttempt, cycle: Callable[[], None]) -> ScheduleAttempt:
        """Run a scheduling or binding cycle for `attempt`; then the work upstream runs in
        goroutines (async preemption) finishes, and the attempt is trimmed to `detail`."""
        self._attempt = attempt
        self._extenders.recording = attempt
        try:
            cycle()
        finally:
            self.handle.drain_after_cycle()
            self._attempt = None
            self._extenders.recording = None
        attempt.trim(self.detail)
        return attempt

    # --------------------------------------------------------- waiting pods
    def is_waiting(self, key: str) -> bool:
        """Whether the pod `key` (namespace/name) is assumed and waiting at Permit."""
        return self._binding.is_waiting(key)

    def waiting_resolved(self) -> bool:
        """Whether a waiting pod can go on now: allowed, rejected, or past its deadline."""
        return self._binding.waiting_resolved(self._clock())
