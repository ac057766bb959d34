"""A replay of a recorded cluster against what the recorded cluster's scheduler did.

`kubesim record` keeps the real placements in the Scenario (kubesim.importing.placements): the
node of each pod it created pending, and the pods per workload and node at the recording's end.
`compare_recorded(result)` lays the replay's decisions beside them: per pod (same node, another
node, never bound) and per workload and node (how many pods each scheduler put there at the end).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from kubesim.api import Scenario
from kubesim.errors import InvalidInput, Problem
from kubesim.importing.placements import RECORDED_NODE_ANNOTATION, RECORDED_PLACEMENTS_ANNOTATION, decode, workload_of
from kubesim.results.aggregator import aggregate
from kubesim.results.events import TimelineEvent
from kubesim.results.state import ClusterState, pod_key
from kubesim.results.table import Column, Table

__all__ = ["OUTCOMES", "RecordedComparison", "compare_recorded"]

OUTCOMES = ("same node", "another node", "never bound")
"""Per pod: where the replay's scheduler bound it, against the recorded node."""

POD_COLUMNS = (
    Column("namespace", "str", "the pod's namespace"),
    Column("name", "str", "the pod's name"),
    Column("recorded_node", "str", "the node the recorded cluster's scheduler bound it to"),
    Column("simulated_node", "str", "the node the replay's scheduler bound it to (last bind)"),
    Column("outcome", "str", "same node, another node or never bound (in the replay)"),
    Column("deleted", "bool", "the recording deleted the pod later"),
)
WORKLOAD_COLUMNS = (
    Column("workload", "str", "Kind namespace/name (a Deployment's ReplicaSets count as the Deployment)"),
    Column("node", "str", "a node either scheduler put pods of the workload on"),
    Column("recorded", "int", "the workload's pods running there at the recording's end"),
    Column("simulated", "int", "the workload's pods running there at the replay's end"),
)


@attrs.define(slots=True)
class _Pod:
    namespace: str
    name: str
    recorded: str
    node: str | None = None
    deleted: bool = False

    @property
    def outcome(self) -> str:
        if self.node is None:
            return "never bound"
        return "same node" if self.node == self.recorded else "another node"


@attrs.define
class _Acc:
    live: dict[str, _Pod] = attrs.field(factory=dict)
    rows: list[_Pod] = attrs.field(factory=list)


class _RecordedPods:
    """Fold: the pods that carry a recorded node, and where the replay bound them."""

    name = "recorded_pods"

    def initial(self) -> _Acc:
        return _Acc()

    def fold(self, acc: _Acc, event: TimelineEvent, state: ClusterState) -> _Acc:
        if event.kind == "stepEnd" or not event.is_kind("v1", "Pod"):
            return acc
        _, _, namespace, name = event.target
        key = pod_key(namespace, name)
        if event.kind == "delete":
            gone = acc.live.pop(key, None)
            if gone is not None:
                gone.deleted = True
            return acc
        pod = state.pods.get(key)
        if pod is None:
            return acc
        row = acc.live.get(key)
        if row is None:
            recorded = ((pod.object.get("metadata") or {}).get("annotations") or {}).get(RECORDED_NODE_ANNOTATION)
            if not isinstance(recorded, str) or not recorded:
                return acc
            row = acc.live[key] = _Pod(namespace or "default", name, recorded)
            acc.rows.append(row)
        row.node = pod.node or row.node
        return acc

    def table(self, acc: _Acc) -> Table:
        rows = sorted(acc.rows, key=lambda r: (r.namespace, r.name, r.deleted))
        return Table.from_records("recorded_pods", POD_COLUMNS, [
            {"namespace": r.namespace, "name": r.name, "recorded_node": r.recorded, "simulated_node": r.node,
             "outcome": r.outcome, "deleted": r.deleted} for r in rows])


class _FinalPlacements:
    """Fold keeping the cluster state (the one the pass updates); its table: the replay's pods
    running per workload and node at the end (bound, not finished, not being deleted)."""

    name = "final_placements"

    def initial(self) -> list[ClusterState]:
        return []

    def fold(self, acc: list[ClusterState], event: TimelineEvent, state: ClusterState) -> list[ClusterState]:
        return acc or [state]

    def table(self, acc: list[ClusterState]) -> Table:
        counts: Counter[tuple[str, str]] = Counter()
        for pod in (acc[0].pods.values() if acc else ()):
            if pod.node and not pod.terminal and not (pod.object.get("metadata") or {}).get("deletionTimestamp"):
                counts[(workload_of(pod.object), pod.node)] += 1
        return Table.from_records("final_placements", _FINAL_COLUMNS, [
            {"workload": w, "node": n, "pods": c} for (w, n), c in sorted(counts.items())])


_FINAL_COLUMNS = (WORKLOAD_COLUMNS[0], WORKLOAD_COLUMNS[1], Column("pods", "int", "pods running there"))


@attrs.frozen
class RecordedComparison:
    """The replay beside the recording: `pods` (per pod) and `workloads` (per workload and node)."""

    scenario: str
    pods: Table
    workloads: Table

    def summary(self) -> dict[str, int]:
        """Counts: pods by outcome; workload pods recorded and those the replay put on the same node."""
        outcomes = Counter(r["outcome"] for r in self.pods.records())
        recorded = sum(r["recorded"] for r in self.workloads.records())
        same = sum(min(r["recorded"], r["simulated"]) for r in self.workloads.records())
        return {
            "pods": len(self.pods),
            **{o.replace(" ", "_"): outcomes.get(o, 0) for o in OUTCOMES},
            "running_recorded": recorded,
            "running_simulated": sum(r["simulated"] for r in self.workloads.records()),
            "running_on_same_node": same,
        }

    def to_data(self) -> dict[str, Any]:
        """Plain data (sorted, deterministic) for --json."""
        return {"scenario": self.scenario, "summary": self.summary(),
                "pods": list(self.pods.records()), "workloads": list(self.workloads.records())}


def compare_recorded(result: Scenario, file: str | None = None) -> RecordedComparison:
    """The replay in `result` against the placements its recorded Scenario keeps; InvalidInput
    when the result is not a replay of a `kubesim record` scenario."""
    annotations = result.metadata.get("annotations") or {}
    if RECORDED_PLACEMENTS_ANNOTATION not in annotations:
        raise InvalidInput([Problem(f"metadata.annotations[{RECORDED_PLACEMENTS_ANNOTATION!r}]",
                                    "missing: not the result of a scenario `kubesim record` wrote", file)])
    try:
        recorded = decode(annotations[RECORDED_PLACEMENTS_ANNOTATION])
    except ValueError as exc:
        raise InvalidInput([Problem(f"metadata.annotations[{RECORDED_PLACEMENTS_ANNOTATION!r}]", str(exc), file)]
                           ) from None
    tables = aggregate(result, [_RecordedPods(), _FinalPlacements()])
    counts: dict[tuple[str, str], list[int]] = {}
    for workload, nodes in recorded.items():
        for node, n in nodes.items():
            counts.setdefault((workload, node), [0, 0])[0] = n
    for row in tables["final_placements"].records():
        counts.setdefault((row["workload"], row["node"]), [0, 0])[1] = row["pods"]
    workloads = Table.from_records("recorded_workloads", WORKLOAD_COLUMNS, [
        {"workload": w, "node": node, "recorded": r, "simulated": s}
        for (w, node), (r, s) in sorted(counts.items()) if r or s])
    return RecordedComparison(result.name, tables["recorded_pods"], workloads)
