"""kubesim hook implementations: the plugin classes the scheduler can enable by name."""

from __future__ import annotations

from collections.abc import Mapping

from kubesim import hookimpl
from kubesim_scheduler.api import Plugin

from kubesim_custom_score_example.node_cost import NodeCost, NodeCostBatch


@hookimpl
def kubesim_scheduler_plugins() -> Mapping[str, type[Plugin]]:
    """NodeCost (per-node) and NodeCostBatch (numpy), under their plugin names."""
    return {NodeCost.name: NodeCost, NodeCostBatch.name: NodeCostBatch}
