"""The scheduling cycle: schedulePod, then the failure path or the binding cycle.

Follows kubernetes pkg/scheduler/schedule_one.go: schedulePod (PreFilter, Filter over nodes
from a rotating start index until numFeasibleNodesToFind feasible nodes are found,
evaluateNominatedNode first for a nominated pod, findNodesThatPassExtenders), PostFilter on
failure, prioritizeNodes (PreScore, Score, NormalizeScore, extenders) and selectHost with
ties broken by a seeded RNG. Every node is filtered with the higher-priority pods
nominated to it.
"""

from __future__ import annotations

import random

import attrs
import numpy as np

from .attempt import ScheduleAttempt
from .binding import BindingCycle
from .cycle import Cycle
from .extender_calls import ExtenderCalls
from .failure import FailureHandler, failure_nominating_info
from .framework.cycle_state import CycleState
from .framework.diagnosis import FitError, NodeToStatus, NoNodesAvailable
from .framework.interface import NominatingInfo
from .framework.node_info import NodeInfoList
from .framework.node_table import NodeTable
from .framework.nominator import nominated_node_name
from .framework.pod_info import PodInfo
from .framework.queued_pod_info import QueuedPodInfo
from .framework.runtime import Framework, ScoreOutcome
from .framework.status import Code, Status

__all__ = ["MIN_FEASIBLE_NODES_TO_FIND", "SchedulingCycle", "num_feasible_nodes_to_find"]

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


