"""Why a pod did not fit: per-node statuses, rejecting plugins, and the FitError message."""

# upstream: pkg/scheduler/framework/types.go (Diagnosis, FitError.Error),
# pkg/scheduler/framework/interface.go (NodeToStatus)

from __future__ import annotations

from collections.abc import Callable, Iterator

import attrs

from .status import Code, Status

__all__ = ["NodeToStatus", "Diagnosis", "FitError", "NO_NODE_AVAILABLE_MSG", "NoNodesAvailable"]

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"


class NoNodesAvailable(Exception):
    """ErrNoNodesAvailable."""

    def __str__(self) -> str:
        return "no nodes available to schedule pods"


class NodeToStatus:
    """Statuses of rejected nodes, plus the status every absent node implicitly has.

    Filled lazily: `loader` materialises the per-node map the first time it is read, so a
    cycle that never reports details never builds one Status per rejected node.
    """

    def __init__(
        self,
        absent_status: Status | None = None,
        loader: Callable[[], dict[str, Status]] | None = None,
        size: int = 0,
    ) -> None:
        self._map: dict[str, Status] | None = None if loader else {}
        self._loader = loader
        self._size = size
        self.absent_status = absent_status if absent_status is not None else Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def _m(self) -> dict[str, Status]:
        if self._map is None:
            assert self._loader is not None
            self._map = self._loader()
            self._loader = None
        return self._map

    def get(self, node: str) -> Status:
        """Status of a node: the explicit one, or the absent-nodes status."""
        return self._m().get(node, self.absent_status)

    def set(self, node: str, status: Status) -> None:
        self._m()[node] = status

    def __len__(self) -> int:
        return len(self._m()) if self._map is not None else self._size

    def items(self) -> Iterator[tuple[str, Status]]:
        return iter(self._m().items())

    def explicit(self) -> dict[str, Status]:
        return self._m()


@attrs.define(slots=True)
class Diagnosis:
    node_to_status: NodeToStatus = attrs.field(factory=NodeToStatus)
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, s: Status) -> None:
        if not s.plugin:
            return
        if s.is_rejected():
            self.unschedulable_plugins.add(s.plugin)
        if s.code == Code.PENDING:
            self.pending_plugins.add(s.plugin)


class FitError(Exception):
    """The pod fits on no node; str() is upstream's message."""

    def __init__(self, pod_name: str, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__(pod_name)
        self.pod_name = pod_name
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def __str__(self) -> str:
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            for _node, st in d.node_to_status.items():
                for r in st.reasons:
                    counts[r] = counts.get(r, 0) + 1
            n = len(d.node_to_status)
            if n < self.num_all_nodes:
                for r in d.node_to_status.absent_status.reasons:
                    counts[r] = counts.get(r, 0) + self.num_all_nodes - n
            parts = sorted(f"{v} {k}" for k, v in counts.items())
            if parts:
                msg += f" {', '.join(parts)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg
