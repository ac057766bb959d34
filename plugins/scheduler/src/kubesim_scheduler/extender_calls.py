"""The scheduling and binding cycles' calls to scheduler extenders (the HTTP client is extender.py).

Follows kubernetes pkg/scheduler/schedule_one.go, which keeps these beside the cycle:
findNodesThatPassExtenders (filter), the extender part of prioritizeNodes, and
extendersBinding. Responses are kept on the attempt being recorded, for pod annotations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kubesim.plugins.crash import PluginCrashed

from .attempt import PASSED, ScheduleAttempt
from .cycle import Cycle
from .extender import Extender, ExtenderError
from .extender_types import EXTENDER_NAME, MAX_EXTENDER_PRIORITY
from .framework.diagnosis import NodeToStatus
from .framework.handle import Handle
from .framework.interface import MAX_NODE_SCORE
from .framework.node_table import NodeTable
from .framework.pod_info import PodInfo
from .framework.runtime import ScoreOutcome
from .framework.status import Code, Status

__all__ = ["ExtenderCalls"]


class ExtenderCalls:
    """The configured extenders, called in order, over the scheduler's node table."""

    def __init__(self, extenders: Sequence[Extender], table: NodeTable, handle: Handle) -> None:
        self.extenders = list(extenders)
        self.filters = any(e.is_filter() for e in self.extenders)
        self.prioritizers = any(e.is_prioritizer() for e in self.extenders)
        # the attempt whose extender responses are kept (when it records point results)
        self.recording: ScheduleAttempt | None = None
        self._table = table
        self._handle = handle

    def record(self, verb: str, extender: Any, response: Any) -> None:
        """Keep an extender's response on the attempt being run (when recording)."""
        attempt = self.recording
        if attempt is not None and attempt.point_results is not None:
            attempt.extender_responses.setdefault(verb, {})[extender.name] = response

    def filter(self, cyc: Cycle, *, nominated: bool = False) -> Status | None:
        """findNodesThatPassExtenders over cyc.feasible: each interested filter extender in
        turn keeps a subset; the nodes it fails get its message as their status. An extender
        error fails the attempt unless the extender is ignorable. For the nominated-node
        shortcut (`nominated`), the rejection is not counted against "Extender"."""
        attempt, diag, pod = cyc.attempt, cyc.diagnosis, cyc.pod_info.pod
        table = self._table
        rows = cyc.feasible
        before = len(rows)
        statuses: dict[str, Status] = {}
        sent: set[str] = set()
        err: Status | None = None
        for ext in self.extenders:
            if not len(rows):
                break
            if not ext.is_filter() or not ext.is_interested(pod):
                continue
            names = [table.row_names[r] for r in rows.tolist()]
            try:
                res = ext.filter(pod, names, lambda rs=rows: [table.nodes[r] for r in rs.tolist()])  # type: ignore[misc]
            except ExtenderError as e:
                if ext.is_ignorable():
                    continue
                err = Status.from_error(e)
                break
            self.record("filter", ext, res.raw)
            sent.update(names)
            kept = res.node_names or []
            failed = {**{n: (Code.UNSCHEDULABLE, m) for n, m in res.failed.items()},
                      **{n: (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, m) for n, m in res.failed_and_unresolvable.items()}}
            for n, (code, msg) in failed.items():
                statuses[n] = Status(code, msg, plugin=ext.name)
            keep = set(kept)
            verdicts = {n: PASSED if n in keep else (failed[n][1] if n in failed else "") for n in names}
            attempt._extender_filter.append((ext.name, verdicts))
            if ext.name not in attempt.extender_names:
                attempt.extender_names.append(ext.name)
            seen: set[str] = set()
            new_rows = []
            for n in kept:
                if n not in seen:
                    seen.add(n)
                    new_rows.append(table.name_to_row[n])
            rows = np.array(new_rows, dtype=np.intp)
        if attempt._extender_filter:
            attempt._plugin_feasible_rows = cyc.feasible
        cyc.feasible = rows
        attempt._feasible_rows = rows
        if statuses:
            attempt._extender_statuses.update(statuses)
            old = diag.node_to_status
            new_names = [n for n in statuses if n in sent]
            size = len(old) + len(new_names) if len(new_names) == len(statuses) else None

            def load(old: NodeToStatus = old, extra: dict[str, Status] = statuses) -> dict[str, Status]:
                return {**old.explicit(), **extra}

            if size is None:
                merged = NodeToStatus(absent_status=old.absent_status)
                for n, st in load().items():
                    merged.set(n, st)
                diag.node_to_status = merged
            else:
                diag.node_to_status = NodeToStatus(absent_status=old.absent_status, loader=load, size=size)
        if len(rows) != before and not nominated:
            diag.unschedulable_plugins.add(EXTENDER_NAME)
        return err

    def prioritize(self, cyc: Cycle, sc: ScoreOutcome) -> None:
        """prioritizeNodes' extender part: each interested prioritizer's score (0..10) is
        scaled to the node score range and weighted; a failing extender gives no scores."""
        pod, attempt = cyc.pod_info.pod, cyc.attempt
        table = self._table
        rows = sc.rows
        names: list[str] | None = None
        pos: dict[str, int] = {}
        for ext in self.extenders:
            if not ext.is_prioritizer() or not ext.is_interested(pod):
                continue
            if names is None:
                names = [table.row_names[r] for r in rows.tolist()]
                pos = {n: i for i, n in enumerate(names)}
            try:
                scores, weight = ext.prioritize(pod, names, lambda: [table.nodes[r] for r in rows.tolist()])
            except ExtenderError:
                continue  # upstream logs it: the other plugins and extenders decide
            scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
            self.record("prioritize", ext, [{"Host": h, "Score": v * weight * scale} for h, v in scores])
            raw = np.zeros(len(rows), dtype=np.int64)
            for host, score in scores:
                i = pos.get(host)
                if i is not None:
                    raw[i] += score
            final = raw * weight * scale
            sc.plugins.append(ext.name)
            sc.raw.append(raw)
            sc.normalized.append(raw * scale)
            sc.final.append(final)
            sc.total += final
            if ext.name not in attempt.extender_names:
                attempt.extender_names.append(ext.name)

    def bind(self, pi: PodInfo, node: str) -> tuple[bool, Status | None]:
        """extendersBinding: the first interested binder extender binds (an ignorable one that
        fails is skipped). The extender cannot reach the simulated API server, so its binding
        is written here, through the scheduler's binder, as the extender's effect."""
        for ext in self.extenders:
            if not ext.is_binder() or not ext.is_interested(pi.pod):
                continue
            try:
                response = ext.bind(pi.pod, node)
            except ExtenderError as e:
                if ext.is_ignorable():
                    continue
                return True, Status.from_error(e)
            self.record("bind", ext, response)
            try:
                self._handle.bind(pi.pod, node)
            except PluginCrashed:
                raise  # an admission hook raised: ends the run
            except Exception as e:  # noqa: BLE001 - a failed write is an Error status, as for DefaultBinder
                return True, Status.from_error(e)
            return True, None
        return False, None