@attrs.define(eq=False)
class SchedulingCycle:
    """schedulePod over the node table; hands placed pods to the binding cycle."""

    _table: NodeTable
    _rng: random.Random
    _extenders: ExtenderCalls
    _binding: BindingCycle
    _failures: FailureHandler
    percentage_of_nodes_to_score: int
    next_start_node_index: int = 0

    def schedule(
        self,
        fw: Framework,
        pi: PodInfo,
        qpi: QueuedPodInfo | None,
        attempt: ScheduleAttempt,
        *,
        evaluate_only: bool,
        score_single: bool = False,
    ) -> None:
        """One scheduling cycle for `pi`, its outcome written on `attempt`.

        evaluate_only: no PostFilter, no failure handling, no binding (`qpi` may be None)."""
        state = CycleState(pi)
        cyc = Cycle(state, pi, fw, attempt)
        attempt._names = self._table.names
        all_rows = self._table.order
        attempt._all_rows = all_rows
        attempt.num_all_nodes = n_all = len(all_rows)

        status: Status | None
        nominating: NominatingInfo | None = failure_nominating_info()
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
                self._failures.handle_scheduling_failure(qpi, status, cyc.diagnosis, nominating)
            return
        if evaluate_only:
            return
        assert qpi is not None and attempt.node is not None
        self._binding.assume_and_bind(cyc, qpi, attempt.node)

    # ------------------------------------------------------ filter & score
    def _find_nodes_that_fit(self, cyc: Cycle, all_rows: np.ndarray) -> Status | None:
        """findNodesThatFitPod: PreFilter, the nominated node, Filter, then the extenders."""
        fw, state, pi, attempt, diag = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt, cyc.diagnosis
        table = self._table
        pre_res, s, plugins_with_nodes = fw.run_pre_filter(state, pi, NodeInfoList(table, all_rows), attempt.point_results)
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
            nominated_row = table.row_of(nnn)
            if nominated_row is not None and self._evaluate_nominated_node(cyc, nominated_row):
                return None

        rows = all_rows
        if pre_res is not None and not pre_res.all_nodes():
            wanted = pre_res.node_names or set()
            names = table.names
            rows = all_rows[np.fromiter((names[r] in wanted for r in all_rows.tolist()), dtype=bool, count=len(all_rows))]
            msg = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins_with_nodes))}]"
            attempt.pre_filter_excluded_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg, plugin="PreFilterResult")
        n = len(rows)
        if n == 0:
            cyc.feasible = rows
            excluded = attempt.pre_filter_excluded_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            diag.node_to_status = NodeToStatus(absent_status=Status(excluded.code, *excluded.reasons))
            if cyc.nominated_status is not None:
                diag.node_to_status.set(*cyc.nominated_status)
                diag.add_plugin_status(cyc.nominated_status[1])
            attempt._feasible_rows = rows
            return None

        extenders = self._extenders
        pct = fw.percentage_of_nodes_to_score
        if pct is None:
            pct = self.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(pct, n)
        if not extenders.filters and not fw.has_score_plugins() and not extenders.prioritizers:
            to_find = 1
        start = self.next_start_node_index % n
        rotated = np.concatenate((rows[start:], rows[:start])) if start else rows
        if not fw.has_filter_plugins():
            feasible = rotated[:to_find]
            cyc.feasible = feasible
            attempt._feasible_rows = feasible
            self.next_start_node_index = (self.next_start_node_index + len(feasible)) % len(all_rows)
            if extenders.extenders:
                return extenders.filter(cyc)
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
        # every node passed (positions 0..n-1): the same rows, no gather (a stable array the
        # fast path's caches recognise as the table's order)
        feasible = rotated if len(passed) == n else rotated[passed]
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
            if table.name_to_row.get(extra[0]) in set(rows.tolist()):
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
        if extenders.extenders:
            return extenders.filter(cyc)
        return None

    def _evaluate_nominated_node(self, cyc: Cycle, row: int) -> bool:
        """evaluateNominatedNode: True when the nominated node passes every filter."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        rows = np.array([row], dtype=np.intp)
        if fw.has_filter_plugins():
            out = fw.apply_nominated_pods(state, pi, fw.run_filter(state, pi, rows))
            if len(out.passed_pos) == 0:
                st = out.rejections[0].status(0, row)
                if st.is_rejected():
                    cyc.nominated_status = (self._table.row_names[row], st)
                return False
            attempt.filter_plugins = out.plugins_run
            attempt._filter = out
            attempt._processed_upto = 0
        cyc.feasible = rows
        attempt._feasible_rows = rows
        # findNodesThatPassExtenders on the nominated node; an error only ends the shortcut
        extenders = self._extenders
        if extenders.extenders and (extenders.filter(cyc, nominated=True) is not None or not len(cyc.feasible)):
            name = self._table.row_names[row]
            ext_st = attempt._extender_statuses.get(name)
            if ext_st is not None:
                cyc.nominated_status = (name, ext_st)
            attempt._extender_filter = []
            attempt._extender_statuses = {}
            attempt._plugin_feasible_rows = None
            return False
        return True

    def _prioritize_and_select(self, cyc: Cycle, score_single: bool) -> Status | None:
        """prioritizeNodes and selectHost; a lone feasible node is taken unscored unless score_single."""
        fw, state, pi, attempt = cyc.fw, cyc.state, cyc.pod_info, cyc.attempt
        feasible = cyc.feasible
        names = self._table.names
        extenders = self._extenders
        if len(feasible) == 1 and not score_single:
            attempt.node = names[int(feasible[0])]
            return None
        if not fw.has_score_plugins() and not extenders.extenders:
            sc = ScoreOutcome(feasible)
            sc.total[:] = 1
        else:
            s = fw.run_pre_score(state, pi, NodeInfoList(self._table, feasible), attempt.point_results)
            if s is not None and not s.is_success():
                return s
            res = fw.run_score(state, pi, feasible)
            if isinstance(res, Status):
                return res
            sc = res
            if extenders.extenders:
                extenders.prioritize(cyc, sc)
        attempt._score = sc
        attempt.selected_row = row = self._select_host(sc)
        attempt.node = str(names[row])
        return None

    def _select_host(self, sc: ScoreOutcome) -> int:
        """selectHost: uniformly random among the highest totals, from the seeded RNG; the row."""
        best = int(sc.total.max())
        ties = np.flatnonzero(sc.total == best)
        pick = int(ties[self._rng.randrange(len(ties))]) if len(ties) > 1 else int(ties[0])
        sc.top, sc.selected_pos = ties, pick
        return int(sc.rows[pick])
