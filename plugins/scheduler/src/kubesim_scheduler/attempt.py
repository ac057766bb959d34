"""ScheduleAttempt: what one scheduling attempt decided, with per-node, per-plugin details.

Details are kept as the arrays the cycle produced and turned into dicts only when asked;
`trim()` applies the detail level (all nodes, the best N nodes, or nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kubesim.k8s.keys import namespaced_name, pod_key

from .framework.diagnosis import FitError
from .framework.runtime import FilterOutcome, PointResults, Rejection, ScoreOutcome
from .framework.status import Code, Status

__all__ = ["ScheduleAttempt", "PASSED", "PluginScore", "best_positions"]

PASSED = "passed"

# a plain plugin rejection of one node: (plugin, code, reasons)
_Rejected = tuple[str, int, Sequence[str]]
# codes whose Status is the plugin's own (others become an Error status, as in Rejection.status)
_REJECT_CODES = frozenset((int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING)))
# int8 code -> whether it is in _REJECT_CODES (indexed by the code as uint8)
_IS_REJECT_CODE = np.zeros(256, dtype=bool)
_IS_REJECT_CODE[sorted(_REJECT_CODES)] = True

# per plugin: {"rawScore", "normalizedScore", "finalScore"}
PluginScore = dict[str, int]


class ScheduleAttempt:
    """The outcome of scheduling one pod once (a ScenarioPodScheduleResult's source).

    `node` is the selected node (None when the attempt failed); `status` is None on success,
    else the failure (its `error` is a FitError when no node fit). After a preemption,
    `nominated_node` is where the pod was nominated and `victims` the pods evicted for it.

    Extenders add their own entries: per-node filter verdicts and score columns under each
    extender's name. `point_results` (when the scheduler records them) holds the per-plugin
    results of the other extension points, `reserved_node` the node Reserve ran for, and
    `extender_responses` verb -> extender -> response, for the pod annotations.
    """

    def __init__(self, pod: Mapping[str, Any], profile: str, time: float) -> None:
        self.pod = pod
        self.profile = profile
        self.time = time
        self.node: str | None = None
        # the node-table row of `node` when selectHost chose it among the scored rows
        self.selected_row: int | None = None
        self.status: Status | None = None
        self.bound = False
        self.num_all_nodes = 0
        self.pre_filter_status: Status | None = None
        self.pre_filter_excluded_status: Status | None = None
        self.post_filter_status: Status | None = None
        self.nominated_node: str | None = None
        # pods this attempt's preemption evicted (asked the cluster to delete)
        self.victims: list[Mapping[str, Any]] = []
        self.filter_plugins: list[str] = []
        self._names: np.ndarray | None = None
        self._all_rows: np.ndarray | None = None
        self._filter: FilterOutcome | None = None
        self._processed_upto: int = -1
        self._feasible_rows: np.ndarray | None = None
        self._score: ScoreOutcome | None = None
        self._statuses: dict[str, Status] | None = None
        self._rejected: list[tuple[str, Status | _Rejected]] | None = None
        self.point_results: PointResults | None = None
        self.reserved_node: str | None = None
        # extenders: names of those whose columns/entries appear below, their per-node filter
        # verdicts (node -> "passed" or message), the statuses of nodes they rejected, and the
        # feasible rows before they ran (None: no extender filtered)
        self.extender_names: list[str] = []
        self.extender_responses: dict[str, dict[str, Any]] = {}
        self._extender_filter: list[tuple[str, dict[str, str]]] = []
        self._extender_statuses: dict[str, Status] = {}
        self._plugin_feasible_rows: np.ndarray | None = None

    # --------------------------------------------------------------- basics
    @property
    def pod_name(self) -> str:
        md = self.pod.get("metadata") or {}
        return namespaced_name(md.get("namespace"), md.get("name", ""))

    @property
    def pod_key(self) -> str:
        return pod_key(self.pod)

    @property
    def succeeded(self) -> bool:
        return self.node is not None and (self.status is None or self.status.is_success())

    @property
    def fit_error(self) -> FitError | None:
        if self.status is not None and isinstance(self.status.error, FitError):
            return self.status.error
        return None

    def message(self) -> str:
        """The failure message (upstream's FitError text for unschedulable pods)."""
        return "" if self.status is None else self.status.message()

    # ------------------------------------------------------------ node sets
    def candidate_nodes(self) -> list[str]:
        """All nodes the attempt considered (the snapshot's nodes)."""
        if self._all_rows is None or self._names is None:
            return []
        result: list[str] = self._names[self._all_rows].tolist()
        return result

    def feasible_nodes(self) -> list[str]:
        """Nodes that passed PreFilter and Filter."""
        if self._feasible_rows is None or self._names is None:
            return []
        result: list[str] = self._names[self._feasible_rows].tolist()
        return result

    def num_feasible_nodes(self) -> int:
        """len(feasible_nodes()) without building the list."""
        if self._feasible_rows is None or self._names is None:
            return 0
        return len(self._feasible_rows)

    # --------------------------------------------------------------- filter
    def filter_statuses(self) -> dict[str, Status]:
        """Rejected node -> the status of the first plugin (or extender) that rejected it."""
        if self._extender_statuses:
            return {**self.plugin_filter_statuses(), **self._extender_statuses}
        return self.plugin_filter_statuses()

    def plugin_filter_statuses(self) -> dict[str, Status]:
        """Rejected node -> the status of the first Filter plugin that rejected it."""
        if self._statuses is not None:
            return self._statuses
        out: dict[str, Status] = {}
        for node, entry in self._rejected_nodes():
            out[node] = entry if isinstance(entry, Status) else Status(Code(entry[1]), *entry[2], plugin=entry[0])
        self._statuses = out
        return out

    def _rejected_nodes(self) -> list[tuple[str, Status | _Rejected]]:
        """Rejected nodes in filter order, each with its Status or, for a plain plugin
        rejection, (plugin, code, reasons) to build one from.

        Summary results only count reasons; building a Status per rejected node took a
        quarter of the time of an anti-affinity run with thousands of rejections per pod.
        """
        if self._rejected is not None:
            return self._rejected
        out: list[tuple[str, Status | _Rejected]] = []
        if self._names is not None and self._all_rows is not None:
            names = self._names
            if self.pre_filter_status is not None:
                out = [(n, self.pre_filter_status) for n in names[self._all_rows].tolist()]
            else:
                if self.pre_filter_excluded_status is not None and self._filter is not None:
                    considered = set(self._filter.rows.tolist())
                    for r in self._all_rows.tolist():
                        if r not in considered:
                            out.append((names[r], self.pre_filter_excluded_status))
                if self._filter is not None:
                    rows = self._filter.rows
                    for rej in self._filter.rejections:
                        kept = np.flatnonzero(rej.pos <= self._processed_upto)
                        plain = type(rej) is Rejection
                        for i, row, code in zip(
                            kept.tolist(), rows[rej.pos[kept]].tolist(), rej.codes[kept].tolist()
                        ):
                            if plain and code in _REJECT_CODES:
                                out.append((names[row], (rej.plugin, code, rej.result.reasons(row))))
                            else:
                                out.append((names[row], rej.status(i, row)))
        self._rejected = out
        return out

    def filter_results(self, passed: str = PASSED) -> dict[str, dict[str, str]]:
        """node -> plugin -> 'passed' or the rejection message, for every Filter plugin run
        (and every extender that filtered the node)."""
        out: dict[str, dict[str, str]] = {}
        statuses = self.plugin_filter_statuses()
        feasible = self._plugin_feasible_rows if self._plugin_feasible_rows is not None else self._feasible_rows
        if feasible is not None and self._names is not None:
            for node in self._names[feasible].tolist():
                out[node] = {p: passed for p in self.filter_plugins}
        for node, st in statuses.items():
            d: dict[str, str] = {}
            if st.plugin in self.filter_plugins:
                for p in self.filter_plugins:
                    if p == st.plugin:
                        break
                    d[p] = passed
            d[st.plugin or "PreFilterResult"] = st.message()
            out[node] = d
        for name, verdicts in self._extender_filter:
            for node, msg in verdicts.items():
                out.setdefault(node, {})[name] = passed if msg is PASSED else msg
        return out

    def reason_counts(self) -> dict[str, int]:
        """Reason -> number of nodes, as aggregated in the FitError message."""
        counts: dict[str, int] = {}
        if self._extender_statuses:
            for st in self.filter_statuses().values():
                for r in st.reasons:
                    counts[r] = counts.get(r, 0) + 1
            return counts
        if self._rejected is None and self._tabled_rejections():
            return self._tabled_reason_counts()
        for _node, entry in self._rejected_nodes():
            for r in entry.reasons if isinstance(entry, Status) else entry[2]:
                counts[r] = counts.get(r, 0) + 1
        return counts

    def _tabled_rejections(self) -> bool:
        """Whether every rejection carries its reasons as data (BatchFilterResult.reason_ids),
        so that they can be counted, and read later, without the cycle's state."""
        if self._filter is None or self._names is None or self._all_rows is None:
            return False
        if self.pre_filter_status is not None or self.pre_filter_excluded_status is not None:
            return False
        return all(type(rej) is Rejection and rej.reason_ids is not None for rej in self._filter.rejections)

    def _tabled_reason_counts(self) -> dict[str, int]:
        """reason_counts() from the rejections' reason ids, per rejection with numpy."""
        assert self._filter is not None
        counts: dict[str, int] = {}
        for rej in self._filter.rejections:
            assert rej.reason_ids is not None
            kept = rej.pos <= self._processed_upto
            codes = rej.codes[kept]
            if not _IS_REJECT_CODE[codes.astype(np.uint8)].all():
                # an Error code's status is built by Rejection.status: count those per node
                rows = self._filter.rows
                for i, row in zip(np.flatnonzero(kept).tolist(), rows[rej.pos[kept]].tolist()):
                    for r in rej.status(i, row).reasons:
                        counts[r] = counts.get(r, 0) + 1
                continue
            table = rej.result.reason_table
            per_id = np.bincount(rej.reason_ids[kept].astype(np.intp), minlength=len(table))
            for j in np.flatnonzero(per_id).tolist():
                for r in table[j]:
                    counts[r] = counts.get(r, 0) + int(per_id[j])
        return counts

    # ---------------------------------------------------------------- score
    def scores(self) -> dict[str, dict[str, PluginScore]]:
        """node -> plugin -> {rawScore, normalizedScore, finalScore} for scored nodes."""
        return {
            node: {p: {"rawScore": r, "normalizedScore": n, "finalScore": f} for p, (r, n, f) in per.items()}
            for node, per in self.score_triples().items()
        }

    def score_triples(self) -> dict[str, dict[str, tuple[int, int, int]]]:
        """node -> plugin -> (raw, normalized, final) for scored nodes, in scoring order."""
        out: dict[str, dict[str, tuple[int, int, int]]] = {}
        sc = self._score
        if sc is None or self._names is None:
            return out
        names = self._names[sc.rows].tolist()
        columns = [
            (p, sc.raw[j].tolist(), sc.normalized[j].tolist(), sc.final[j].tolist())
            for j, p in enumerate(sc.plugins)
        ]
        for i, n in enumerate(names):
            out[n] = {p: (raw[i], norm[i], fin[i]) for p, raw, norm, fin in columns}
        return out

    def final_scores(self) -> dict[str, dict[str, int]]:
        return {n: {p: v["finalScore"] for p, v in d.items()} for n, d in self.scores().items()}

    def totals(self) -> dict[str, int]:
        sc = self._score
        if sc is None or self._names is None:
            return {}
        return dict(zip(self._names[sc.rows].tolist(), sc.total.tolist()))

    # ---------------------------------------------------------------- trim
    def trim(self, detail: str | int) -> None:
        """Apply a detail level: 'all' keeps everything, 'none' drops the per-node data, and
        an int N keeps scores of the best N nodes (always including the selected node, which
        a tie may otherwise leave out) plus the filter statuses."""
        if detail == "all":
            return
        if detail == "none":
            self._filter = None
            self._score = None
            self._statuses = None
            self._rejected = None
            self._all_rows = None
            self._feasible_rows = None
            self._plugin_feasible_rows = None
            self._extender_filter = []
            self._extender_statuses = {}
            return
        n = int(detail)
        sc = self._score
        if sc is not None and len(sc.rows) > n:
            keep = best_positions(sc.total, n, sc.top)
            row, pos = self.selected_row, sc.selected_pos
            if (self.node is not None and self._names is not None and row is not None and pos is not None
                    and self._names[row] == self.node):
                # selectHost's choice, by position: no names compared
                if pos not in keep.tolist():
                    keep = np.concatenate((np.array([pos], dtype=keep.dtype), keep[: n - 1]))
            elif self.node is not None and self._names is not None and self.node not in self._names[sc.rows[keep]]:
                # comparing rows, not thousands of names, when the selected row is known
                row = self.selected_row
                known = row is not None and self._names[row] == self.node
                chosen = np.flatnonzero(sc.rows == row) if known else np.flatnonzero(self._names[sc.rows] == self.node)
                if len(chosen):
                    keep = np.concatenate((chosen[:1], keep[: n - 1]))
            trimmed = ScoreOutcome(sc.rows[keep])
            trimmed.plugins = sc.plugins
            trimmed.raw = [a[keep] for a in sc.raw]
            trimmed.normalized = [a[keep] for a in sc.normalized]
            trimmed.final = [a[keep] for a in sc.final]
            trimmed.total = sc.total[keep]
            self._score = trimmed
        # the rejection reasons are read now, from the node table as this cycle saw it;
        # statuses are built from them only when asked for (reasons held as data need no
        # reading: they stay with the filter outcome)
        if not self._tabled_rejections():
            self._rejected_nodes()
            self._filter = None

    def __repr__(self) -> str:
        code = "ok" if self.status is None else str(self.status.code)
        return f"ScheduleAttempt({self.pod_name} -> {self.node}, {code})"


def best_positions(total: np.ndarray, n: int, top: np.ndarray | None = None) -> np.ndarray:
    """Positions of the n highest totals, highest first, ties in position order.

    Equal to np.argsort(-total, kind="stable")[:n] without sorting every node: a partition
    finds the n-th highest value, and only the positions above it (plus the first ones equal
    to it) are sorted. `top`, when known (selectHost found it), is the positions of the
    highest total.
    """
    if len(total) <= n:
        return np.argsort(-total, kind="stable")
    if top is None:
        top = np.flatnonzero(total == total.max())
    if len(top) >= n:  # n or more share the highest total: the first n of them, no sort
        result: np.ndarray = top[:n]
        return result
    threshold = np.partition(total, len(total) - n)[len(total) - n]
    above = np.flatnonzero(total > threshold)
    at = np.flatnonzero(total == threshold)[: n - len(above)]
    keep = np.concatenate((above, at))
    return keep[np.argsort(-total[keep], kind="stable")]
