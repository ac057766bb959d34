"""A result aggregator, as written in docs/tutorial-custom-score-plugin.md: what the nodes in use cost.

At the end of every step it adds up the `example.com/cost` label (the label that
contrib/custom-score-example's NodeCost plugin reads) of the nodes that run at least
one pod: the nodes you pay for. Nodes in use without the label are counted apart.

Try it without installing anything:
    PYTHONPATH=examples/compare/node_cost_table KUBESIM_PLUGINS=kubesim_node_cost_table kubesim plugins
"""

from __future__ import annotations

from typing import Any

from kubesim import hookimpl
from kubesim.results import ClusterState, Column, Table, TimelineEvent

COST_LABEL = "example.com/cost"

Row = tuple[int, int, int, int]


class NodeCostTable:
    """A kubesim.results.Aggregator: per step, the nodes in use and the sum of their cost labels."""

    name = "node_cost"

    def initial(self) -> list[Row]:
        return []

    def fold(self, acc: list[Row], event: TimelineEvent, state: ClusterState) -> list[Row]:
        if event.kind != "stepEnd":
            return acc
        in_use = [node for node in state.nodes.values() if node.pods > 0]
        labels = [(node.object.get("metadata") or {}).get("labels") or {} for node in in_use]
        costs = [int(v) for v in (lab.get(COST_LABEL, "") for lab in labels) if v.isdigit()]
        acc.append((event.step.major, len(in_use), sum(costs), len(in_use) - len(costs)))
        return acc

    def table(self, acc: list[Row]) -> Table:
        columns = (
            Column("step", "int", "MajorStep"),
            Column("nodes_in_use", "int", "nodes running at least one pod at the end of the step"),
            Column("cost", "int", f"sum of the {COST_LABEL} labels of those nodes"),
            Column("unpriced", "int", f"nodes in use without a numeric {COST_LABEL} label"),
        )
        return Table(self.name, columns, acc, "what the nodes in use cost, per step")


@hookimpl
def kubesim_result_aggregators() -> dict[str, Any]:
    return {"node_cost": NodeCostTable()}
