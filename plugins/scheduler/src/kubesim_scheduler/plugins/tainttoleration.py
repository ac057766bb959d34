"""TaintToleration: filter untolerated NoSchedule/NoExecute taints, prefer fewer PreferNoSchedule ones."""

# upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE, POD, QueueingHint
from ..framework.interface import BatchFilterPlugin, BatchFilterResult, BatchScorePlugin, EnqueueExtensions, PreScorePlugin
from ..framework.node_info import NodeInfoList
from ..framework.normalize import default_normalize
from ..framework.pod_info import PodInfo
from ..framework.status import Code, Status
from ..taints import (
    Taint,
    Toleration,
    do_not_schedule_taint,
    find_matching_untolerated_taint,
    taint_of,
    toleration_of,
    tolerations_tolerate_taint,
)

__all__ = ["TaintToleration", "untolerated_reason"]

_PRE_SCORE_KEY = "PreScoreTaintToleration"


def untolerated_reason(taint: Taint) -> str:
    return f"node(s) had untolerated taint {{{taint[0]}: {taint[1]}}}"


def _prefer_no_schedule_tolerations(tols: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    return tuple(t for t in tols if t[3] in ("", "PreferNoSchedule"))


class TaintToleration(BatchFilterPlugin, PreScorePlugin, BatchScorePlugin, EnqueueExtensions):
    name = "TaintToleration"

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        t = self.handle.node_table
        sigs = t.taint_sig[rows]
        if not sigs.any():
            return BatchFilterResult.passing(len(rows))
        bad = np.zeros(len(t.sig_taints), dtype=bool)
        found: dict[int, Taint] = {}
        for sig in np.unique(sigs).tolist():
            taint = find_matching_untolerated_taint(t.sig_taints[sig], pod_info.tolerations, do_not_schedule_taint)
            if taint is not None:
                bad[sig] = True
                found[sig] = taint
        fail = bad[sigs]
        codes = np.where(fail, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), np.int8(0)).astype(np.int8)
        return BatchFilterResult(codes, lambda row: (untolerated_reason(found[int(t.taint_sig[row])]),))

    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        pi = state.pod_info or self.handle.pod_info(pod)
        state.write(_PRE_SCORE_KEY, _prefer_no_schedule_tolerations(pi.tolerations))
        return None

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        tols = state.get(_PRE_SCORE_KEY)
        if tols is None:
            raise RuntimeError(f'failed to read "{_PRE_SCORE_KEY}" from cycleState')
        t = self.handle.node_table
        sigs = t.taint_sig[rows]
        if not sigs.any():
            return np.zeros(len(rows), dtype=np.int64)
        per_sig = np.zeros(len(t.sig_taints), dtype=np.int64)
        for sig in np.unique(sigs).tolist():
            per_sig[sig] = sum(
                1 for taint in t.sig_taints[sig]
                if taint[2] == "PreferNoSchedule" and not tolerations_tolerate_taint(tols, taint)
            )
        result: np.ndarray = per_sig[sigs]
        return result

    def normalize_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=True)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), _after_node_change),
            ClusterEventWithHint(ClusterEvent(POD, ActionType.UPDATE_POD_TOLERATION), _after_toleration_change),
        ]


def _untolerated(node: Mapping[str, Any] | None, tols: tuple[Toleration, ...]) -> bool:
    taints = [taint_of(x) for x in ((node or {}).get("spec") or {}).get("taints") or ()]
    return find_matching_untolerated_taint(taints, tols, do_not_schedule_taint) is not None


def _after_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    tols = tuple(toleration_of(x) for x in (pod.get("spec") or {}).get("tolerations") or ())
    was = True if old is None else _untolerated(old, tols)
    if was and not _untolerated(new, tols):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _after_toleration_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    same = ((new or {}).get("metadata") or {}).get("uid") == (pod.get("metadata") or {}).get("uid")
    return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP
