"""The binding cycle: assume the pod, Reserve, Permit (waiting pods), PreBind, Bind, PostBind.

Follows kubernetes pkg/scheduler/schedule_one.go (assume, the Reserve and Permit part of
schedulingCycle, bindingCycle, bind/extendersBinding, handleBindingCycleError) and
WaitOnPermit from framework/runtime. Upstream's binding cycle blocks in WaitOnPermit in its
goroutine; here a waiting pod stays assumed and its binding cycle ends at a later
schedule_one, once it is allowed, rejected or past its (simulated-time) deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .cycle import Cycle
from .extender_calls import ExtenderCalls
from .failure import FailureHandler, failure_nominating_info
from .framework.diagnosis import Diagnosis, FitError
from .framework.events import ASSIGNED_POD, ActionType, ClusterEvent
from .framework.handle import Handle
from .framework.node_table import NodeTable
from .framework.queued_pod_info import QueuedPodInfo
from .framework.status import Status
from .framework.waiting_pods import waiting_pod_uid
from .scheduling_queue import SchedulingQueue

__all__ = ["BindingCycle", "WaitingBind"]

WaitingBind = tuple[Cycle, QueuedPodInfo, str, Mapping[str, Any]]
"""A pod waiting at Permit: its cycle, its queued pod, the node and the assumed pod."""


@attrs.define(eq=False)
class BindingCycle:
    """Binds the pods the scheduling cycle placed, and holds those waiting at Permit."""

    _table: NodeTable
    _queue: SchedulingQueue
    _pods: Mapping[str, Mapping[str, Any]]
    _handle: Handle
    _extenders: ExtenderCalls
    _failures: FailureHandler
    waiting: dict[str, WaitingBind] = attrs.field(factory=dict, init=False)
    """uid -> the pods waiting at Permit, in the order they started waiting."""

    def assume_and_bind(self, cyc: Cycle, qpi: QueuedPodInfo, node: str) -> None:
        """assume, Reserve and Permit; then the binding cycle, unless Permit says wait."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        assumed = pi.assigned_to(node)
        assumed_pod = assumed.pod
        self._table.add_pod(assumed, node)
        self._queue.nominator.delete(pi.key)
        rec = attempt.point_results
        attempt.reserved_node = node
        s = fw.run_reserve(state, pi, node, rec)
        if s is not None and not s.is_success():
            self._binding_failed(cyc, qpi, node, assumed_pod, s)
            return
        s = fw.run_permit(state, pi, node, rec)
        if s is not None and not s.is_success():
            if not s.is_wait():
                self._binding_failed(cyc, qpi, node, assumed_pod, s)
                return
            attempt.status = s
            self.waiting[waiting_pod_uid(assumed_pod)] = (cyc, qpi, node, assumed_pod)
            return
        self._binding_cycle(cyc, qpi, node, assumed_pod)

    def _binding_cycle(self, cyc: Cycle, qpi: QueuedPodInfo, node: str, assumed_pod: Mapping[str, Any]) -> None:
        """bindingCycle after WaitOnPermit: PreBind, Bind (or an extender), PostBind."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        rec = attempt.point_results
        self._queue.done(pi.key)
        s = fw.run_pre_bind(state, pi, node, rec)
        if s is None or s.is_success():
            bound, s = self._extenders.bind(pi, node) if self._extenders.extenders else (False, None)
            if not bound:
                s = fw.run_bind(state, pi, node, rec)
        if s is not None and not s.is_success():
            self._binding_failed(cyc, qpi, node, assumed_pod, s)
            return
        fw.run_post_bind(state, pi, node)
        attempt.bound = True
        self._queue.delete(pi.key)
        self._queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, assumed_pod)

    def _binding_failed(
        self, cyc: Cycle, qpi: QueuedPodInfo, node: str, assumed_pod: Mapping[str, Any], st: Status
    ) -> None:
        """handleBindingCycleError: Unreserve, forget the assumed pod, requeue it."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        fw.run_unreserve(state, pi, node)
        self._table.remove_pod(pi.key)
        if st.is_rejected():
            d = Diagnosis()
            d.node_to_status.set(node, st)
            d.add_plugin_status(st)
            st = Status(st.code, error=FitError(pi.name, 1, d))
            attempt.status = st
            self._failures.handle_scheduling_failure(qpi, st, d, failure_nominating_info())
        else:
            attempt.status = st
            self._failures.handle_scheduling_failure(qpi, st, Diagnosis(), failure_nominating_info())
        attempt.node = None
        self._queue.move_all_to_active_or_backoff(
            ClusterEvent(ASSIGNED_POD, ActionType.DELETE), assumed_pod, None,
            (lambda q: q.key != pi.key) if st.is_rejected() else None,
        )

    # --- waiting pods -----------------------------------------------------------------

    def is_waiting(self, key: str) -> bool:
        """Whether the pod `key` (namespace/name) is assumed and waiting at Permit."""
        return any(w[1].key == key for w in self.waiting.values())

    def waiting_resolved(self, now: float) -> bool:
        """Whether a waiting pod can go on at `now`: allowed, rejected, or past its deadline."""
        for uid in self.waiting:
            wp = self._handle.waiting_pods.get(uid)
            if wp is None or wp.result is not None:
                return True
            deadline = wp.deadline()
            if deadline is not None and now >= deadline:
                return True
        return False

    def next_resolved(self) -> tuple[WaitingBind, Status | None] | None:
        """Take the first waiting pod (in the order they started waiting) that can go on,
        with WaitOnPermit's verdict (None: allowed); None when every waiting pod still waits.

        A pod deleted while waiting (remove_pod rejected it and forgot the assumed pod;
        upstream's ForgetPod then fails and only Unreserve runs) is dropped on the way.
        """
        for uid, entry in list(self.waiting.items()):
            cyc, qpi, node, assumed_pod = entry
            s = cyc.fw.wait_on_permit(assumed_pod)
            if s is not None and s.is_wait():
                continue
            del self.waiting[uid]
            cyc.attempt.status = None
            if qpi.key not in self._pods:
                cyc.fw.run_unreserve(cyc.state, cyc.pod_info, node)
                self._queue.done(qpi.key)
                continue
            return entry, s
        return None

    def finish(self, entry: WaitingBind, verdict: Status | None) -> None:
        """End a waiting pod's binding cycle: bind it when allowed, else fail it."""
        cyc, qpi, node, assumed_pod = entry
        if verdict is not None:
            self._binding_failed(cyc, qpi, node, assumed_pod, verdict)
        else:
            self._binding_cycle(cyc, qpi, node, assumed_pod)
