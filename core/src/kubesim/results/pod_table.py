"""The per-pod table: one row per pod (a pod re-created under the same name gets a new row)."""

from __future__ import annotations

from typing import Any

import attrs

from kubesim.results.attempts import describe_reasons, new_attempts, reason_counts, totals
from kubesim.results.events import TimelineEvent
from kubesim.results.resources import resource_order, unit
from kubesim.results.state import ClusterState, PodState, pod_key
from kubesim.results.table import Column, Table

__all__ = ["POD_COLUMNS", "PodTable"]

POD_COLUMNS = (
    Column("namespace", "str", "the pod's namespace"),
    Column("name", "str", "the pod's name"),
    Column("uid", "str", "metadata.uid"),
    Column("state", "str", "at the end: bound, pending, terminating (deletionTimestamp set), succeeded, "
                           "failed, preempted (deleted after a preemption) or deleted"),
    Column("node", "str", "the node the pod was last bound to"),
    Column("created_step", "int", "MajorStep of the pod's creation"),
    Column("created_minor", "int", "MinorStep of the pod's creation"),
    Column("bound_step", "int", "MajorStep of the (last) bind"),
    Column("bound_minor", "int", "MinorStep of the (last) bind"),
    Column("attempts", "int", "scheduling attempts, failed and successful"),
    Column("unschedulable_reasons", "str", "the last failed attempt's filter reasons: 'reason (nodes); ...'"),
    Column("message", "str", "the last failed attempt's message (upstream FitError text)"),
    Column("score", "int", "sum of the Score plugins' final scores of the chosen node in the binding attempt "
                           "(empty when no score was recorded, e.g. a single feasible node)"),
    Column("preempted_by", "str", "the preemptor named by the podPreempted event"),
    Column("preempted_step", "int", "MajorStep of the preemption"),
    Column("preempted_minor", "int", "MinorStep of the preemption"),
    Column("deleted_step", "int", "MajorStep of the pod's deletion"),
    Column("priority", "int", "spec.priority"),
)


@attrs.define(slots=True)
class _Row:
    namespace: str
    name: str
    uid: str | None
    created: tuple[int, int]
    state: str = "pending"
    node: str | None = None
    bound: tuple[int, int] | None = None
    attempts: int = 0
    reasons: str | None = None
    message: str | None = None
    score: int | None = None
    preempted_by: str | None = None
    preempted: tuple[int, int] | None = None
    deleted: int | None = None
    priority: int = 0
    requests: dict[str, int] = attrs.field(factory=dict)


@attrs.define
class _Acc:
    rows: list[_Row] = attrs.field(factory=list)
    live: dict[str, _Row] = attrs.field(factory=dict)
    resources: set[str] = attrs.field(factory=lambda: {"cpu", "memory"})


def _state(pod: PodState) -> str:
    if pod.terminal:
        return "succeeded" if (pod.object.get("status") or {}).get("phase") == "Succeeded" else "failed"
    if (pod.object.get("metadata") or {}).get("deletionTimestamp"):
        return "terminating"
    return "bound" if pod.node else "pending"


class PodTable:
    """Aggregator of the "pods" table; see POD_COLUMNS, plus `<resource>_request` columns."""

    name = "pods"

    def initial(self) -> _Acc:
        return _Acc()

    def fold(self, acc: _Acc, event: TimelineEvent, state: ClusterState) -> _Acc:
        kind = event.kind
        if kind == "stepEnd" or not event.is_kind("v1", "Pod"):
            return acc
        _, _, namespace, name = event.target
        key = pod_key(namespace, name)
        if kind == "delete":
            row = acc.live.pop(key, None)
            if row is not None:
                row.deleted = event.step.major
                row.state = "preempted" if row.preempted_by is not None else "deleted"
            return acc
        pod = state.pods.get(key)
        row = acc.live.get(key)
        if row is not None and pod is not None and pod.uid and row.uid and pod.uid != row.uid:
            row.state = "deleted"  # replaced without a recorded delete
            row = None
        if row is None:
            created = pod.created if pod is not None else event.step
            row = _Row(namespace or "default", name, pod.uid if pod else None, (created.major, created.minor))
            acc.rows.append(row)
            acc.live[key] = row
        if pod is not None:
            row.uid = pod.uid
            row.node = pod.node or row.node
            row.priority = pod.priority
            row.requests = pod.requests
            acc.resources.update(k for k in pod.requests if k != "pods")
            row.state = _state(pod)
        pr = event.pod_result
        if pr is None:
            return acc
        for attempt in new_attempts(event):
            row.attempts += 1
            if kind == "podUnscheduled":
                row.reasons = describe_reasons(reason_counts(attempt)) or None
                row.message = attempt.message
        if kind == "podScheduled":
            at = pr.bound_at or event.step
            row.bound = (at.major, at.minor)
            row.node = pr.bound_to or row.node
            last = pr.schedule_result[-1] if pr.schedule_result else None
            row.score = totals(last).get(row.node or "") if last is not None else None
        elif kind == "podPreempted":
            at = pr.preempted_at or event.step
            row.preempted_by = pr.preempted_by
            row.preempted = (at.major, at.minor)
        return acc

    def table(self, acc: _Acc) -> Table:
        resources = resource_order(frozenset(acc.resources))
        columns = POD_COLUMNS + tuple(
            Column(f"{r}_request", "int", f"requested {r} ({unit(r)})") for r in resources
        )
        rows = []
        for r in acc.rows:
            values: list[Any] = [
                r.namespace, r.name, r.uid, r.state, r.node, r.created[0], r.created[1],
                r.bound[0] if r.bound else None, r.bound[1] if r.bound else None, r.attempts, r.reasons,
                r.message, r.score, r.preempted_by, r.preempted[0] if r.preempted else None,
                r.preempted[1] if r.preempted else None, r.deleted, r.priority,
            ]
            values.extend(r.requests.get(res, 0) for res in resources)
            rows.append(tuple(values))
        return Table(self.name, columns, rows, "one row per pod, in creation order")
