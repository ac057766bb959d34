"""Scheduler: cluster state in, one scheduling attempt at a time out.

The scheduling cycle follows upstream's schedulePod: PreFilter, Filter over nodes from a
rotating start index until enough feasible nodes are found (percentageOfNodesToScore),
PostFilter on failure, PreScore/Score/NormalizeScore, and selectHost with ties broken by
a seeded RNG. The binding cycle (Reserve, Permit, PreBind, Bind, PostBind) runs
synchronously right after, unless a Permit plugin asks to wait: the pod then stays
assumed as a waiting pod, and its binding cycle ends at a later schedule_one, once it is
allowed, rejected or past its (simulated-time) deadline. A pod nominated by an earlier preemption tries its nominated
node first, and every node is filtered with the higher-priority pods nominated to it.
Work that upstream starts in goroutines (asynchronous preemption) runs when the attempt
is over, before schedule_one returns.
Extenders (extender.py) filter the nodes the Filter plugins kept, add their scores, bind
in place of the Bind plugins, and narrow preemption candidates, as upstream's do.
"""

# upstream: pkg/scheduler/schedule_one.go (ScheduleOne, schedulingCycle, bindingCycle,
# schedulePod, findNodesThatFitPod, evaluateNominatedNode, findNodesThatPassFilters,
# findNodesThatPassExtenders, numFeasibleNodesToFind, prioritizeNodes, selectHost, assume,
# bind, extendersBinding, handleSchedulingFailure, handleBindingCycleError, updatePod),
# pkg/scheduler/eventhandlers.go

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from kubesim.plugins.crash import PluginCrashed

