"""An example custom Score plugin for kubesim's scheduler, written to be copied.

NodeCost prefers nodes with a lower cost label (`example.com/cost` by default), using the
plain per-node interface; NodeCostBatch computes the same scores over the scheduler's
node table with numpy. Both normalise in reverse: the cheapest node gets 100.
"""

from kubesim_custom_score_example.node_cost import (
    DEFAULT_COST,
    DEFAULT_LABEL_KEY,
    MAX_COST,
    NodeCost,
    NodeCostArgs,
    NodeCostBatch,
)

__all__ = ["DEFAULT_COST", "DEFAULT_LABEL_KEY", "MAX_COST", "NodeCost", "NodeCostArgs", "NodeCostBatch"]
