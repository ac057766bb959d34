"""The InterPodAffinity framework plugin: a thin adapter over filtering.py and scoring.py.

upstream: pkg/scheduler/framework/plugins/interpodaffinity/plugin.go
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

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
from .args import InterPodAffinityArgs
from .filtering import VERDICT_OUTCOMES, PreFilterState, filter_verdicts, pod_matches_all_terms, pre_filter
from .result import Outcome
from .scoring import PreScoreState, normalize_scores, pre_score, score_nodes
from .tablesync import affinity_info_of, table_index
from .terms import pod_affinity_info

__all__ = ["InterPodAffinity", "outcome_status"]

NAME = "InterPodAffinity"
PRE_FILTER_KEY = "PreFilter" + NAME
PRE_SCORE_KEY = "PreScore" + NAME

_CODES = {
    "Error": Code.ERROR,
    "Unschedulable": Code.UNSCHEDULABLE,
    "UnschedulableAndUnresolvable": Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "Skip": Code.SKIP,
}


# filter_verdicts' verdict -> framework code and reasons
_VERDICT_CODES = np.array([0 if o is None else int(_CODES[o.code]) for o in VERDICT_OUTCOMES], dtype=np.int8)
_VERDICT_REASONS: tuple[tuple[str, ...], ...] = tuple(() if o is None else o.reasons for o in VERDICT_OUTCOMES)


def outcome_status(o: Outcome | None) -> Status | None:
    """Convert a framework-independent Outcome to a framework Status."""
    if o is None:
        return None
    if o.code == "Error":
        return Status.from_error(" ".join(o.reasons))
    return Status(_CODES[o.code], *o.reasons)


class _Namespaces(Mapping[str, Mapping[str, str]]):
    """Namespace labels read lazily through the handle (get per name; all on iteration)."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._one: dict[str, Mapping[str, str]] = {}
        self._all: dict[str, Mapping[str, str]] | None = None

    def _load(self) -> dict[str, Mapping[str, str]]:
        if self._all is None:
            self._all = {
                (o.get("metadata") or {}).get("name", ""): (o.get("metadata") or {}).get("labels") or {}
                for o in self._handle.list_objects("Namespace", None)
            }
        return self._all

    def __getitem__(self, name: str) -> Mapping[str, str]:
        if name not in self._one:
            self._one[name] = self._handle.namespace_labels(name)
        return self._one[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def items(self) -> Any:
        return self._load().items()


def _not_found(key: str) -> Status:
    return Status.from_error(f'error reading "{key}" from cycleState: not found')


class InterPodAffinity(
    PreFilterPlugin,
    PreFilterExtensions,
    BatchFilterPlugin,
    PreScorePlugin,
    BatchScorePlugin,
    EnqueueExtensions,
):
    """Required and preferred inter-pod (anti-)affinity."""

    name = NAME

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.ipa_args = InterPodAffinityArgs.from_dict(args)
        self.tables = table_index(handle.node_table)

    def _pod_info(self, state: CycleState, pod: Mapping[str, Any]) -> PodInfo:
        pi = state.pod_info
        return pi if pi is not None and pi.pod is pod else self.handle.pod_info(pod)

    # ----- PreFilter and its extensions ---------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList
    ) -> tuple[PreFilterResult | None, Status | None]:
        pi = self._pod_info(state, pod)
        if not pi.has_affinity and not self.handle.node_table.required_anti_affinity_pods:
            # no terms of its own and no pod with required anti-affinity: pre_filter's Skip,
            # without bringing the index up to date (its cost grows with pods per node)
            return None, Status(Code.SKIP)
        index = self.tables.sync()
        info = affinity_info_of(pi)
        s, out = pre_filter(pod, index, _Namespaces(self.handle), info)
        if out is not None:
            return None, outcome_status(out)
        state.write(PRE_FILTER_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def _update(self, state: CycleState, pi: PodInfo, node_info: NodeInfo, sign: int) -> Status | None:
        s = state.get(PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            return _not_found(PRE_FILTER_KEY)
        labels = (node_info.node.get("metadata") or {}).get("labels") or {}
        s.update_with_pod(affinity_info_of(pi), labels, sign)
        return None

    def add_pod(
        self, state: CycleState, pod: Mapping[str, Any], pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_info_to_add, node_info, 1)

    def remove_pod(
        self, state: CycleState, pod: Mapping[str, Any], pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_info_to_remove, node_info, -1)

    # ----- Filter ---------------------------------------------------------------------------
    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        s = state.get(PRE_FILTER_KEY)
        if not isinstance(s, PreFilterState):
            err = _not_found(PRE_FILTER_KEY)
            return BatchFilterResult(
                np.full(len(rows), int(Code.ERROR), dtype=np.int8), lambda _r: err.reasons
            )
        index = self.tables.sync()
        ids = filter_verdicts(s, index)[self.tables.slots(rows)]
        return BatchFilterResult.from_table(rows, ids, _VERDICT_CODES, _VERDICT_REASONS)

    # ----- Score ------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        pi = self._pod_info(state, pod)
        if not pi.has_affinity and not self.handle.node_table.affinity_pods:
            return Status(Code.SKIP)  # no term on either side: pre_score's Skip (nothing touched)
        index = self.tables.sync()
        info = affinity_info_of(pi)
        s, out = pre_score(pod, index, _Namespaces(self.handle), self.ipa_args, info)
        if out is not None:
            return outcome_status(out)
        state.write(PRE_SCORE_KEY, s)
        return None

    @staticmethod
    def _score_state(state: CycleState) -> PreScoreState:
        s: PreScoreState | None = state.get(PRE_SCORE_KEY)
        if s is None:
            raise StateNotFound(f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found')
        return s

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        s = self._score_state(state)
        index = self.tables.sync()
        return np.array(score_nodes(s, index, self.tables.slots(rows).tolist()), dtype=np.int64)

    def normalize_batch(
        self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray
    ) -> np.ndarray:
        s = self._score_state(state)
        return np.array(normalize_scores(s, scores.tolist()), dtype=np.int64)

    # ----- queueing hints -----------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
                _after_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), _after_node_change
            ),
        ]


