"""Scheduling attempts as Scenario API results, at a chosen level of detail.

full: every candidate and feasible node, each Filter plugin's result per node
("passed" or the rejection), each Score plugin's raw/normalized/final score per node.
summary: node counts, filter reasons aggregated over nodes (as in upstream's
"0/5000 nodes are available: ..."), and the scores of the best nodes only.
none: the step and the outcome message.
"""

from __future__ import annotations

from kubesim.api import (
    ScenarioPluginsResults,
    ScenarioPluginsScoreResult,
    ScenarioPodScheduleResult,
    ScenarioStep,
)

from .attempt import ScheduleAttempt

__all__ = ["AUTO_FULL_MAX_NODES", "DETAIL_LEVELS", "SUMMARY_BEST_NODES", "schedule_result", "trim_level"]

DETAIL_LEVELS = ("auto", "full", "summary", "none")
AUTO_FULL_MAX_NODES = 100
SUMMARY_BEST_NODES = 10


def effective_detail(detail: str, num_nodes: int) -> str:
    """Resolve "auto": full up to AUTO_FULL_MAX_NODES nodes, summary above."""
    if detail == "auto":
        return "full" if num_nodes <= AUTO_FULL_MAX_NODES else "summary"
    return detail


def trim_level(detail: str) -> str | int:
    """The Scheduler's own detail setting for a resolved detail level."""
    levels: dict[str, str | int] = {"full": "all", "summary": SUMMARY_BEST_NODES, "none": "none"}
    return levels[detail]


_SCORE_RESULTS: dict[tuple[int, int, int], ScenarioPluginsScoreResult] = {}
_SCORE_RESULTS_MAX = 65536


def _score_result(triple: tuple[int, int, int]) -> ScenarioPluginsScoreResult:
    """The (frozen) score result for (raw, normalized, final), shared between equal values:
    a run holds hundreds of thousands of them with a few thousand distinct values."""
    hit = _SCORE_RESULTS.get(triple)
    if hit is None:
        if len(_SCORE_RESULTS) >= _SCORE_RESULTS_MAX:
            _SCORE_RESULTS.clear()
        hit = _SCORE_RESULTS[triple] = ScenarioPluginsScoreResult(*triple)
    return hit


_SCORE_MAPS: dict[tuple[tuple[str, tuple[int, int, int]], ...], dict[str, ScenarioPluginsScoreResult]] = {}


def _score_map(per: dict[str, tuple[int, int, int]]) -> dict[str, ScenarioPluginsScoreResult]:
    """One node's {plugin: score result}, one shared (read-only) dict per distinct map: most nodes
    and pods repeat a few (about 1.5 KB a pod at --detail summary otherwise)."""
    key = tuple(per.items())
    hit = _SCORE_MAPS.get(key)
    if hit is None:
        if len(_SCORE_MAPS) >= _SCORE_RESULTS_MAX:
            _SCORE_MAPS.clear()
        hit = _SCORE_MAPS[key] = {p: _score_result(t) for p, t in per.items()}
    return hit


_MESSAGES: dict[str, str] = {}


def _message(text: str) -> str | None:
    """The attempt's message, one shared string per distinct text: a pending pod retried every
    tick gets the same FitError message each time."""
    if not text:
        return None
    hit = _MESSAGES.get(text)
    if hit is None:
        if len(_MESSAGES) >= _SCORE_RESULTS_MAX:
            _MESSAGES.clear()
        hit = _MESSAGES[text] = text
    return hit


def schedule_result(attempt: ScheduleAttempt, step: ScenarioStep, detail: str) -> ScenarioPodScheduleResult:
    """One attempt as a ScenarioPodScheduleResult at `detail` (full, summary or none)."""
    message = _message(attempt.message())
    if detail == "none":
        return ScenarioPodScheduleResult(step=step, message=message)
    scores = {node: _score_map(per) for node, per in attempt.score_triples().items()}
    if detail == "full":
        return ScenarioPodScheduleResult(
            step=step,
            all_candidate_nodes=attempt.candidate_nodes(),
            all_filtered_nodes=attempt.feasible_nodes(),
            plugin_results=ScenarioPluginsResults(filter=attempt.filter_results(), score=scores),
            message=message,
        )
    return ScenarioPodScheduleResult(
        step=step,
        plugin_results=ScenarioPluginsResults(score=scores),
        message=message,
        candidate_node_count=attempt.num_all_nodes,
        filtered_node_count=attempt.num_feasible_nodes(),
        filter_reason_counts=dict(sorted(attempt.reason_counts().items())),
    )