from .attempt import PASSED, ScheduleAttempt
from .extender import Extender, ExtenderError
from .extender_types import EXTENDER_NAME, MAX_EXTENDER_PRIORITY
from .framework.cycle_state import CycleState
from .framework.diagnosis import Diagnosis, FitError, NodeToStatus, NoNodesAvailable
from .framework.events import (
    ASSIGNED_POD,
    NODE,
    WILDCARD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from .framework.handle import Binder, Handle, ObjectLister, PatchNominatedNode, PreemptPod
from .framework.interface import MAX_NODE_SCORE, NominatingInfo, Plugin
from .framework.node_info import NodeInfoList
from .framework.node_table import NodeTable
from .framework.nominator import nominated_node_name
from .framework.pod_info import PodInfo, pod_key
from .framework.profile_config import DEFAULT_MULTI_POINT, ProfileConfig
from .framework.queued_pod_info import QueuedPodInfo
from .framework.runtime import Framework, ScoreOutcome
from .framework.status import Code, Status
from .framework.waiting_pods import waiting_pod_uid
from .plugins.registry import in_tree_registry
from .scheduling_queue import SchedulingQueue

__all__ = ["Scheduler", "num_feasible_nodes_to_find", "default_profile", "MIN_FEASIBLE_NODES_TO_FIND"]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """How many feasible nodes to find before stopping (upstream's adaptive formula)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * percentage // 100
    if n < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return n


def default_profile(registry: Mapping[str, type[Plugin]] | None = None, **kw: Any) -> ProfileConfig:
    """The v1.34 default profile over the plugins available in `registry`."""
    reg = registry if registry is not None else in_tree_registry()
    return ProfileConfig.from_multi_point(DEFAULT_MULTI_POINT, reg, skip_unknown=True, **kw)


def _failure_nominating_info() -> NominatingInfo:
    """newFailureNominatingInfo: clear the nomination (NominatedNodeNameForExpectation off)."""
    return NominatingInfo("", NominatingInfo.MODE_OVERRIDE)


def _same_except(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, key: str) -> bool:
    """a == b, ignoring `key`."""
    a, b = a or {}, b or {}
    return all(k in b and v == b[k] for k, v in a.items() if k != key) and all(k in a for k in b if k != key)


class _Cycle:
    """Scratch of one schedulePod run."""

    __slots__ = ("state", "pod_info", "fw", "attempt", "diagnosis", "feasible", "error", "nominated_status")

    def __init__(self, state: CycleState, pod_info: PodInfo, fw: Framework, attempt: ScheduleAttempt) -> None:
        self.state = state
        self.pod_info = pod_info
        self.fw = fw
        self.attempt = attempt
        self.diagnosis = Diagnosis()
        self.feasible: np.ndarray = np.empty(0, dtype=np.intp)
        self.error: Status | None = None
        self.nominated_status: tuple[str, Status] | None = None


class Scheduler:
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
    `feature_gates` overrides v1.34 defaults (e.g. SchedulerAsyncPreemption).
    `detail` is the per-attempt detail level kept: 'all', 'none' or the best N nodes.
    `extenders` are called in order after the plugins (see extender.py); `record_results`
    keeps every extension point's per-plugin results on the attempts (for pod annotations).
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
    ) -> None:
        self.registry = dict(registry) if registry is not None else in_tree_registry()
        self._clock = now or (lambda: 0.0)
        self.table = NodeTable()
        self._external_binder = binder
        self._external_preempt = preempt_pod
        self._external_patch_nominated = patch_nominated_node
        self.rng = random.Random(seed)
        self.pods: dict[str, Mapping[str, Any]] = {}
        self.handle = Handle(
            self.table, lister=lister, binder=self._bind, now=self._clock,
            pod_lookup=self.pods.get, preempt_pod=self._preempt_pod,
            patch_nominated_node=self._patch_nominated_node,
            activate=lambda keys: self.queue.activate(keys), rng=self.rng, features=feature_gates,
            time_origin=time_origin,
        )
        if not profiles:
            profiles = [default_profile(self.registry)]
        self.frameworks: dict[str, Framework] = {}
        for p in profiles:
            if p.scheduler_name in self.frameworks:
                raise ValueError(f"duplicate profile {p.scheduler_name!r}")
            self.frameworks[p.scheduler_name] = Framework(p, self.registry, self.handle)
        self.extenders = list(extenders)
        self.record_results = record_results
        self._extender_filters = any(e.is_filter() for e in self.extenders)
        self._extender_prioritizers = any(e.is_prioritizer() for e in self.extenders)
        self.handle.extenders = self.extenders
        self.handle.extender_recorder = self._record_extender_response
        if self.extenders:
            # upstream registers a default enqueue extension under ExtenderName: any event
            # may requeue a pod that extenders rejected nodes for
            for fw in self.frameworks.values():
                fw.events_by_plugin[EXTENDER_NAME] = [ClusterEventWithHint(ClusterEvent(WILDCARD, ActionType.ALL))]
        self._recording: ScheduleAttempt | None = None
        self.queue = SchedulingQueue(
            self.frameworks, self._clock,
            pod_initial_backoff=pod_initial_backoff, pod_max_backoff=pod_max_backoff,
            nominator=self.handle.nominator,
        )
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.detail = detail
        self.nodes: dict[str, Mapping[str, Any]] = {}
        self.bindings: list[tuple[str, str]] = []
        # (victim key, preemptor key, node): every eviction preemption asked for
        self.preemptions: list[tuple[str, str, str]] = []
        self._attempt: ScheduleAttempt | None = None
        # uid -> (cycle, queued pod, node, assumed pod) of the pods waiting at Permit
        self._waiting_binds: dict[str, tuple[_Cycle, QueuedPodInfo, str, Mapping[str, Any]]] = {}

    # ----------------------------------------------------------------- nodes
    def add_node(self, node: Mapping[str, Any]) -> None:
        name = (node.get("metadata") or {}).get("name", "")
        if name in self.nodes:
            self.update_node(node)
            return
        self.nodes[name] = node
        self.table.add_node(node)
        self.queue.move_all_to_active_or_backoff(ClusterEvent(NODE, ActionType.ADD), None, node)

    def update_node(self, node: Mapping[str, Any]) -> None:
        name = (node.get("metadata") or {}).get("name", "")
        old = self.nodes.get(name)
        if old is None:
            self.add_node(node)
            return
        self.nodes[name] = node
        self.table.update_node(node)
        for evt in node_scheduling_properties_change(node, old):
            self.queue.move_all_to_active_or_backoff(evt, old, node)

    def remove_node(self, node: Mapping[str, Any] | str) -> None:
        name = node if isinstance(node, str) else (node.get("metadata") or {}).get("name", "")
        old = self.nodes.pop(name, None)
        if old is None:
            return
        self.queue.move_all_to_active_or_backoff(ClusterEvent(NODE, ActionType.DELETE), old, None)
        self.table.remove_node(name)

    # ------------------------------------------------------------------ pods
    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """A pod appeared: account it on its node if bound, else queue it for its profile."""
        key = pod_key(pod)
        if key in self.pods:
            self.update_pod(pod)
            return
        self.pods[key] = pod
        pi = PodInfo(pod)
        if pi.node_name:
            self.table.add_pod(pi)
            self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, pod)
        elif pi.scheduler_name in self.frameworks and not (pod.get("metadata") or {}).get("deletionTimestamp"):
            self.queue.add(pi)

    def update_pod(self, pod: Mapping[str, Any]) -> None:
        key = pod_key(pod)
        old = self.pods.get(key)
        if old is None:
            self.add_pod(pod)
            return
        self.pods[key] = pod
        if self._confirms_assumed(key, old, pod):
            self.queue.delete(key)
            return
        pi = PodInfo(pod)
        was_assigned = bool((old.get("spec") or {}).get("nodeName"))
        if pi.node_name:
            assumed = self.table.pod_info(key)
            self.table.add_pod(pi)
            if not was_assigned:
                self.queue.delete(key)
                if assumed is None:
                    self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, pod)
                return
            for evt in pod_scheduling_properties_change(pod, old):
                self.queue.move_all_to_active_or_backoff(evt, old, pod)
        elif self._waiting_binds and self.table.pod_info(key) is not None:
            # upstream updatePodInSchedulingQueue: an assumed pod (waiting at Permit) stays put
            return
        elif pi.scheduler_name in self.frameworks:
            self.queue.update(old, pi)

    def _confirms_assumed(self, key: str, old: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
        """The binding of a pod this scheduler assumed, changing nothing else it reads.

        upstream's cache.AddPod of an assumed pod swaps in the informer's copy; the assumed
        PodInfo already accounts exactly this pod on this node, so it is kept (no parse, no
        row change for the plugins' indexes). Only spec.nodeName, the status conditions and
        metadata.resourceVersion may differ from the assumed copy.
        """
        if (old.get("spec") or {}).get("nodeName"):
            return False
        assumed = self.table.pod_info(key)
        if assumed is None:
            return False
        spec, mine = pod.get("spec") or {}, assumed.pod
        if not spec.get("nodeName") or spec != (mine.get("spec") or {}):
            return False
        return _same_except(pod.get("metadata"), mine.get("metadata"), "resourceVersion") and _same_except(
            pod.get("status"), mine.get("status"), "conditions"
        )

    def remove_pod(self, pod: Mapping[str, Any] | str) -> None:
        key = pod if isinstance(pod, str) else pod_key(pod)
        old = self.pods.pop(key, None)
        self.handle.forget_pod_info(key)
        if self._waiting_binds and old is not None:
            # upstream deletePodFromSchedulingQueue: RejectWaitingPod
            self.handle.reject_waiting_pod(waiting_pod_uid(old))
        if self.table.remove_pod(key) is not None and old is not None:
            self.queue.delete(key)
            self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), old, None)
        else:
            self.queue.delete(key)

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
        if self._waiting_binds:
            resumed = self._resume_waiting()
            if resumed is not None:
                return resumed
        qpi = self.queue.pop()
        if qpi is None:
            return None
        pi = qpi.pod_info
        fw = self.frameworks.get(pi.scheduler_name)
        if fw is None or (pi.pod.get("metadata") or {}).get("deletionTimestamp") or self.table.pod_info(pi.key) is not None:
            self.queue.done(pi.key)
            return None
        try:
            attempt = self._schedule(fw, pi, qpi, evaluate_only=False)
        finally:
            # work upstream runs in goroutines (async preemption) finishes with the attempt
            self.handle.drain_after_cycle()
            self._attempt = None
            self._recording = None
        attempt.trim(self.detail)
        return attempt

    def evaluate(self, pod: Mapping[str, Any], *, score_single: bool = True) -> ScheduleAttempt:
        """Run PreFilter..Score and selectHost for a pod without side effects (no queue, no bind).

        With score_single, a lone feasible node is still scored (upstream skips scoring).
        """
        pi = PodInfo(pod)
        fw = self.frameworks.get(pi.scheduler_name)
        if fw is None:
            raise KeyError(f"profile not found for scheduler name {pi.scheduler_name!r}")
        saved = self.next_start_node_index
        try:
            return self._schedule(fw, pi, None, evaluate_only=True, score_single=score_single)
        finally:
            self.next_start_node_index = saved
            self._recording = None

    def run(self, max_attempts: int | None = None) -> list[ScheduleAttempt]:
        """schedule_one until nothing is ready (or max_attempts)."""
        out: list[ScheduleAttempt] = []
        while max_attempts is None or len(out) < max_attempts:
            a = self.schedule_one()
            if a is None:
                if self.queue.active or (self.queue.pop_from_backoff and (self.queue.backoff or self.queue.error_backoff)):
                    continue
                break
            out.append(a)
        return out

    def _schedule(
        self, fw: Framework, pi: PodInfo, qpi: QueuedPodInfo | None, *, evaluate_only: bool, score_single: bool = False
    ) -> ScheduleAttempt:
        attempt = ScheduleAttempt(pi.pod, fw.profile_name, self._clock())
        if not evaluate_only:
            self._attempt = attempt
        if self.record_results:
            attempt.point_results = {}
        self._recording = attempt
        state = CycleState(pi)
        cyc = _Cycle(state, pi, fw, attempt)
        attempt._names = self.table.names
        all_rows = self.table.order
        attempt._all_rows = all_rows
        attempt.num_all_nodes = n_all = len(all_rows)

        status: Status | None
        nominating: NominatingInfo | None = _failure_nominating_info()
        if n_all == 0:
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, error=NoNodesAvailable())
        else:
            status = self._find_nodes_that_fit(cyc, all_rows)
            if status is None and len(cyc.feasible) == 0:
                fit_err = FitError(pi.name, n_all, cyc.diagnosis)
                nominating = None
                if fw.has_post_filter_plugins() and not evaluate_only:
                    rec = attempt.point_results
                    _r, pst = fw.run_post_filter(state, pi, cyc.diagnosis.node_to_status, rec)
                    if rec is not None:
                        # the nodes PostFilter was told about (NodeToStatus' explicit ones)
                        rec["postFilterNodes"] = {"": list(cyc.diagnosis.node_to_status.explicit())}
                    attempt.post_filter_status = pst
                    cyc.diagnosis.post_filter_msg = pst.message()
                    if _r is not None and _r.nominating_info is not None:
                        nominating = _r.nominating_info
                        if nominating.mode == NominatingInfo.MODE_OVERRIDE:
                            attempt.nominated_node = nominating.node_name or None
                status = Status(Code.UNSCHEDULABLE, error=fit_err)
            elif status is None:
                status = self._prioritize_and_select(cyc, score_single or evaluate_only)
        if status is not None:
            attempt.status = status
            if not evaluate_only and qpi is not None:
                self._handle_failure(qpi, status, cyc.diagnosis, nominating)
            return attempt
        if evaluate_only:
            return attempt
        assert qpi is not None and attempt.node is not None
        self._assume_and_bind(cyc, qpi, attempt.node)
        return attempt

    # ------------------------------------------------------ filter & score
    def _find_nodes_that_fit(self, cyc: _Cycle, all_rows: np.ndarray) -> Status | None:
        fw, state, pi, attempt, diag = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt, cyc.diagnosis
        pre_res, s, plugins_with_nodes = fw.run_pre_filter(state, pi, NodeInfoList(self.table, all_rows), attempt.point_results)
        diag.unschedulable_plugins = set(plugins_with_nodes)
        if s is not None and not s.is_success():
            if not s.is_rejected():
                return s
            diag.node_to_status = NodeToStatus(absent_status=s)
            diag.pre_filter_msg = s.message()
            diag.add_plugin_status(s)
            attempt.pre_filter_status = s
            return None

        # evaluateNominatedNode: the node an earlier preemption nominated is tried first
        nnn = nominated_node_name(pi.pod)
        if nnn:
            nominated_row = self.table.row_of(nnn)
            if nominated_row is not None and self._evaluate_nominated_node(cyc, nominated_row):
                return None

        rows = all_rows
        if pre_res is not None and not pre_res.all_nodes():
            wanted = pre_res.node_names or set()
            names = self.table.names
            rows = all_rows[np.fromiter((names[r] in wanted for r in all_rows.tolist()), dtype=bool, count=len(all_rows))]
            msg = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins_with_nodes))}]"
            attempt.pre_filter_excluded_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg, plugin="PreFilterResult")
        n = len(rows)
        if n == 0:
            cyc.feasible = rows
            absent: Status | None  # declared here: reassigned below from an optional status
            absent = attempt.pre_filter_excluded_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            diag.node_to_status = NodeToStatus(absent_status=Status(absent.code, *absent.reasons))
            if cyc.nominated_status is not None:
                diag.node_to_status.set(*cyc.nominated_status)
                diag.add_plugin_status(cyc.nominated_status[1])
            attempt._feasible_rows = rows
            return None

        pct = fw.percentage_of_nodes_to_score
        if pct is None:
            pct = self.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(pct, n)
        if not self._extender_filters and not fw.has_score_plugins() and not self._extender_prioritizers:
            to_find = 1
        start = self.next_start_node_index % n
        rotated = np.concatenate((rows[start:], rows[:start])) if start else rows
        if not fw.has_filter_plugins():
            feasible = rotated[:to_find]
            cyc.feasible = feasible
            attempt._feasible_rows = feasible
            self.next_start_node_index = (self.next_start_node_index + len(feasible)) % len(all_rows)
            if self.extenders:
                return self._filter_by_extenders(cyc)
            return None

        out = fw.apply_nominated_pods(state, pi, fw.run_filter(state, pi, rotated))
        attempt.filter_plugins = out.plugins_run
        passed = out.passed_pos
        cut = n - 1
        if len(passed) > to_find:
            cut = int(passed[to_find - 1])
            passed = passed[:to_find]
        # an Error from a Filter plugin aborts the cycle (first one in evaluation order)
        err_pos, err = None, None
        for rej in out.rejections:
            bad = np.flatnonzero((rej.pos <= cut) & ~np.isin(rej.codes, (2, 3, 6)))
            if len(bad) and (err_pos is None or int(rej.pos[bad[0]]) < err_pos):
                err_pos = int(rej.pos[bad[0]])
                err = rej.status(int(bad[0]), int(rotated[err_pos]))
        n_rejected = sum(int((rej.pos <= cut).sum()) for rej in out.rejections)
        self.next_start_node_index = (self.next_start_node_index + len(passed) + n_rejected) % len(all_rows)
        attempt._filter = out
        attempt._processed_upto = cut
        feasible = rotated[passed]
        cyc.feasible = feasible
        attempt._feasible_rows = feasible
        if err is not None:
            return err
        for rej in out.rejections:
            if (rej.pos <= cut).any():
                diag.unschedulable_plugins.add(rej.plugin)
        absent = attempt.pre_filter_excluded_status
        extra = cyc.nominated_status
        if extra is not None:
            # upstream records the nominated node's failure in the shared NodeToStatus even
            # when PreFilterResult keeps the node out of the full pass
            if self.table.name_to_row.get(extra[0]) in set(rows.tolist()):
                extra = None
            else:
                diag.add_plugin_status(extra[1])

        def load() -> dict[str, Status]:
            d = {k: v for k, v in attempt.filter_statuses().items() if v.plugin != "PreFilterResult"}
            if extra is not None:
                d[extra[0]] = extra[1]
            return d

        diag.node_to_status = NodeToStatus(
            absent_status=Status(absent.code, *absent.reasons) if absent else None,
            loader=load,
            size=n_rejected + (extra is not None),
        )
        if self.extenders:
            return self._filter_by_extenders(cyc)
        return None

    def _evaluate_nominated_node(self, cyc: _Cycle, row: int) -> bool:
        """evaluateNominatedNode: True when the nominated node passes every filter."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        rows = np.array([row], dtype=np.intp)
        if fw.has_filter_plugins():
            out = fw.apply_nominated_pods(state, pi, fw.run_filter(state, pi, rows))
            if len(out.passed_pos) == 0:
                st: Status | None  # declared here: reassigned below from an optional status
                st = out.rejections[0].status(0, row)
                if st.is_rejected():
                    cyc.nominated_status = (self.table.row_names[row], st)
                return False
            attempt.filter_plugins = out.plugins_run
            attempt._filter = out
            attempt._processed_upto = 0
        cyc.feasible = rows
        attempt._feasible_rows = rows
        # findNodesThatPassExtenders on the nominated node; an error only ends the shortcut
        if self.extenders and (self._filter_by_extenders(cyc, nominated=True) is not None or not len(cyc.feasible)):
            name = self.table.row_names[row]
            st = attempt._extender_statuses.get(name)
            if st is not None:
                cyc.nominated_status = (name, st)
            attempt._extender_filter = []
            attempt._extender_statuses = {}
            attempt._plugin_feasible_rows = None
            return False
        return True

    def _prioritize_and_select(self, cyc: _Cycle, score_single: bool) -> Status | None:
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        feasible = cyc.feasible
        names = self.table.names
        if len(feasible) == 1 and not score_single:
            attempt.node = names[int(feasible[0])]
            return None
        if not fw.has_score_plugins() and not self.extenders:
            sc = ScoreOutcome(feasible)
            sc.total[:] = 1
        else:
            s = fw.run_pre_score(state, pi, NodeInfoList(self.table, feasible), attempt.point_results)
            if s is not None and not s.is_success():
                return s
            res = fw.run_score(state, pi, feasible)
            if isinstance(res, Status):
                return res
            sc = res
            if self.extenders:
                self._prioritize_by_extenders(cyc, sc)
        attempt._score = sc
        attempt.selected_row = row = self._select_host(sc)
        attempt.node = str(names[row])
        return None

    def _select_host(self, sc: ScoreOutcome) -> int:
        """selectHost: uniformly random among the highest totals, from the seeded RNG; the row."""
        best = int(sc.total.max())
        ties = np.flatnonzero(sc.total == best)
        pick = int(ties[self.rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])
        return int(sc.rows[pick])

    # -------------------------------------------------------------- binding
    def _assume_and_bind(self, cyc: _Cycle, qpi: QueuedPodInfo, node: str) -> None:
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        assumed = pi.assigned_to(node)
        assumed_pod = assumed.pod
        self.table.add_pod(assumed, node)
        self.queue.nominator.delete(pi.key)
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
            # upstream's binding cycle blocks in WaitOnPermit in its goroutine; here it
            # resumes in a later schedule_one once the pod is allowed, rejected or timed out
            attempt.status = s
            self._waiting_binds[waiting_pod_uid(assumed_pod)] = (cyc, qpi, node, assumed_pod)
            return
        self._binding_cycle(cyc, qpi, node, assumed_pod)

    def _binding_cycle(self, cyc: _Cycle, qpi: QueuedPodInfo, node: str, assumed_pod: Mapping[str, Any]) -> None:
        """bindingCycle after WaitOnPermit: PreBind, Bind (or an extender), PostBind."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        rec = attempt.point_results
        self.queue.done(pi.key)
        s = fw.run_pre_bind(state, pi, node, rec)
        if s is None or s.is_success():
            bound, s = self._bind_by_extenders(pi, node) if self.extenders else (False, None)
            if not bound:
                s = fw.run_bind(state, pi, node, rec)
        if s is not None and not s.is_success():
            self._binding_failed(cyc, qpi, node, assumed_pod, s)
            return
        fw.run_post_bind(state, pi, node)
        attempt.bound = True
        self.queue.delete(pi.key)
        self.queue.move_all_to_active_or_backoff(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, assumed_pod)

    def _binding_failed(
        self, cyc: _Cycle, qpi: QueuedPodInfo, node: str, assumed_pod: Mapping[str, Any], st: Status
    ) -> None:
        """handleBindingCycleError: Unreserve, forget the assumed pod, requeue it."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        fw.run_unreserve(state, pi, node)
        self.table.remove_pod(pi.key)
        if st.is_rejected():
            d = Diagnosis()
            d.node_to_status.set(node, st)
            d.add_plugin_status(st)
            st = Status(st.code, error=FitError(pi.name, 1, d))
            attempt.status = st
            self._handle_failure(qpi, st, d, _failure_nominating_info())
        else:
            attempt.status = st
            self._handle_failure(qpi, st, Diagnosis(), _failure_nominating_info())
        attempt.node = None
        self.queue.move_all_to_active_or_backoff(
            ClusterEvent(ASSIGNED_POD, ActionType.DELETE), assumed_pod, None,
            (lambda q: q.key != pi.key) if st.is_rejected() else None,
        )

    # --------------------------------------------------------- waiting pods
    def is_waiting(self, key: str) -> bool:
        """Whether the pod `key` (namespace/name) is assumed and waiting at Permit."""
        return any(w[1].key == key for w in self._waiting_binds.values())

    def waiting_resolved(self) -> bool:
        """Whether a waiting pod can go on now: allowed, rejected, or past its deadline."""
        now = self._clock()
        for uid in self._waiting_binds:
            wp = self.handle.waiting_pods.get(uid)
            if wp is None or wp.result is not None:
                return True
            deadline = wp.deadline()
            if deadline is not None and now >= deadline:
                return True
        return False

    def _resume_waiting(self) -> ScheduleAttempt | None:
        """Finish the binding cycle of the first waiting pod that can go on (in the order
        they started waiting): bind it when allowed, else fail it. Its attempt is returned
        again, now bound or failed; None when every waiting pod still waits."""
        for uid, (cyc, qpi, node, assumed_pod) in list(self._waiting_binds.items()):
            s = cyc.fw.wait_on_permit(assumed_pod)
            if s is not None and s.is_wait():
                continue
            del self._waiting_binds[uid]
            attempt = cyc.attempt
            attempt.status = None
            self._attempt = attempt
            self._recording = attempt
            if qpi.key not in self.pods:
                # deleted while waiting (remove_pod rejected it and forgot the assumed pod;
                # upstream's ForgetPod then fails and only Unreserve runs): nothing to report
                cyc.fw.run_unreserve(cyc.state, cyc.pod_info, node)
                self.queue.done(qpi.key)
                continue
            try:
                if s is not None:
                    self._binding_failed(cyc, qpi, node, assumed_pod, s)
                else:
                    self._binding_cycle(cyc, qpi, node, assumed_pod)
            finally:
                self.handle.drain_after_cycle()
                self._attempt = None
                self._recording = None
            attempt.trim(self.detail)
            return attempt
        return None

    # ------------------------------------------------------------ extenders
    def _record_extender_response(self, verb: str, extender: Any, response: Any) -> None:
        """Keep an extender's response on the attempt being run (when recording)."""
        attempt = self._recording
        if attempt is not None and attempt.point_results is not None:
            attempt.extender_responses.setdefault(verb, {})[extender.name] = response

    def _filter_by_extenders(self, cyc: _Cycle, *, nominated: bool = False) -> Status | None:
        """findNodesThatPassExtenders over cyc.feasible: each interested filter extender in
        turn keeps a subset; the nodes it fails get its message as their status. An extender
        error fails the attempt unless the extender is ignorable. For the nominated-node
        shortcut (`nominated`), the rejection is not counted against "Extender"."""
        attempt, diag, pod = cyc.attempt, cyc.diagnosis, cyc.pod_info.pod
        table = self.table
        rows = cyc.feasible
        before = len(rows)
        statuses: dict[str, Status] = {}
        sent: set[str] = set()
        err: Status | None = None
        for ext in self.extenders:
            if not len(rows):
                break
            if not ext.is_filter() or not ext.is_interested(pod):
                continue
            names = [table.row_names[r] for r in rows.tolist()]
            try:
                res = ext.filter(pod, names, lambda rs=rows: [table.nodes[r] for r in rs.tolist()])  # type: ignore[misc]
            except ExtenderError as e:
                if ext.is_ignorable():
                    continue
                err = Status.from_error(e)
                break
            self._record_extender_response("filter", ext, res.raw)
            sent.update(names)
            kept = res.node_names or []
            failed = {**{n: (Code.UNSCHEDULABLE, m) for n, m in res.failed.items()},
                      **{n: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, m) for n, m in res.failed_and_unresolvable.items()}}
            for n, (code, msg) in failed.items():
                statuses[n] = Status(code, msg, plugin=ext.name)
            keep = set(kept)
            verdicts = {n: PASSED if n in keep else (failed[n][1] if n in failed else "") for n in names}
            attempt._extender_filter.append((ext.name, verdicts))
            if ext.name not in attempt.extender_names:
                attempt.extender_names.append(ext.name)
            seen: set[str] = set()
            new_rows = []
            for n in kept:
                if n not in seen:
                    seen.add(n)
                    new_rows.append(table.name_to_row[n])
            rows = np.array(new_rows, dtype=np.intp)
        if attempt._extender_filter:
            attempt._plugin_feasible_rows = cyc.feasible
        cyc.feasible = rows
        attempt._feasible_rows = rows
        if statuses:
            attempt._extender_statuses.update(statuses)
            old = diag.node_to_status
            new_names = [n for n in statuses if n in sent]
            size = len(old) + len(new_names) if len(new_names) == len(statuses) else None

            def load(old: NodeToStatus = old, extra: dict[str, Status] = statuses) -> dict[str, Status]:
                return {**old.explicit(), **extra}

            if size is None:
                merged = NodeToStatus(absent_status=old.absent_status)
                for n, st in load().items():
                    merged.set(n, st)
                diag.node_to_status = merged
            else:
                diag.node_to_status = NodeToStatus(absent_status=old.absent_status, loader=load, size=size)
        if len(rows) != before and not nominated:
            diag.unschedulable_plugins.add(EXTENDER_NAME)
        return err

    def _prioritize_by_extenders(self, cyc: _Cycle, sc: ScoreOutcome) -> None:
        """prioritizeNodes' extender part: each interested prioritizer's score (0..10) is
        scaled to the node score range and weighted; a failing extender gives no scores."""
        pod, attempt = cyc.pod_info.pod, cyc.attempt
        table = self.table
        rows = sc.rows
        names: list[str] | None = None
        pos: dict[str, int] = {}
        for ext in self.extenders:
            if not ext.is_prioritizer() or not ext.is_interested(pod):
                continue
            if names is None:
                names = [table.row_names[r] for r in rows.tolist()]
                pos = {n: i for i, n in enumerate(names)}
            try:
                scores, weight = ext.prioritize(pod, names, lambda: [table.nodes[r] for r in rows.tolist()])
            except ExtenderError:
                continue  # upstream logs it: the other plugins and extenders decide
            scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
            self._record_extender_response(
                "prioritize", ext, [{"Host": h, "Score": v * weight * scale} for h, v in scores])
            raw = np.zeros(len(rows), dtype=np.int64)
            for host, score in scores:
                i = pos.get(host)
                if i is not None:
                    raw[i] += score
            final = raw * weight * scale
            sc.plugins.append(ext.name)
            sc.raw.append(raw)
            sc.normalized.append(raw * scale)
            sc.final.append(final)
            sc.total += final
            if ext.name not in attempt.extender_names:
                attempt.extender_names.append(ext.name)

    def _bind_by_extenders(self, pi: PodInfo, node: str) -> tuple[bool, Status | None]:
        """extendersBinding: the first interested binder extender binds (an ignorable one that
        fails is skipped). The extender cannot reach the simulated API server, so its binding
        is written here, through the scheduler's binder, as the extender's effect."""
        for ext in self.extenders:
            if not ext.is_binder() or not ext.is_interested(pi.pod):
                continue
            try:
                response = ext.bind(pi.pod, node)
            except ExtenderError as e:
                if ext.is_ignorable():
                    continue
                return True, Status.from_error(e)
            self._record_extender_response("bind", ext, response)
            try:
                self.handle.bind(pi.pod, node)
            except PluginCrashed:
                raise  # an admission hook raised: ends the run
            except Exception as e:  # noqa: BLE001 - a failed write is an Error status, as for DefaultBinder
                return True, Status.from_error(e)
            return True, None
        return False, None

    def _handle_failure(
        self, qpi: QueuedPodInfo, status: Status, diagnosis: Diagnosis, nominating: NominatingInfo | None = None
    ) -> None:
        """handleSchedulingFailure: record rejecting plugins, requeue the pod, then update
        the nominator and the pod's status.nominatedNodeName from `nominating`."""
        if isinstance(status.error, FitError):
            qpi.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(diagnosis.pending_plugins)
        current = self.pods.get(qpi.key)
        if current is None or (current.get("spec") or {}).get("nodeName"):
            self.queue.done(qpi.key)
        else:
            if current is not qpi.pod_info.pod:
                qpi.pod_info = PodInfo(current)
            self.queue.add_unschedulable_if_not_present(qpi)
        self.queue.nominator.add(qpi.pod_info, nominating)
        if (
            nominating is not None and nominating.mode == NominatingInfo.MODE_OVERRIDE
            and current is not None and not (current.get("spec") or {}).get("nodeName")
            and nominated_node_name(current) != nominating.node_name
        ):
            self.handle.patch_nominated_node(current, nominating.node_name)
