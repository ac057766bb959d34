"""Scheduler plugins that fail on purpose: Error statuses at every extension point, scores out
of range, and Python exceptions; an admission hook that raises when a pod named "crash-on-bind"
is bound. Loaded with KUBESIM_PLUGINS by test_plugin_failures_e2e.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim import hookimpl
from kubesim_scheduler import (
    BindPlugin,
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    PermitPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kubesim_scheduler.framework.interface import NodeScore

Pod = Mapping[str, Any]


def broken() -> Status:
    return Status(Code.ERROR, "broken")


class ErrorPreFilter(PreFilterPlugin):
    name = "ErrorPreFilter"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[PreFilterResult | None, Status | None]:
        return None, broken()


class ErrorFilter(FilterPlugin):
    name = "ErrorFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return broken()


class ErrorPreScore(PreScorePlugin):
    name = "ErrorPreScore"

    def pre_score(self, state: CycleState, pod: Pod, nodes: Any) -> Status | None:
        return broken()


class ErrorScore(ScorePlugin):
    name = "ErrorScore"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 0, broken()


class ErrorNormalize(ScorePlugin):
    name = "ErrorNormalize"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 10

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        return broken()


class ScoreTooHigh(ScorePlugin):
    name = "ScoreTooHigh"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 150


class NormalizedTooLow(ScorePlugin):
    name = "NormalizedTooLow"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 10

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        for s in scores:
            s.score = -1
        return None


class ErrorReserve(ReservePlugin):
    name = "ErrorReserve"

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return broken()

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


class ErrorPermit(PermitPlugin):
    name = "ErrorPermit"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return broken(), 0.0


class ErrorPreBind(PreBindPlugin):
    name = "ErrorPreBind"

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return broken()


class ErrorBind(BindPlugin):
    name = "ErrorBind"

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return broken()


def lookup(table: dict[str, int], key: str) -> int:
    return table[key]  # CRASH-LOOKUP


class CrashFilter(FilterPlugin):
    name = "CrashFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        lookup({}, "x")
        return None


class CrashScore(ScorePlugin):
    name = "CrashScore"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return int("not a number")  # CRASH-SCORE


PLUGINS = [ErrorPreFilter, ErrorFilter, ErrorPreScore, ErrorScore, ErrorNormalize, ScoreTooHigh, NormalizedTooLow,
           ErrorReserve, ErrorPermit, ErrorPreBind, ErrorBind, CrashFilter, CrashScore]


@hookimpl
def kubesim_scheduler_plugins() -> dict[str, type]:
    return {p.name: p for p in PLUGINS}


@hookimpl
def kubesim_admission(request: Any) -> None:
    """Raises when the scheduler binds a pod named "crash-on-bind"."""
    if request.subresource == "binding" and request.name == "crash-on-bind":
        raise RuntimeError("no binding for you")  # CRASH-ADMISSION
    return None
