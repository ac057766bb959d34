"""The scheduler as a kubesim SimulationController named "scheduler".

One loop (`run_once`) is one scheduling attempt. Every attempt becomes a timeline
event: PodScheduled with all of the pod's attempts, or PodUnscheduled with this one.
The controller can do no more in a step (its waiter) when every unscheduled pod has
been tried at least twice with no bind and no preemption in between (KEP-140's rule);
a change by anyone else (an operation, another controller) starts the count again,
since it may have made a pod schedulable.
Simulated time does not pass inside a step, so when no pod is ready the pods still
owed a try are moved to the active queue at once instead of waiting out their backoff.
With --annotations, the attempt's results are also written into the pod's annotations
(kube-scheduler-simulator's keys) in the same loop as the bind, or as the
PodScheduled=False condition when that changes, so the MinorStep still moves once.
A pod a Permit plugin makes wait is assumed (not pending) until it is allowed, rejected
or times out (in simulated time, so at a later step); its bind or failure is then
recorded like any other attempt's.
Extenders come from the configuration (HTTP) and the kubesim_scheduler_extenders hook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, cast

from kubesim import Controller, ControllerWaiter, PodResult, Runtime
from kubesim.api import ScenarioPodScheduleResult
from kubesim.cluster import WatchEvent, copy_tree
from kubesim.errors import ApiError, NotFound
from kubesim.k8s.keys import namespaced_name, object_key

from .annotations import attempt_annotations
from .attempt import ScheduleAttempt
from .eventhandlers import STORAGE_EVENT_KINDS
from .extender import build_extenders
from .framework.events import ActionType, ClusterEvent
from .framework.pod_info import pod_key
from .plugins.defaultpreemption import disruption_target_condition
from .profiles import load_settings
from .results import effective_detail, schedule_result, trim_level
from .scheduler import Scheduler
from .scheduling_queue import SchedulingQueue

__all__ = ["SchedulerController"]

# kinds plugins may list through the Handle, with their apiVersion
_LISTABLE = {
    "Namespace": "v1", "Service": "v1", "ReplicationController": "v1", "PersistentVolumeClaim": "v1",
    "PersistentVolume": "v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1",
    "PodDisruptionBudget": "policy/v1", "StorageClass": "storage.k8s.io/v1", "CSINode": "storage.k8s.io/v1",
    "CSIDriver": "storage.k8s.io/v1", "CSIStorageCapacity": "storage.k8s.io/v1",
    "VolumeAttachment": "storage.k8s.io/v1",
    "PriorityClass": "scheduling.k8s.io/v1", "Node": "v1", "Pod": "v1",
    "ResourceClaim": "resource.k8s.io/v1", "ResourceSlice": "resource.k8s.io/v1", "DeviceClass": "resource.k8s.io/v1",
}
# resource.k8s.io kinds whose add/update events requeue pods (DynamicResources registers them)
_DRA_EVENTS = {"ResourceClaim", "ResourceSlice", "DeviceClass"}
TRIES_PER_STEP = 2


def _terminal(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class SchedulerController(Controller):
    """kube-scheduler running inside a scenario."""

    name = "scheduler"

    def __init__(self, runtime: Runtime) -> None:
        super().__init__(runtime)
        registry = runtime.scheduler_plugins()
        settings = load_settings(runtime.options.get("scheduler_config"), registry, runtime.feature_gates.as_dict())
        self.detail = str(runtime.options.get("detail") or "auto")
        self.annotations = bool(runtime.options.get("annotations"))
        extenders = build_extenders(settings.config.extenders, runtime.scheduler_extenders())
        self.profiles = {p.scheduler_name for p in settings.profiles}
        self._start = runtime.clock.now()  # the scheduler's time 0
        epoch = self._start.timestamp()
        self.scheduler = Scheduler(
            settings.profiles,
            registry=registry,
            seed=runtime.seed,
            now=lambda: runtime.clock.now().timestamp() - epoch,
            binder=self._bind,
            lister=self._list,
            preempt_pod=self._preempt,
            patch_nominated_node=self._patch_nominated_node,
            time_origin=epoch,
            percentage_of_nodes_to_score=settings.percentage_of_nodes_to_score,
            pod_initial_backoff=settings.pod_initial_backoff,
            pod_max_backoff=settings.pod_max_backoff,
            extenders=extenders,
            record_results=self.annotations,
            writer=self,
            getter=self._get,
            feature_gates=runtime.feature_gates.as_dict(),
            update_object=self._update_object,
        )
        self.history: dict[str, list[ScenarioPodScheduleResult]] = {}
        # KEP "tried twice": tries count per pod within the current epoch; an epoch ends
        # at every bind or preemption, which may have made other pods schedulable.
        self.epoch = 0
        self.tries: dict[str, tuple[int, int]] = {}
        self.done_in_epoch = 0
        self.pending: set[str] = set()
        # pods assumed and waiting at Permit: not pending, nothing to do until they go on
        self.waiting: set[str] = set()
        self._unwatch = self.reader.watch(self._on_event)
        for node in self.reader.list("v1", "Node"):
            self.scheduler.add_node(node)
        # the informer's first list comes in the API server's storage key order
        # ("namespace/name": "team-a/x" before "team/x"), and the cache appends each node's
        # pods in that order
        for pod in sorted(self.reader.list("v1", "Pod"), key=object_key):
            if not _terminal(pod):
                self._pod_added(pod)

    # --- cluster events ----------------------------------------------------

    def _on_event(self, event: WatchEvent) -> None:
        obj = event.object
        if event.actor != self.name and obj.get("kind") != "Scenario":
            self._new_epoch()
        kind = obj.get("kind")
        if isinstance(kind, str) and obj.get("apiVersion") == STORAGE_EVENT_KINDS.get(kind):
            # the volume plugins' cluster events (informers on these kinds upstream)
            self.scheduler.storage_event(kind, event.type, event.old_object, obj)
            return
        if obj.get("apiVersion") == "resource.k8s.io/v1" and kind in _DRA_EVENTS:
            if event.type != "DELETED":
                action = ActionType.ADD if event.type == "ADDED" else ActionType.UPDATE
                self.scheduler.queue.move_all_to_active_or_backoff(
                    ClusterEvent(str(obj["kind"]), action), event.old_object, obj)
            return
        if obj.get("apiVersion") != "v1":
            return
        if kind == "Node":
            if event.type == "DELETED":
                self.scheduler.remove_node(obj)
            else:
                self.scheduler.add_node(obj)
        elif kind == "Pod":
            # kube-scheduler watches pods with status.phase!=Succeeded,status.phase!=Failed
            # (scheduler.go newPodInformer): a pod turning terminal leaves its view as deleted.
            if event.type == "DELETED" or _terminal(obj):
                self._forget(pod_key(obj))
                self.waiting.discard(pod_key(obj))
                self.scheduler.remove_pod(obj)
            else:
                self._pod_added(obj)

    def _is_pending(self, pod: Mapping[str, Any]) -> bool:
        spec = pod.get("spec") or {}
        return (not spec.get("nodeName") and not spec.get("schedulingGates")
                and spec.get("schedulerName", "default-scheduler") in self.profiles
                and not (pod.get("metadata") or {}).get("deletionTimestamp"))

    def _pod_added(self, pod: Mapping[str, Any]) -> None:
        key = pod_key(pod)
        if self._is_pending(pod) and key not in self.waiting:
            self.pending.add(key)
        else:
            self._forget(key)
        self.scheduler.add_pod(pod)

    def _forget(self, key: str) -> None:
        if key in self.pending:
            self.pending.discard(key)
            epoch, count = self.tries.pop(key, (-1, 0))
            if epoch == self.epoch and count >= TRIES_PER_STEP:
                self.done_in_epoch -= 1

    def _new_epoch(self) -> None:
        self.epoch += 1
        self.done_in_epoch = 0

    def _tried(self, key: str) -> None:
        if key not in self.pending:
            return
        epoch, count = self.tries.get(key, (self.epoch, 0))
        if epoch != self.epoch:
            count = 0
        count += 1
        self.tries[key] = (self.epoch, count)
        if count == TRIES_PER_STEP:
            self.done_in_epoch += 1

    def _owes_try(self, key: str) -> bool:
        epoch, count = self.tries.get(key, (-1, 0))
        return epoch != self.epoch or count < TRIES_PER_STEP

    # --- framework callbacks -------------------------------------------------

    def _bind(self, pod: Mapping[str, Any], node: str) -> None:
        meta = pod.get("metadata") or {}
        self.client.bind(meta.get("namespace") or "default", meta.get("name", ""), node, copy=False)

    def _preempt(self, victim: Mapping[str, Any], preemptor: Mapping[str, Any], node: str) -> bool:
        """Evict a preemption victim as kube-scheduler does: DisruptionTarget condition, then delete."""
        # upstream: pkg/scheduler/framework/preemption/preemption.go (prepareCandidate, PreemptPod)
        meta = victim.get("metadata") or {}
        name, namespace = meta.get("name", ""), meta.get("namespace") or "default"
        try:
            pod = self.reader.get("v1", "Pod", name, namespace)
        except NotFound:
            return False
        condition = {**disruption_target_condition(preemptor), "lastTransitionTime": self.runtime.clock.timestamp()}
        conditions = [c for c in pod.setdefault("status", {}).get("conditions", []) if c.get("type") != condition["type"]]
        pod["status"]["conditions"] = [*conditions, condition]
        try:
            pod = self.client.update_status(pod)
            self.client.delete("v1", "Pod", name, namespace)
        except NotFound:
            return False
        pmeta = preemptor.get("metadata") or {}
        self._new_epoch()
        self.runtime.recorder.record_pod("podPreempted", PodResult(
            pod=pod, created_at=self.runtime.recorder.pod_created_at(pod), bound_to=node,
            preempted_by=namespaced_name(pmeta.get("namespace"), pmeta.get("name", "")),
            preempted_at=self.runtime.step_status.step,
        ), actor=self.name)
        return True

    def _patch_nominated_node(self, pod: Mapping[str, Any], node: str) -> None:
        """Write status.nominatedNodeName ("" clears it)."""
        meta = pod.get("metadata") or {}
        try:
            self.client.patch("v1", "Pod", meta.get("name", ""), {"status": {"nominatedNodeName": node or None}},
                              namespace=meta.get("namespace") or "default", subresource="status")
        except NotFound:
            pass

    def _update_object(self, obj: dict[str, Any]) -> Mapping[str, Any]:
        return self.client.update(obj)

    # ObjectWriter: the plugins' writes to other objects (DynamicResources' ResourceClaims)
    def update(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.client.update(copy_tree(dict(obj)))

    def update_status(self, obj: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.client.update_status(copy_tree(dict(obj)))

    def _get(self, kind: str, namespace: str | None, name: str) -> Mapping[str, Any] | None:
        api_version = _LISTABLE.get(kind)
        if api_version is None:
            return None
        try:
            return self.reader.get(api_version, kind, name, namespace)
        except NotFound:
            return None

    def _list(self, kind: str, namespace: str | None) -> Iterable[Mapping[str, Any]]:
        api_version = _LISTABLE.get(kind)
        if api_version is None:
            return ()
        return self.reader.list(api_version, kind, namespace)

    # --- the loop --------------------------------------------------------------

    def run_once(self) -> bool:
        # with annotations the attempt keeps every detail until they are written
        self.scheduler.detail = (
            "all" if self.annotations else trim_level(effective_detail(self.detail, self.scheduler.table.num_nodes)))
        attempt = self._next_attempt()
        if attempt is None:
            return False
        key = pod_key(attempt.pod)
        if self.scheduler.is_waiting(key):
            # assumed and waiting at Permit: recorded when it is bound or fails
            self._forget(key)
            self.waiting.add(key)
            return True
        if key in self.waiting:
            self.waiting.discard(key)
            if not attempt.bound:
                current = self.scheduler.pods.get(key)
                if current is not None and self._is_pending(current):
                    self.pending.add(key)
        self._record(attempt)
        return True

    def _next_attempt(self) -> ScheduleAttempt | None:
        queue = self.scheduler.queue
        for _ in range(2):
            while True:
                if not self._may_pop(queue):
                    break
                attempt = self.scheduler.schedule_one()
                if attempt is not None:
                    return attempt
                if not len(queue.active):
                    break
            owed = [k for k in sorted(self.pending) if self._owes_try(k)]
            if not owed:
                return None
            queue.activate(owed)
        # pods owed a try that no queue would hand out (held by a PreEnqueue plugin)
        for key in [k for k in sorted(self.pending) if self._owes_try(k)]:
            while self._owes_try(key):
                self._tried(key)
        return None

    def _may_pop(self, queue: SchedulingQueue) -> bool:
        """False when the next pod would come from backoff although it had its tries.

        With SchedulerPopFromBackoffQ a pod in backoff is popped whenever the active queue is
        empty (a pod in error backoff only once its backoff completes); simulated time does
        not pass within a step, so a rejected pod would be handed out again and again, ahead
        of pods still owed a try.
        """
        if self.scheduler.waiting_resolved():
            return True  # a pod waiting at Permit goes on first
        queue.flush()
        if len(queue.active) or not queue.pop_from_backoff:
            return True
        head = queue.backoff.peek() or queue.error_backoff.peek()
        return head is None or self._owes_try(head.key)

    def _record(self, attempt: ScheduleAttempt) -> None:
        key = pod_key(attempt.pod)
        step_before = self.runtime.step_status.step
        detail = effective_detail(self.detail, attempt.num_all_nodes)
        bound = attempt.bound and attempt.node is not None
        pod: dict[str, Any] | None = None
        if bound:
            if self.annotations:
                self._annotate(attempt, self.scheduler.pods.get(key) or attempt.pod)
        else:
            pod = self._current(attempt.pod)
            # upstream: schedule_one.go handleSchedulingFailure (reason SchedulerError unless rejected)
            status = attempt.status
            reason = "Unschedulable" if status is None or status.is_rejected() else "SchedulerError"
            if self._set_unschedulable_condition(pod, attempt.message(), reason) and self.annotations:
                self._annotate(attempt, pod)
        if self.annotations:  # the attempt kept every detail for the annotations
            attempt.trim(trim_level(detail))
        result = schedule_result(attempt, step_before, detail)
        history = self.history.setdefault(key, [])
        history.append(result)
        if pod is None:
            # the bound pod as stored: the binding's watch event has just delivered it
            bound_pod = cast("dict[str, Any]", self.scheduler.pods.get(key) or self._current(attempt.pod))
            self._new_epoch()
            self._forget(key)
            self.history.pop(key, None)
            self.runtime.recorder.record_pod("podScheduled", PodResult(
                pod=bound_pod, created_at=self.runtime.recorder.pod_created_at(bound_pod), bound_to=attempt.node,
                bound_at=self.runtime.step_status.step, schedule_result=history,
            ), actor=self.name)
            return
        self._tried(key)
        if attempt.nominated_node or attempt.victims:
            self._new_epoch()
        self.runtime.recorder.record_pod("podUnscheduled", PodResult(
            pod=self._current(pod), created_at=self.runtime.recorder.pod_created_at(pod), schedule_result=[result],
        ), actor=self.name)

    def _current(self, pod: Mapping[str, Any]) -> dict[str, Any]:
        meta = pod.get("metadata") or {}
        try:
            return self.reader.get("v1", "Pod", meta.get("name", ""), meta.get("namespace") or "default")
        except NotFound:
            return dict(pod)

    def _annotate(self, attempt: ScheduleAttempt, pod: Mapping[str, Any]) -> None:
        """Write `attempt`'s results into the pod's annotations (kube-scheduler-simulator's keys)."""
        meta = pod.get("metadata") or {}
        out = attempt_annotations(attempt, meta.get("annotations"))
        if out is None:
            self.log.warning("scheduling results do not fit in the pod's annotations", pod=pod_key(pod))
            return
        try:
            self.client.patch("v1", "Pod", meta.get("name", ""), {"metadata": {"annotations": out[0]}},
                              namespace=meta.get("namespace") or "default")
        except ApiError as exc:  # the pod went away meanwhile
            self.log.debug("result annotations not written", pod=pod_key(pod), error=exc.message)

    def _set_unschedulable_condition(self, pod: dict[str, Any], message: str, reason: str = "Unschedulable") -> bool:
        """Set PodScheduled=False with `reason` (Unschedulable or SchedulerError) as kube-scheduler
        does, only when it changes; True when it was written."""
        # upstream: pkg/scheduler/schedule_one.go handleSchedulingFailure -> updatePod
        if not pod.get("metadata", {}).get("resourceVersion"):
            return False
        status = pod.setdefault("status", {})
        conditions = status.setdefault("conditions", [])
        wanted = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message}
        for cond in conditions:
            if cond.get("type") == "PodScheduled":
                if all(cond.get(k) == v for k, v in wanted.items()):
                    return False
                cond.update(wanted)
                cond["lastTransitionTime"] = self.runtime.clock.timestamp()
                break
        else:
            conditions.append({**wanted, "lastProbeTime": None, "lastTransitionTime": self.runtime.clock.timestamp()})
        try:
            self.client.update_status(pod)
        except ApiError as exc:  # the pod changed or went away meanwhile: nothing to report on
            self.log.debug("pod condition not updated", pod=pod_key(pod), error=exc.message)
            return False
        return True

    def next_wakeup(self) -> datetime | None:
        """The first deadline of a pod waiting at Permit: the only work time alone brings.

        Queue flushes and backoffs matter only while the scheduler runs, and it runs in a step
        only when its waiter does not hold: after a change, or when a Permit wait ends.
        """
        known = [d for d in (wp.deadline() for wp in self.scheduler.handle.waiting_pods) if d is not None]
        return self._start + timedelta(seconds=min(known)) if known else None

    def waiter(self) -> ControllerWaiter:
        # a pod waiting at Permit counts as done until it is allowed, rejected or times out
        return ControllerWaiter(self.name, lambda: self.done_in_epoch >= len(self.pending)
                                and not self.scheduler.waiting_resolved())

    def close(self) -> None:
        self._unwatch()