def _matches_all(terms: Any, pod: Mapping[str, Any] | None) -> bool:
    if pod is None:
        return False
    meta = pod.get("metadata") or {}
    return pod_matches_all_terms(terms, meta.get("namespace", "") or "", meta.get("labels") or {})


def _after_pod_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterPodChange."""
    for p in (new, old):
        if p is not None and not (p.get("spec") or {}).get("nodeName"):
            return QueueingHint.QUEUE_SKIP
    info = pod_affinity_info(pod)
    terms, anti = info.required_affinity, info.required_anti_affinity
    if new is not None and old is not None:
        if not _matches_all(terms, old) and _matches_all(terms, new):
            return QueueingHint.QUEUE
        if _matches_all(anti, old) and not _matches_all(anti, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
    if new is not None:
        return QueueingHint.QUEUE if _matches_all(terms, new) else QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE if _matches_all(anti, old) else QueueingHint.QUEUE_SKIP


def _labels(node: Any) -> Mapping[str, str]:
    return ((node or {}).get("metadata") or {}).get("labels") or {}


def _after_node_change(pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
    """isSchedulableAfterNodeChange."""
    info = pod_affinity_info(pod)
    new_l = _labels(new)
    old_l = _labels(old)
    for t in info.required_affinity:
        k = t.topology_key
        if old is None:
            if k in new_l:
                return QueueingHint.QUEUE
            continue
        if k not in old_l and k in new_l:
            return QueueingHint.QUEUE
        if k in old_l and k in new_l and old_l[k] != new_l[k]:
            return QueueingHint.QUEUE
    for t in info.required_anti_affinity:
        k = t.topology_key
        if old is None:
            return QueueingHint.QUEUE
        if k in old_l and k not in new_l:
            return QueueingHint.QUEUE
        if k in old_l and k in new_l and old_l[k] != new_l[k]:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP
