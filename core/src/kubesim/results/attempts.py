"""Reading scheduling attempts: which are new in an event, what rejected nodes, what scored them.

The scheduler records each failed attempt as a podUnscheduled event holding that
attempt, and a bind as a podScheduled event holding every attempt since the pod was
last bound; so the attempts an event adds are the podUnscheduled's one and the
podScheduled's last. Filter results name the rejecting plugin per node at the full
detail level; the summary level only keeps reason -> node counts.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesim.api import ScenarioPodScheduleResult
from kubesim.results.events import TimelineEvent

__all__ = ["PASSED", "describe_reasons", "new_attempts", "reason_counts", "rejections", "totals"]

PASSED = "passed"


def new_attempts(event: TimelineEvent) -> list[ScenarioPodScheduleResult]:
    """The attempts that `event` records for the first time (none for other kinds)."""
    pr = event.pod_result
    if pr is None or not pr.schedule_result:
        return []
    if event.kind == "podUnscheduled":
        return list(pr.schedule_result)
    if event.kind == "podScheduled":
        return [pr.schedule_result[-1]]
    return []


def rejections(attempt: ScenarioPodScheduleResult) -> list[tuple[str, str, str]]:
    """(node, plugin, message) for every node a Filter plugin rejected (full detail only), by node."""
    out = []
    for node, per_plugin in sorted(attempt.plugin_results.filter.items()):
        for plugin, message in per_plugin.items():
            if message != PASSED:
                out.append((node, plugin, message))
                break
    return out


def reason_counts(attempt: ScenarioPodScheduleResult) -> dict[str, int]:
    """Rejection reason -> number of nodes, from the filter results or the summary counts."""
    if attempt.plugin_results.filter:
        counts: dict[str, int] = {}
        for _, _, message in rejections(attempt):
            counts[message] = counts.get(message, 0) + 1
        return counts
    return dict(attempt.filter_reason_counts or {})


def totals(attempt: ScenarioPodScheduleResult) -> dict[str, int]:
    """node -> sum of the Score plugins' final scores, for the nodes the attempt recorded."""
    return {node: sum(s.final_score for s in per.values()) for node, per in attempt.plugin_results.score.items()}


def describe_reasons(counts: Mapping[str, int]) -> str:
    """"reason (n nodes); ..." with the most frequent first, ties by reason."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "; ".join(f"{reason} ({n})" for reason, n in items)

