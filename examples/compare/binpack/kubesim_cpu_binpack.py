"""A custom score plugin and a result aggregator, as written in docs/tutorial-custom-score-plugin.md.

CpuBinPack prefers the node whose cpu would be the most requested with the pod on it
(bin packing), so that whole nodes stay free for big pods. The empty_nodes aggregator
counts, at the end of each step, the nodes without pods: the ones a cluster autoscaler
could remove.

Try it without installing anything:
    PYTHONPATH=examples/compare/binpack KUBESIM_PLUGINS=kubesim_cpu_binpack kubesim plugins
"""

from __future__ import annotations

from typing import Any

from kubesim import hookimpl
from kubesim.results import Column, Table
from kubesim_scheduler import ScorePlugin


class CpuBinPack(ScorePlugin):
    """Score = the node's requested cpu, with the pod on it, in percent of its allocatable cpu."""

    name = "CpuBinPack"

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        allocatable = node_info.allocatable.milli_cpu
        if allocatable <= 0:
            return 0
        wanted = self.handle.pod_info(pod).requests.milli_cpu
        used = node_info.requested.milli_cpu + wanted
        return min(100, used * 100 // allocatable)


class EmptyNodes:
    """A kubesim.results.Aggregator: nodes without pods at the end of each step."""

    name = "empty_nodes"

    def initial(self) -> list[tuple[int, int, int]]:
        return []

    def fold(self, acc: list[tuple[int, int, int]], event: Any, state: Any) -> list[tuple[int, int, int]]:
        if event.kind == "stepEnd":
            empty = sum(1 for node in state.nodes.values() if node.pods == 0)
            acc.append((event.step.major, len(state.nodes), empty))
        return acc

    def table(self, acc: list[tuple[int, int, int]]) -> Table:
        columns = (Column("step", "int", "MajorStep"), Column("nodes", "int", "nodes in the cluster"),
                   Column("empty", "int", "nodes without pods at the end of the step"))
        return Table(self.name, columns, acc, "nodes without pods per step")


@hookimpl
def kubesim_scheduler_plugins() -> dict[str, type]:
    return {"CpuBinPack": CpuBinPack}


@hookimpl
def kubesim_result_aggregators() -> dict[str, Any]:
    return {"empty_nodes": EmptyNodes()}
