"""The scenario result: a timeline of events keyed by MajorStep (KEP-140).

Besides the results of create/patch/delete/done operations, the timeline holds the
PodScheduled, PodUnscheduled and PodPreempted events of the earlier KEP revision, each
with a PodResult and the per-attempt, per-plugin scheduling results.
"""

from __future__ import annotations

from typing import Any

import attrs

from kubesim.api.converter import register_interned, register_shared
from kubesim.api.operations import (
    CreateOperation,
    DeleteOperation,
    DoneOperation,
    PatchOperation,
    ScenarioStep,
)

__all__ = [
    "CreateOperationResult",
    "DeleteOperationResult",
    "DoneOperationResult",
    "PatchOperationResult",
    "PodMigration",
    "PodResult",
    "ScenarioPluginsResults",
    "ScenarioPluginsScoreResult",
    "ScenarioPodScheduleResult",
    "ScenarioResult",
    "ScenarioTimelineEvent",
]


@attrs.frozen
class ScenarioPluginsScoreResult:
    """One Score plugin's scores for one node."""

    raw_score: int
    normalized_score: int
    final_score: int


register_interned(ScenarioPluginsScoreResult)  # a large result holds ~10^5 of them, few distinct
register_shared(ScenarioStep)  # each pod's events name the same few steps (created, bound, attempted)
# one node's scores {plugin: score}: many nodes and pods have the same ones
register_shared(dict[str, ScenarioPluginsScoreResult], key=lambda scores: tuple(scores.items()))
# the empty lists and maps of a summary or a detail-none attempt (a pending pod has one per retry)
register_shared(list[str], key=lambda items: None if items else ())
register_shared(dict[str, int], key=lambda counts: None if counts else ())


@attrs.frozen
class ScenarioPluginsResults:
    """Filter results map[node][plugin]status and score results map[node][plugin]scores."""

    filter: dict[str, dict[str, str]] = attrs.field(factory=dict)
    score: dict[str, dict[str, ScenarioPluginsScoreResult]] = attrs.field(factory=dict)


register_shared(ScenarioPluginsResults, key=lambda r: None if r.filter or r.score else ())


@attrs.frozen
class ScenarioPodScheduleResult:
    """One scheduling attempt of one pod."""

    step: ScenarioStep | None = None
    all_candidate_nodes: list[str] = attrs.field(factory=list)
    all_filtered_nodes: list[str] = attrs.field(factory=list)
    plugin_results: ScenarioPluginsResults = attrs.field(factory=ScenarioPluginsResults)
    # kubesim extensions: the attempt's outcome message (upstream FitError text) and, at
    # the summary detail level (where the node lists are left out), the node counts and
    # how many nodes each filter reason rejected.
    message: str | None = None
    candidate_node_count: int | None = None
    filtered_node_count: int | None = None
    filter_reason_counts: dict[str, int] | None = None


@attrs.frozen
class PodResult:
    """What happened to one pod, as of the event carrying it."""

    pod: dict[str, Any]
    created_at: ScenarioStep
    bound_to: str | None = None
    preempted_by: str | None = None
    bound_at: ScenarioStep | None = None
    preempted_at: ScenarioStep | None = None
    schedule_result: list[ScenarioPodScheduleResult] = attrs.field(factory=list)


@attrs.frozen
class CreateOperationResult:
    """A create that was done, and the object after it."""

    operation: CreateOperation
    result: dict[str, Any]


@attrs.frozen
class PatchOperationResult:
    """A patch that was done, and the object after it."""

    operation: PatchOperation
    result: dict[str, Any]


@attrs.frozen
class DeleteOperationResult:
    """A delete that was done."""

    operation: DeleteOperation


@attrs.frozen
class DoneOperationResult:
    """The done operation that ended the scenario."""

    operation: DoneOperation


@attrs.frozen
class PodMigration:
    """A pod moved to another node (kubesim extension, simulated time: a `podMigrated` event).

    The source pod's usage froze at `started_at`; the pod `target_pod` was created on
    `target_node` at `finished_at`, `downtime_seconds` later; the source then terminated.
    """

    pod: str
    namespace: str
    source_node: str
    target_pod: str
    target_node: str
    size_gb: float
    downtime_seconds: int
    started_at: str
    finished_at: str


@attrs.frozen
class ScenarioTimelineEvent:
    """One thing that happened at `step`; exactly one result field is set.

    `id` equals the operation's id for scenario operations and is generated
    otherwise; `actor` (a kubesim extension) names who made the change.
    """

    id: str
    step: ScenarioStep
    actor: str | None = None
    create: CreateOperationResult | None = None
    patch: PatchOperationResult | None = None
    delete: DeleteOperationResult | None = None
    done: DoneOperationResult | None = None
    pod_scheduled: PodResult | None = None
    pod_unscheduled: PodResult | None = None
    pod_preempted: PodResult | None = None
    pod_migrated: PodMigration | None = None


@attrs.define
class ScenarioResult:
    """The simulator's version and the timeline keyed by MajorStep (as a decimal string).

    `scenario_hash` (a kubesim extension, kubesim.api.digest) is the hash of the spec the
    run started with; results written by older versions have none.
    """

    simulator_version: str = ""
    scenario_hash: str | None = None
    timeline: dict[str, list[ScenarioTimelineEvent]] = attrs.field(factory=dict)
    metrics: list[dict[str, Any]] | None = None
    """kubesim extension (simulated time): the metrics records written every metricsTick, each
    as one JSON line of `kubesim run --metrics` (k8s-cluster-simulator's shape)."""
