"""Plugin base classes for every extension point, per-node and batch forms.

Per-node methods receive the pod as a plain dict (like upstream's *v1.Pod); batch methods
receive the parsed PodInfo and an array of node-table rows. The framework adapts per-node
plugins to the batch pipeline. Inside any method, `state.pod_info` is the parsed pod.
"""

# upstream: pkg/scheduler/framework/interface.go (Plugin interfaces, PreFilterResult,
# PostFilterResult, NodeScore), staging/src/k8s.io/kube-scheduler/framework/interface.go

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

import attrs
import numpy as np

from .status import Code, Status

if TYPE_CHECKING:
    from .cycle_state import CycleState
    from .diagnosis import NodeToStatus
    from .events import ClusterEventWithHint
    from .handle import Handle
    from .node_info import NodeInfo, NodeInfoList
    from .pod_info import PodInfo
    from .queued_pod_info import QueuedPodInfo
    from .views import PluginHandle

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "Plugin",
    "PreEnqueuePlugin",
    "QueueSortPlugin",
    "EnqueueExtensions",
    "PreFilterPlugin",
    "PreFilterExtensions",
    "PreFilterResult",
    "FilterPlugin",
    "BatchFilterPlugin",
    "BatchFilterResult",
    "PostFilterPlugin",
    "PostFilterResult",
    "NominatingInfo",
    "PreScorePlugin",
    "ScorePlugin",
    "BatchScorePlugin",
    "NodeScore",
    "ReservePlugin",
    "PermitPlugin",
    "PreBindPlugin",
    "BindPlugin",
    "PostBindPlugin",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Plugin:
    """Base of every scheduler plugin: a name, its args dict (pluginConfig) and the handle.

    Plugins outside this package may use only the `PluginHandle` part of `handle` (see
    kubesim_scheduler.api); the in-tree plugins also read the runtime's node table.
    """

    name: ClassVar[str] = ""

    def __init__(self, args: Mapping[str, Any] | None, handle: PluginHandle) -> None:
        self.args: dict[str, Any] = dict(args or {})
        # the runtime always passes its Handle; the parameter is typed by what plugins may use
        self.handle: Handle = cast("Handle", handle)


class PreEnqueuePlugin(Plugin):
    """Gate a pod before it enters the active queue."""

    def pre_enqueue(self, pod: Mapping[str, Any]) -> Status | None:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    """Order of the active queue (only one per profile)."""

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise NotImplementedError


class EnqueueExtensions:
    """Cluster events that may make a pod this plugin rejected schedulable again."""

    def events_to_register(self) -> list[ClusterEventWithHint]:
        raise NotImplementedError


