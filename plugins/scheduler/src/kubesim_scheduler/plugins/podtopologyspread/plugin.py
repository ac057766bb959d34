"""The PodTopologySpread framework plugin: a thin adapter over filtering.py and scoring.py.

upstream: pkg/scheduler/framework/plugins/podtopologyspread/plugin.go
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from kubesim.k8s.selectors import SelectorError

from ...framework.cycle_state import CycleState, StateNotFound
from ...framework.events import NODE, POD, ActionType, ClusterEvent, ClusterEventWithHint, QueueingHint
from ...framework.handle import Handle
from ...framework.interface import (
    BatchFilterPlugin,
    BatchFilterResult,
    BatchScorePlugin,
    EnqueueExtensions,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
)
from ...framework.node_info import NodeInfo, NodeInfoList
from ...framework.pod_info import PodInfo
from ...framework.status import Code, Status
from ..interpodaffinity.plugin import outcome_status
from ..interpodaffinity.tablesync import table_index
from .constraints import DO_NOT_SCHEDULE, HONOR, SCHEDULE_ANYWAY, PodTopologySpreadArgs, SpreadConstraint, get_constraints
from .filtering import VERDICT_OUTCOMES, PreFilterState, filter_verdicts, pre_filter
from .scoring import PreScoreState, normalize_scores, pre_score, score_nodes

__all__ = ["HandleOwners", "PodTopologySpread"]

NAME = "PodTopologySpread"
PRE_FILTER_KEY = "PreFilter" + NAME
PRE_SCORE_KEY = "PreScore" + NAME
_CODES = {
    "Unschedulable": Code.UNSCHEDULABLE,
    "UnschedulableAndUnresolvable": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
}
# filter_verdicts' verdict -> framework code and reasons
_VERDICT_CODES = np.array([0 if o is None else int(_CODES[o.code]) for o in VERDICT_OUTCOMES], dtype=np.int8)
_VERDICT_REASONS: tuple[tuple[str, ...], ...] = tuple(() if o is None else o.reasons for o in VERDICT_OUTCOMES)


class HandleOwners:
    """An OwnerLookup reading Services and controllers through the framework handle."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def services(self, namespace: str) -> Iterable[Mapping[str, Any]]:
        return self._handle.list_objects("Service", namespace)

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self._handle.get_object(kind, namespace, name)


class PodTopologySpread(
    PreFilterPlugin,
    PreFilterExtensions,
    BatchFilterPlugin,
    PreScorePlugin,
    BatchScorePlugin,
    EnqueueExtensions,
):
    """Spread pods over topology domains (hard and soft constraints, system defaults)."""

    name = NAME

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.pts_args = PodTopologySpreadArgs.from_dict(args)
        self.owners = HandleOwners(handle)
        self.tables = table_index(handle.node_table)
        self.match_label_keys = handle.feature("MatchLabelKeysInPodTopologySpread")

    # ----- PreFilter and its extensions ---------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self._has_constraints(pod, DO_NOT_SCHEDULE):
            return None, Status(Code.SKIP)  # pre_filter's Skip, without syncing the index
        s, out = pre_filter(
            pod, self.tables.sync(), self.pts_args, self.owners, match_label_keys=self.match_label_keys
        )
        if out is not None:
            return None, outcome_status(out)
        state.write(PRE_FILTER_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def _update(
        self, state: CycleState, pod: Mapping[str, Any], pi: PodInfo, node_info: NodeInfo, sign: int
    ) -> Status | None:
        s = state.get(PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            return Status.from_error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
        node = node_info.node
        s.update_with_pod(pi.pod, pod, node if node else None, sign)
        return None

    def add_pod(
        self, state: CycleState, pod: Mapping[str, Any], pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod, pod_info_to_add, node_info, 1)

    def remove_pod(
        self, state: CycleState, pod: Mapping[str, Any], pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod, pod_info_to_remove, node_info, -1)

    # ----- Filter ---------------------------------------------------------------------------
    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        s = state.get(PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            err = Status.from_error(f'reading "{PRE_FILTER_KEY}" from cycleState: not found')
            return BatchFilterResult(
                np.full(len(rows), int(Code.ERROR), dtype=np.int8), lambda _r: err.reasons
            )
        index = self.tables.sync()
        ids = filter_verdicts(s, pod_info.labels, index)[self.tables.slots(rows)]
        return BatchFilterResult.from_table(rows, ids, _VERDICT_CODES, _VERDICT_REASONS)

    # ----- Score ------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        if not self._has_constraints(pod, SCHEDULE_ANYWAY):
            return Status(Code.SKIP)  # pre_score's Skip, without syncing the index
        index = self.tables.sync()

        def filtered() -> list[int]:  # only needed when the pod has soft constraints
            return self.tables.slots(np.asarray(nodes.rows, dtype=np.intp)).tolist()  # type: ignore[no-any-return]

        s, out = pre_score(
            pod, index, filtered, self.pts_args, self.owners, match_label_keys=self.match_label_keys
        )
        if out is not None:
            return outcome_status(out)
        state.write(PRE_SCORE_KEY, s)
        return None

    def _state(self, state: CycleState) -> PreScoreState:
        s: PreScoreState | None = state.get(PRE_SCORE_KEY)
        if s is None:
            raise StateNotFound(f'error reading "{PRE_SCORE_KEY}" from cycleState: not found')
        return s

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        s = self._state(state)
        index = self.tables.sync()
        return np.array(score_nodes(s, index, self.tables.slots(rows).tolist()), dtype=np.int64)

    def normalize_batch(
        self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray
    ) -> np.ndarray:
        s = self._state(state)
        names = [self.handle.node_table.row_names[r] for r in rows.tolist()]
        return np.array(normalize_scores(s, names, scores.tolist()), dtype=np.int64)

    def _has_constraints(self, pod: Mapping[str, Any], action: str) -> bool:
        """Whether the pod has (or is defaulted) constraints of `action`; True when they cannot
        be read, so that pre_filter/pre_score report the error as before."""
        try:
            return bool(get_constraints(pod, action, self.pts_args, self.owners, match_label_keys=self.match_label_keys))
        except SelectorError:
            return True

    # ----- queueing hints -----------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_actions = (
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATION
            | ActionType.DELETE
        )
        node_actions = (
            ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT
        )
        return [
            ClusterEventWithHint(ClusterEvent(POD, pod_actions), self._after_pod_change),
            ClusterEventWithHint(ClusterEvent(NODE, node_actions), self._after_node_change),
        ]

    def _constraints(self, pod: Mapping[str, Any]) -> list[SpreadConstraint]:
        return get_constraints(
            pod, DO_NOT_SCHEDULE, self.pts_args, self.owners, match_label_keys=self.match_label_keys
        )

    def _after_pod_change(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterPodChange."""
        for p in (new, old):
            if p is not None and not _involved(pod, p):
                return QueueingHint.QUEUE_SKIP
        try:
            constraints = self._constraints(pod)
        except SelectorError:
            return QueueingHint.QUEUE
        if new is not None and old is not None:
            if (
                _uid(pod) == _uid(new)
                and _tolerations(new) != _tolerations(old)
                and any(c.node_taints_policy == HONOR for c in constraints)
            ):
                return QueueingHint.QUEUE
            if _pod_labels(new) == _pod_labels(old):
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(_pod_labels(old)) != c.selector.matches(_pod_labels(new)):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        changed = new if new is not None else old
        if any(c.selector.matches(_pod_labels(changed)) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _after_node_change(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        """isSchedulableAfterNodeChange."""
        try:
            constraints = self._constraints(pod)
        except SelectorError:
            return QueueingHint.QUEUE
        old_ok = old is not None and all(c.topology_key in _node_labels(old) for c in constraints)
        new_ok = new is not None and all(c.topology_key in _node_labels(new) for c in constraints)
        if old is not None and new is not None:
            if old_ok != new_ok:
                return QueueingHint.QUEUE
            if new_ok:
                ol, nl = _node_labels(old), _node_labels(new)
                if any(ol.get(c.topology_key) != nl.get(c.topology_key) for c in constraints):
                    return QueueingHint.QUEUE
                if ((old.get("spec") or {}).get("taints") or []) != (
                    (new.get("spec") or {}).get("taints") or []
                ):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if new_ok else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if old_ok else QueueingHint.QUEUE_SKIP


def _uid(pod: Mapping[str, Any]) -> Any:
    return (pod.get("metadata") or {}).get("uid")


def _pod_labels(pod: Mapping[str, Any]) -> Mapping[str, str]:
    return (pod.get("metadata") or {}).get("labels") or {}


def _node_labels(node: Mapping[str, Any]) -> Mapping[str, str]:
    return (node.get("metadata") or {}).get("labels") or {}


def _tolerations(pod: Mapping[str, Any]) -> Any:
    return (pod.get("spec") or {}).get("tolerations") or []


def _involved(incoming: Mapping[str, Any], changed: Mapping[str, Any]) -> bool:
    """involvedInTopologySpreading: the same pod, or an assigned pod of the same namespace."""
    if _uid(incoming) == _uid(changed):
        return True
    ns = (incoming.get("metadata") or {}).get("namespace", "")
    return (
        bool((changed.get("spec") or {}).get("nodeName"))
        and (changed.get("metadata") or {}).get("namespace", "") == ns
    )
