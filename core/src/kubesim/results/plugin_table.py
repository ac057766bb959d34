"""Per-plugin scheduling results, and filter rejection reasons.

"plugins": for each scheduler plugin, how many nodes it rejected (needs the full detail
level, which names the rejecting plugin per node), the distribution of its normalized
scores, and how often it decided the winner: in a binding attempt with at least two
scored nodes, the plugin decided the winner when, without its final score, another
recorded node would score higher than the chosen one. At the summary detail level only
the best nodes' scores are recorded, and the figures are over those.

"filter_reasons": every rejection reason with the nodes and attempts it rejected, at
any detail level; the plugin is named when the full detail level recorded it. Nodes
are counted twice over: in every attempt, and in failed attempts only (a node filtered
out in an attempt that bound the pod elsewhere did not keep the pod pending).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import attrs

from kubesim.results.attempts import new_attempts, rejections, totals
from kubesim.results.events import TimelineEvent
from kubesim.results.state import ClusterState
from kubesim.results.table import Column, Table

__all__ = ["FILTER_REASON_COLUMNS", "PLUGIN_COLUMNS", "FilterReasonTable", "PluginTable"]

PLUGIN_COLUMNS = (
    Column("plugin", "str", "the scheduler plugin"),
    Column("rejected_nodes", "int", "nodes it rejected, summed over attempts (full detail only)"),
    Column("rejecting_attempts", "int", "attempts in which it rejected at least one node (full detail only)"),
    Column("scored_nodes", "int", "node scores it gave, summed over attempts"),
    Column("score_min", "int", "lowest normalized score"),
    Column("score_p50", "int", "median normalized score (lower middle)"),
    Column("score_mean", "float", "mean normalized score"),
    Column("score_p90", "int", "90th percentile of the normalized scores (nearest rank)"),
    Column("score_max", "int", "highest normalized score"),
    Column("final_mean", "float", "mean final (weighted) score"),
    Column("contested_binds", "int", "binding attempts in which it scored at least two nodes"),
    Column("decided_winner", "int", "of those, binds whose winner another node would have beaten without "
                                    "this plugin's score"),
    Column("decided_share", "float", "decided_winner / contested_binds"),
)

FILTER_REASON_COLUMNS = (
    Column("reason", "str", "the rejection message"),
    Column("plugin", "str", "the Filter plugin that gave it (empty when the detail level did not record it)"),
    Column("nodes", "int", "nodes rejected with it, summed over attempts"),
    Column("attempts", "int", "attempts in which it rejected at least one node"),
    Column("pods", "int", "distinct pods whose attempts it rejected nodes of"),
    Column("failed_nodes", "int", "nodes rejected with it in failed attempts (the pod stayed pending)"),
    Column("failed_attempts", "int", "failed attempts in which it rejected at least one node"),
)


@attrs.define
class _PluginStats:
    rejected_nodes: int = 0
    rejecting_attempts: int = 0
    scores: Counter[int] = attrs.field(factory=Counter)
    final_sum: int = 0
    contested: int = 0
    decided: int = 0


def _percentile(hist: Counter[int], q: float) -> int | None:
    """Nearest-rank percentile of a histogram of ints (q in (0, 1])."""
    total = sum(hist.values())
    if total == 0:
        return None
    rank = max(1, math.ceil(round(q * total, 9)))
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= rank:
            return value
    return max(hist)


class PluginTable:
    """Aggregator of the "plugins" table; see PLUGIN_COLUMNS."""

    name = "plugins"

    def initial(self) -> dict[str, _PluginStats]:
        return {}

    def fold(self, acc: dict[str, _PluginStats], event: TimelineEvent, state: ClusterState) -> dict[str, _PluginStats]:
        if event.kind not in ("podScheduled", "podUnscheduled"):
            return acc
        for attempt in new_attempts(event):
            for per_node in attempt.plugin_results.filter.values():
                for plugin in per_node:
                    if plugin not in acc:
                        acc[plugin] = _PluginStats()
            per_plugin: Counter[str] = Counter(plugin for _, plugin, _ in rejections(attempt))
            for plugin, n in per_plugin.items():
                s = acc.setdefault(plugin, _PluginStats())
                s.rejected_nodes += n
                s.rejecting_attempts += 1
            for per in attempt.plugin_results.score.values():
                for plugin, score in per.items():
                    s = acc.setdefault(plugin, _PluginStats())
                    s.scores[score.normalized_score] += 1
                    s.final_sum += score.final_score
        pr = event.pod_result
        if event.kind == "podScheduled" and pr is not None and pr.bound_to and pr.schedule_result:
            self._winner(acc, pr.schedule_result[-1], pr.bound_to)
        return acc

    @staticmethod
    def _winner(acc: dict[str, _PluginStats], attempt: Any, winner: str) -> None:
        scores = attempt.plugin_results.score
        total = totals(attempt)
        if winner not in total or len(total) < 2:
            return
        plugins = sorted({p for per in scores.values() for p in per})
        for plugin in plugins:
            s = acc.setdefault(plugin, _PluginStats())
            s.contested += 1
            own = scores[winner].get(plugin)
            without = total[winner] - (own.final_score if own is not None else 0)
            for node, per in scores.items():
                if node == winner:
                    continue
                other = per.get(plugin)
                if total[node] - (other.final_score if other is not None else 0) > without:
                    s.decided += 1
                    break

    def table(self, acc: dict[str, _PluginStats]) -> Table:
        rows = []
        for plugin in sorted(acc):
            s = acc[plugin]
            n = sum(s.scores.values())
            rows.append((
                plugin, s.rejected_nodes, s.rejecting_attempts, n,
                min(s.scores) if n else None, _percentile(s.scores, 0.5),
                sum(v * c for v, c in s.scores.items()) / n if n else None,
                _percentile(s.scores, 0.9), max(s.scores) if n else None,
                s.final_sum / n if n else None, s.contested, s.decided,
                s.decided / s.contested if s.contested else None,
            ))
        return Table(self.name, PLUGIN_COLUMNS, rows, "one row per scheduler plugin that filtered or scored a node")


@attrs.define
class _ReasonStats:
    nodes: int = 0
    attempts: int = 0
    pods: set[str] = attrs.field(factory=set)
    failed_nodes: int = 0
    failed_attempts: int = 0


class FilterReasonTable:
    """Aggregator of the "filter_reasons" table; see FILTER_REASON_COLUMNS."""

    name = "filter_reasons"

    def initial(self) -> dict[tuple[str, str | None], _ReasonStats]:
        return {}

    def fold(self, acc: dict[tuple[str, str | None], _ReasonStats], event: TimelineEvent,
             state: ClusterState) -> dict[tuple[str, str | None], _ReasonStats]:
        if event.kind not in ("podScheduled", "podUnscheduled"):
            return acc
        _, _, namespace, name = event.target
        pod = f"{namespace}/{name}"
        failed = event.kind == "podUnscheduled"
        for attempt in new_attempts(event):
            counts: Counter[tuple[str, str | None]] = Counter()
            if attempt.plugin_results.filter:
                for _, plugin, message in rejections(attempt):
                    counts[(message, plugin)] += 1
            else:
                for reason, n in (attempt.filter_reason_counts or {}).items():
                    counts[(reason, None)] += n
            for key, n in counts.items():
                s = acc.setdefault(key, _ReasonStats())
                s.nodes += n
                s.attempts += 1
                s.pods.add(pod)
                if failed:
                    s.failed_nodes += n
                    s.failed_attempts += 1
        return acc

    def table(self, acc: dict[tuple[str, str | None], _ReasonStats]) -> Table:
        items = sorted(acc.items(), key=lambda kv: (-kv[1].nodes, kv[0][0], kv[0][1] or ""))
        rows = [(reason, plugin, s.nodes, s.attempts, len(s.pods), s.failed_nodes, s.failed_attempts)
                for (reason, plugin), s in items]
        return Table(self.name, FILTER_REASON_COLUMNS, rows, "one row per rejection reason (and plugin), most nodes first")