@attrs.define(slots=True)
class PreFilterResult:
    """Node-name narrowing from PreFilter; None node_names means all nodes."""

    node_names: set[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return PreFilterResult(None if self.node_names is None else set(self.node_names))
        if self.all_nodes():
            return PreFilterResult(set(other.node_names or ()))
        return PreFilterResult(self.node_names & (other.node_names or set()))  # type: ignore[operator]


class PreFilterExtensions:
    """Incremental updates of PreFilter state when preemption adds/removes pods on a node.

    Called by Framework.run_pre_filter_extension_add_pod/remove_pod (preemption's victim
    search, and nominated pods counted during Filter) with a cloned CycleState, for
    PreFilter plugins not skipped in the cycle. `node_info` views the node-table row
    *after* the pod was added to / removed from it (the row is restored afterwards), and
    `pod_info_to_add` / `pod_info_to_remove` is that pod's PodInfo. Return None or an
    Error status (any non-success status aborts the what-if check as an error).
    """

    def add_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status | None:
        return None

    def remove_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        return None


class PreFilterPlugin(Plugin):
    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    """Per-node filter: `filter(state, pod, node_info) -> Status | None`."""

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


class BatchFilterResult:
    """Outcome of a batch Filter over candidate rows: a code per row and reasons on demand.

    `reasons(row)` is only called for rejected rows, when results are recorded.

    Optionally `reason_ids` (aligned with `codes`) indexes `reason_table`, the reasons of
    each row as data: results then count reasons per rejection with numpy instead of one
    call per rejected node (thousands per pod under pod anti-affinity), and need not read
    them before the cycle's state is gone. Both must agree with `reasons(row)`.
    """

    __slots__ = ("codes", "reasons", "reason_ids", "reason_table")

    def __init__(
        self,
        codes: np.ndarray,
        reasons: Callable[[int], Sequence[str]],
        reason_ids: np.ndarray | None = None,
        reason_table: Sequence[Sequence[str]] = (),
    ) -> None:
        self.codes = codes
        self.reasons = reasons
        self.reason_ids = reason_ids
        self.reason_table = reason_table

    @classmethod
    def passing(cls, n: int) -> BatchFilterResult:
        return cls(np.zeros(n, dtype=np.int8), _no_reasons)

    @classmethod
    def from_mask(cls, fail: np.ndarray, code: Code, reason: str) -> BatchFilterResult:
        """Every failing row gets the same code and single reason."""
        codes = np.where(fail, np.int8(code), np.int8(0)).astype(np.int8, copy=False)
        reasons = (reason,)
        return cls(codes, lambda _row: reasons, np.zeros(len(codes), dtype=np.int8), (reasons,))

    @classmethod
    def from_table(
        cls, rows: np.ndarray, ids: np.ndarray, codes_of: np.ndarray, table: Sequence[Sequence[str]]
    ) -> BatchFilterResult:
        """Row i gets code codes_of[ids[i]] and reasons table[ids[i]] (code 0: passed)."""
        codes = codes_of[ids].astype(np.int8, copy=False)
        by_row: dict[int, int] | None = None

        def reasons(row: int) -> Sequence[str]:
            nonlocal by_row
            if by_row is None:
                by_row = dict(zip(rows.tolist(), ids.tolist()))
            return table[by_row[row]]

        return cls(codes, reasons, ids, table)

    def status(self, i: int, row: int) -> Status | None:
        """The Status at position i (row is the node-table row)."""
        c = int(self.codes[i])
        if c == 0:
            return None
        return Status(Code(c), *self.reasons(row))


def _no_reasons(_row: int) -> Sequence[str]:
    return ()


class BatchFilterPlugin(FilterPlugin):
    """Filter over all candidate rows at once on the node table."""

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        raise NotImplementedError

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        pi = state.pod_info
        if pi is None or pi.pod is not pod:
            pi = self.handle.pod_info(pod)
        res = self.filter_batch(state, pi, np.array([node_info.row], dtype=np.intp))
        return res.status(0, node_info.row)


class NominatingInfo:
    """Where a preempting pod should be nominated (mode override or noop)."""

    __slots__ = ("node_name", "mode")
    MODE_NOOP = 0
    MODE_OVERRIDE = 1

    def __init__(self, node_name: str = "", mode: int = 1) -> None:
        self.node_name = node_name
        self.mode = mode


@attrs.define(slots=True)
class PostFilterResult:
    nominating_info: NominatingInfo | None = None


class PostFilterPlugin(Plugin):
    def post_filter(self, state: CycleState, pod: Mapping[str, Any], statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin):
    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        raise NotImplementedError


@attrs.define(slots=True)
class NodeScore:
    name: str
    score: int


class ScorePlugin(Plugin):
    """Per-node score: `score(state, pod, node_info) -> int` (or (int, Status)).

    Override `normalize_score(state, pod, scores)` to normalise in place (ScoreExtensions).
    """

    def score(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> int | tuple[int, Status | None]:
        raise NotImplementedError

    def normalize_score(self, state: CycleState, pod: Mapping[str, Any], scores: list[NodeScore]) -> Status | None:
        return None

    @classmethod
    def has_normalize(cls) -> bool:
        if issubclass(cls, BatchScorePlugin):
            # BatchScorePlugin.normalize_score only adapts normalize_batch: it does not count
            return (cls.normalize_batch is not BatchScorePlugin.normalize_batch
                    or cls.normalize_score is not BatchScorePlugin.normalize_score)
        return cls.normalize_score is not ScorePlugin.normalize_score


class BatchScorePlugin(ScorePlugin):
    """Score (and optionally normalise) all candidate rows at once; int64 arrays."""

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def normalize_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return scores

    def score(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> int:
        pi = state.pod_info if state.pod_info is not None and state.pod_info.pod is pod else self.handle.pod_info(pod)
        return int(self.score_batch(state, pi, np.array([node_info.row], dtype=np.intp))[0])

    def normalize_score(self, state: CycleState, pod: Mapping[str, Any], scores: list[NodeScore]) -> Status | None:
        pi = state.pod_info if state.pod_info is not None and state.pod_info.pod is pod else self.handle.pod_info(pod)
        rows = np.array([self.handle.node_table.name_to_row[s.name] for s in scores], dtype=np.intp)
        arr = np.array([s.score for s in scores], dtype=np.int64)
        out = self.normalize_batch(state, pi, rows, arr)
        for s, v in zip(scores, out):
            s.score = int(v)
        return None


class ReservePlugin(Plugin):
    def reserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    def permit(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> tuple[Status | None, float]:
        raise NotImplementedError


class PreBindPlugin(Plugin):
    def pre_bind_pre_flight(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        return None

    def pre_bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    def bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    def post_bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> None:
        raise NotImplementedError
