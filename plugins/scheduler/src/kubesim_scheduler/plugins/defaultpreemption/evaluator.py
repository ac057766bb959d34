"""Evaluator: the preemption flow shared by preemption plugins.

Preempt: check eligibility, dry-run preemption on the nodes where it might help, pick the
best candidate, then evict its victims and clear lower-priority nominations on that node.
The dry run is sequential from the (seeded) random offset, stopping where upstream's
parallel search would once enough candidates are found.
"""

# upstream: pkg/scheduler/framework/preemption/preemption.go (Evaluator, Preempt,
# findCandidates, DryRunPreemption, SelectCandidate, prepareCandidate,
# prepareCandidateAsync, getLowerPriorityNominatedPods, clearNominatedNodeName)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from kubesim.plugins.crash import PluginCrashed

from ...extender import call_extenders_for_preemption
from ...framework.cycle_state import CycleState
from ...framework.diagnosis import Diagnosis, FitError, NodeToStatus
from ...framework.interface import NominatingInfo, PostFilterResult
from ...framework.nominator import nominated_node_name
from ...framework.pod_info import PodInfo, pod_key
from ...framework.status import Code, Status
from .candidate import Candidate, ScoreFunc, Victims, pick_one_node_for_preemption
from .pdb import PDB, parse_pdbs
from .podutil import TickingClock, pod_priority

if TYPE_CHECKING:
    from ...framework.handle import Handle

__all__ = ["MSG_NOT_HELPFUL", "MSG_NO_VICTIMS", "Evaluator", "PreemptionInterface", "aggregate_errors"]

MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_VICTIMS = "No preemption victims found for incoming pod"


class PreemptionInterface(Protocol):
    """What a preemption plugin supplies to the Evaluator (upstream preemption.Interface)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]: ...

    def pod_eligible_to_preempt_others(
        self, pod: Mapping[str, Any], nominated_node_status: Status | None
    ) -> tuple[bool, str]: ...

    def select_victims_on_node(
        self, state: CycleState, pod_info: PodInfo, row: int, pdbs: Sequence[PDB]
    ) -> tuple[list[PodInfo], int, Status | None]: ...

    def ordered_score_funcs(self, victims: Mapping[str, Victims]) -> list[ScoreFunc] | None: ...


def aggregate_errors(errs: Sequence[Status]) -> Status:
    """utilerrors.NewAggregate(errs) as an Error status (duplicates folded, '[a, b]')."""
    msgs: list[str] = []
    for e in errs:
        m = e.message()
        if m not in msgs:
            msgs.append(m)
    text = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
    return Status.from_error(text)


class Evaluator:
    """Runs preemption for one plugin; `preempting` holds preemptors whose async eviction runs."""

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface, async_preemption: bool) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.async_preemption = async_preemption
        self.preempting: set[str] = set()
        # GetPodStartTime's time.Now(): later on every read, as upstream's wall clock
        self.clock = TickingClock(self.now_ns)

    def is_pod_running_preemption(self, key: str) -> bool:
        return key in self.preempting

    # ------------------------------------------------------------------ preempt
    def preempt(
        self, state: CycleState, pod_info: PodInfo, m: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt: a nominating result and Success, or why preemption cannot help."""
        # 0) the latest version of the pod
        pod = self.handle.get_pod(pod_info.key)
        if pod is None:
            return None, Status.from_error(f'pods "{pod_info.name}" not found')
        if pod is not pod_info.pod:
            pod_info = PodInfo(pod)

        # 1) is the pod allowed to preempt?
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, m.get(nominated_node_name(pod)))
        if not ok:
            return None, Status(Code.UNSCHEDULABLE, msg)

        # 2) candidates
        all_rows = self.handle.node_table.order
        candidates, statuses, errs = self.find_candidates(state, all_rows, pod_info, m)
        if errs and not candidates:
            return None, aggregate_errors(errs)
        if not candidates:
            statuses.absent_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NOT_HELPFUL)
            fit_error = FitError(pod_info.name, len(all_rows), Diagnosis(node_to_status=statuses))
            return PostFilterResult(NominatingInfo("", NominatingInfo.MODE_OVERRIDE)), Status(Code.UNSCHEDULABLE, str(fit_error))

        # 3) extenders may narrow the candidates
        if self.handle.extenders:
            candidates, s = call_extenders_for_preemption(
                self.handle.extenders, pod, candidates, self.interface.candidates_to_victims_map,
                self.handle.node_table, self.handle.record_extender_result,
            )
            if s is not None:
                return None, s

        # 4) the best candidate
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.UNSCHEDULABLE, "no candidate node for preemption")

        # 5) evict the victims (now, or once the attempt is over)
        if self.async_preemption:
            self.prepare_candidate_async(best, pod)
        else:
            s = self.prepare_candidate(best, pod)
            if s is not None and not s.is_success():
                return None, s
        return PostFilterResult(NominatingInfo(best.name, NominatingInfo.MODE_OVERRIDE)), Status()

    def find_candidates(
        self, state: CycleState, all_rows: np.ndarray, pod_info: PodInfo, m: NodeToStatus
    ) -> tuple[list[Candidate], NodeToStatus, list[Status]]:
        """findCandidates: dry-run preemption on the nodes whose filter status is Unschedulable."""
        if not len(all_rows):
            return [], NodeToStatus(), [Status.from_error("no nodes available")]
        names = self.handle.node_table.row_names
        potential = [r for r in all_rows.tolist() if m.get(names[r]).code == Code.UNSCHEDULABLE]
        if not potential:
            return [], NodeToStatus(), []
        pdbs = parse_pdbs(self.handle.list_objects("PodDisruptionBudget", None))
        offset, num = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod_info, potential, pdbs, offset, num)

    def dry_run_preemption(
        self, state: CycleState, pod_info: PodInfo, potential_rows: Sequence[int],
        pdbs: Sequence[PDB], offset: int, num_candidates: int,
    ) -> tuple[list[Candidate], NodeToStatus, list[Status]]:
        """DryRunPreemption: victims per node from `offset`, until enough candidates exist.

        Candidates that violate no PDB come first; each list holds at most num_candidates.
        """
        names = self.handle.node_table.row_names
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses = NodeToStatus()
        errs: list[Status] = []
        n = len(potential_rows)
        check = getattr(self.interface, "no_victims_check", None)
        no_victims = check() if check is not None else None
        priority = pod_priority(pod_info.pod)
        for i in range(n):
            row = int(potential_rows[(offset + i) % n])
            name = names[row]
            if no_victims is not None and no_victims(priority, row):
                statuses.set(name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS))
                continue
            victims, num_violating, st = self.interface.select_victims_on_node(state.clone(), pod_info, row, pdbs)
            if (st is None or st.is_success()) and victims:
                c = Candidate(name, Victims(list(victims), num_violating))
                bucket = non_violating if num_violating == 0 else violating
                if len(bucket) < num_candidates:
                    bucket.append(c)
                if non_violating and len(non_violating) + len(violating) >= num_candidates:
                    break
                continue
            if st is None or st.is_success():
                st = Status.from_error(f'expected at least one victim pod on node "{name}"')
            if st.code == Code.ERROR:
                errs.append(st)
            statuses.set(name, st)
        return non_violating + violating, statuses, errs

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """SelectCandidate: the only one, or pickOneNodeForPreemption over all of them."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims = self.interface.candidates_to_victims_map(candidates)
        funcs = self.interface.ordered_score_funcs(victims)
        name = pick_one_node_for_preemption(victims, funcs, self.clock)
        if name in victims:
            return Candidate(name, victims[name])
        return candidates[0]

    def now_ns(self) -> int:
        """GetPodStartTime's time.Now() for pods that have not started, in epoch nanoseconds."""
        return round(self.handle.wall_time() * 1e9)

    # ------------------------------------------------------------- evictions
    def prepare_candidate(self, c: Candidate, pod: Mapping[str, Any]) -> Status | None:
        """prepareCandidate: evict the victims now, then clear lower-priority nominations."""
        for victim in c.victims.pods:
            if (victim.pod.get("metadata") or {}).get("deletionTimestamp"):
                continue  # already being deleted
            try:
                self.handle.preempt_pod(victim.pod, pod, c.name)
            except PluginCrashed:
                raise  # an admission hook raised: ends the run
            except Exception as e:  # noqa: BLE001 - a failed API call is an Error status
                return Status.from_error(e)
        self.clear_nominated_node_name(self.lower_priority_nominated_pods(pod, c.name))
        return None

    def prepare_candidate_async(self, c: Candidate, pod: Mapping[str, Any]) -> None:
        """prepareCandidateAsync: mark the preemptor, evict once the cycle is over.

        All victims but the last go first; the preemptor leaves `preempting` before the last
        one so that its deletion event can requeue it. On failure, or when every victim was
        already gone, the preemptor is activated.
        """
        victims = [v for v in c.victims.pods if not (v.pod.get("metadata") or {}).get("deletionTimestamp")]
        if not victims:
            return
        key = pod_key(pod)
        self.preempting.add(key)

        def run() -> None:
            failed = False
            all_gone = True
            try:
                self.clear_nominated_node_name(self.lower_priority_nominated_pods(pod, c.name))
            except PluginCrashed:
                raise
            except Exception:  # noqa: BLE001 - not critical, upstream only records it
                failed = True
            for victim in victims[:-1]:
                try:
                    if self.handle.preempt_pod(victim.pod, pod, c.name):
                        all_gone = False
                except PluginCrashed:
                    raise
                except Exception:  # noqa: BLE001 - the remaining victims are cancelled
                    failed = True
                    break
            self.preempting.discard(key)
            try:
                if self.handle.preempt_pod(victims[-1].pod, pod, c.name):
                    all_gone = False
            except PluginCrashed:
                raise
            except Exception:  # noqa: BLE001
                failed = True
            if failed or all_gone:
                self.handle.activate([key])

        self.handle.run_after_cycle(run)

    def lower_priority_nominated_pods(self, pod: Mapping[str, Any], node_name: str) -> list[Mapping[str, Any]]:
        """getLowerPriorityNominatedPods: pods nominated to the node with lower priority."""
        prio = int((pod.get("spec") or {}).get("priority") or 0)
        return [pi.pod for pi in self.handle.nominated_pods_for_node(node_name) if pi.priority < prio]

    def clear_nominated_node_name(self, pods: Sequence[Mapping[str, Any]]) -> None:
        """clearNominatedNodeName: patch status.nominatedNodeName to '' where it is set."""
        for p in pods:
            current = self.handle.get_pod(pod_key(p)) or p
            if nominated_node_name(current):
                self.handle.patch_nominated_node(current, "")
