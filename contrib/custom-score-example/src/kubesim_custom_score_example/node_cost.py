"""NodeCost: prefer nodes whose cost label is lower.

Score is the node's cost (its `labelKey` label as an integer; `defaultCost` when the label
is missing or not an integer from 0 to MAX_COST). NormalizeScore then maps costs to 0..100
in reverse, relative to the most expensive node, the way kube-scheduler's TaintToleration
does (helper.DefaultNormalizeScore with reverse): a node that costs nothing scores 100, the
most expensive node 0. The profile's weight multiplies the normalised score.

Two interchangeable implementations:
- NodeCost uses the plain interface: `score(state, pod, node_info)` once per node and
  `normalize_score(state, pod, scores)` over a list of NodeScore.
- NodeCostBatch uses the batch interface: `score_batch(state, pod_info, rows)` returns
  the scores of all candidate nodes at once from the label's column in
  `handle.node_columns`, and `normalize_batch` normalises the array. Faster on thousands
  of nodes.

It imports only the stable plugin API (kubesim_scheduler.api) and its helpers
(kubesim_scheduler.helper).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np
from kubesim_scheduler.api import (
    MAX_NODE_SCORE,
    BatchScorePlugin,
    CycleState,
    Handle,
    NodeInfo,
    NodeScore,
    PodInfo,
    ScorePlugin,
    Status,
)
from kubesim_scheduler.helper import default_normalize_score, default_normalize_score_array

__all__ = ["DEFAULT_COST", "DEFAULT_LABEL_KEY", "MAX_COST", "NodeCost", "NodeCostArgs", "NodeCostBatch"]

DEFAULT_LABEL_KEY = "example.com/cost"
DEFAULT_COST = 100
MAX_COST = 1_000_000_000
"""Costs above this are treated as unparsable (keeps cost * 100 far inside int64)."""

_ARG_NAMES = ("labelKey", "defaultCost")


@attrs.frozen
class NodeCostArgs:
    """The plugin's args (pluginConfig), validated: which label holds the cost, and the cost
    of a node without a usable label."""

    label_key: str = DEFAULT_LABEL_KEY
    default_cost: int = DEFAULT_COST

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> NodeCostArgs:
        """Parse pluginConfig args; raise ValueError naming the field and what was expected."""
        unknown = sorted(set(args) - set(_ARG_NAMES) - {"apiVersion", "kind"})
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown field (expected one of {', '.join(_ARG_NAMES)})")
        key = args.get("labelKey", DEFAULT_LABEL_KEY)
        if not isinstance(key, str) or not key:
            raise ValueError(f"labelKey: Invalid value: {key!r}: must be a non-empty label key")
        cost = args.get("defaultCost", DEFAULT_COST)
        if isinstance(cost, bool) or not isinstance(cost, int) or not 0 <= cost <= MAX_COST:
            raise ValueError(f"defaultCost: Invalid value: {cost!r}: must be an integer from 0 to {MAX_COST}")
        return cls(key, cost)

    def cost_of(self, value: str | None) -> int:
        """The cost a label value stands for."""
        if value is None or not value.isdigit() or len(value) > len(str(MAX_COST)):
            return self.default_cost
        cost = int(value)
        return cost if cost <= MAX_COST else self.default_cost


class NodeCost(ScorePlugin):
    """Prefer cheaper nodes (per-node interface)."""

    name = "NodeCost"

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.settings = NodeCostArgs.from_args(self.args)

    def score(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> int:
        labels = (node_info.node.get("metadata") or {}).get("labels") or {}
        return self.settings.cost_of(labels.get(self.settings.label_key))

    def normalize_score(self, state: CycleState, pod: Mapping[str, Any], scores: list[NodeScore]) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)


class NodeCostBatch(BatchScorePlugin):
    """Prefer cheaper nodes (batch interface over the node columns)."""

    name = "NodeCostBatch"

    def __init__(self, args: Mapping[str, Any] | None, handle: Handle) -> None:
        super().__init__(args, handle)
        self.settings = NodeCostArgs.from_args(self.args)
        self._costs = np.zeros(0, dtype=np.int64)  # cost per label value code, then the default

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        column = self.handle.node_columns.label(self.settings.label_key)
        if len(self._costs) != len(column.values) + 1:  # new label values appeared since
            costs = [self.settings.cost_of(v) for v in column.values]
            self._costs = np.array([*costs, self.settings.default_cost], dtype=np.int64)
        # codes are -1 where a node lacks the label: index -1 is the default cost
        scores: np.ndarray = self._costs[column.codes[rows]]
        return scores

    def normalize_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return default_normalize_score_array(scores, MAX_NODE_SCORE, reverse=True)
