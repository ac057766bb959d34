"""Framework: a profile's plugin instances and the runners for every extension point.

Filter and Score run batch-first over node-table rows; per-node plugins are adapted by
looping over NodeInfo views. A plugin's Error status fails the pod's cycle with upstream's
message naming the plugin; a plugin's Python exception ends the run (PluginCrashed).
"""

# upstream: pkg/scheduler/framework/runtime/framework.go (NewFramework, RunPreFilterPlugins,
# RunPreFilterExtensionAddPod/RemovePod, RunFilterPlugins, RunFilterPluginsWithNominatedPods,
# addGENominatedPods, RunPreScorePlugins, RunScorePlugins, RunPostFilterPlugins,
# RunReservePlugins*, RunPermitPlugins, WaitOnPermit, RunPreBindPlugins, RunBindPlugins, RunPostBindPlugins)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from kubesim.plugins.crash import PluginCrashed

from . import interface as itf
from .cycle_state import CycleState
from .diagnosis import NodeToStatus
from .events import ActionType, ClusterEvent, ClusterEventWithHint, WILDCARD
from .handle import Handle
from .interface import MAX_NODE_SCORE, MIN_NODE_SCORE, BatchFilterResult, NodeScore, PreFilterResult
from .node_info import NodeInfo, NodeInfoList
from .pod_info import PodInfo
from .profile_config import POINT_INTERFACES, ProfileConfig, args_to_dict
from .queued_pod_info import QueuedPodInfo
from .status import Code, Status
from .waiting_pods import MAX_PERMIT_TIMEOUT, WaitingPod, waiting_pod_uid
from .whatif import RowOverlay

__all__ = [
    "Framework", "FilterOutcome", "Rejection", "StatusRejection", "ScoreOutcome", "FrameworkError", "PointResults",
    "SUCCESS_MESSAGE", "WAIT_MESSAGE",
]

#: extension point -> plugin -> result, filled by the runners when asked to record
#: ("preFilter", "preFilterResult", "postFilter", "preScore", "reserve", "permit",
#: "permitTimeout", "preBind", "bind"); what kube-scheduler-simulator's plugin wrappers keep.
PointResults = dict[str, dict[str, Any]]
SUCCESS_MESSAGE = "success"
WAIT_MESSAGE = "wait"


def _note(rec: PointResults | None, point: str, plugin: str, s: Status | None) -> None:
    """Record a plugin's status the way the simulator's wrappers do: "success" or the message."""
    if rec is not None:
        rec.setdefault(point, {})[plugin] = SUCCESS_MESSAGE if s is None or s.is_success() else s.message()

_REJECT_CODES = (int(Code.UNSCHEDULABLE), int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), int(Code.PENDING))


class FrameworkError(ValueError):
    """A profile that cannot be built (unknown plugin, wrong extension point, bad args)."""


class Rejection:
    """Nodes one Filter plugin rejected: positions into the candidate rows, codes, reasons."""

    __slots__ = ("plugin", "pos", "codes", "result", "reason_ids")

    def __init__(
        self,
        plugin: str,
        pos: np.ndarray,
        codes: np.ndarray,
        result: BatchFilterResult,
        reason_ids: np.ndarray | None = None,
    ) -> None:
        self.plugin = plugin
        self.pos = pos
        self.codes = codes
        self.result = result
        # indexes result.reason_table, aligned with pos (None: reasons only per row)
        self.reason_ids = reason_ids

    def status(self, i: int, row: int) -> Status:
        """Status of the i-th rejected node (row is its node-table row)."""
        code = Code(int(self.codes[i]))
        st = Status(code, *self.result.reasons(row), plugin=self.plugin)
        if int(code) not in _REJECT_CODES:
            return Status.from_error(f'running "{self.plugin}" filter plugin: {st.message()}', plugin=self.plugin)
        return st


class StatusRejection(Rejection):
    """One node rejected with a ready-made Status (the nominated-pods pass)."""

    __slots__ = ("_status",)

    def __init__(self, pos: int, status: Status) -> None:
        codes = np.array([int(status.code)], dtype=np.int8)
        super().__init__(status.plugin, np.array([pos], dtype=np.intp), codes, BatchFilterResult(codes, lambda _r: status.reasons))
        self._status = status

    def status(self, i: int, row: int) -> Status:
        return self._status


class FilterOutcome:
    """Result of the Filter plugins over candidate rows (in evaluation order)."""

    __slots__ = ("rows", "passed_pos", "rejections", "plugins_run")

    def __init__(self, rows: np.ndarray, passed_pos: np.ndarray, rejections: list[Rejection], plugins_run: list[str]) -> None:
        self.rows = rows
        self.passed_pos = passed_pos
        self.rejections = rejections
        self.plugins_run = plugins_run

    def override(self, pos: int, status: Status) -> None:
        """Replace the result of the node at `pos` by a rejection with `status`."""
        self.passed_pos = self.passed_pos[self.passed_pos != pos]
        kept: list[Rejection] = []
        for rej in self.rejections:
            hit = rej.pos == pos
            if hit.all():
                continue  # a StatusRejection, or a plugin that rejected only this node
            if hit.any():
                ids = None if rej.reason_ids is None else rej.reason_ids[~hit]
                rej = Rejection(rej.plugin, rej.pos[~hit], rej.codes[~hit], rej.result, ids)
            kept.append(rej)
        kept.append(StatusRejection(pos, status))
        self.rejections = kept


class ScoreOutcome:
    """Per-plugin raw, normalised and weighted scores over the scored rows, and totals."""

    __slots__ = ("rows", "plugins", "raw", "normalized", "final", "total", "top", "selected_pos")

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows
        self.plugins: list[str] = []
        self.raw: list[np.ndarray] = []
        self.normalized: list[np.ndarray] = []
        self.final: list[np.ndarray] = []
        self.total = np.zeros(len(rows), dtype=np.int64)
        # set by selectHost once the totals are final: the positions of the highest total,
        # and the position it chose among them (the trim to the best nodes reuses both)
        self.top: np.ndarray | None = None
        self.selected_pos: int | None = None


#: plugin method -> the extension point named when it raises
_POINTS = {
    "pre_enqueue": "PreEnqueue", "less": "QueueSort", "pre_filter": "PreFilter", "add_pod": "PreFilterExtensionAddPod",
    "remove_pod": "PreFilterExtensionRemovePod", "filter": "Filter", "filter_batch": "Filter",
    "post_filter": "PostFilter", "pre_score": "PreScore", "score": "Score", "score_batch": "Score",
    "normalize_score": "NormalizeScore", "normalize_batch": "NormalizeScore", "reserve": "Reserve",
    "unreserve": "Unreserve", "permit": "Permit", "pre_bind": "PreBind", "bind": "Bind", "post_bind": "PostBind",
}


def _crashed(fn: Any, e: Exception) -> PluginCrashed:
    """The PluginCrashed for plugin method `fn` raising `e`, naming the plugin, the extension
    point and the plugin's line: kube-scheduler has no status for a plugin that panics, and
    a Python error is a bug in the plugin, not a scheduling outcome."""
    owner = getattr(fn, "__self__", None)
    name = getattr(owner, "name", None) or type(owner).__name__
    point = _POINTS.get(getattr(fn, "__name__", ""), getattr(fn, "__name__", "?"))
    return PluginCrashed(f'scheduler plugin "{name}" ({point})', e, type(owner).__module__)


def _call(fn: Any, *args: Any) -> Any:
    """Call a plugin method; an exception ends the run (see _crashed). The per-pod runners
    call plugins directly inside the same try/except instead (no wrapper call per plugin)."""
    try:
        return fn(*args)
    except PluginCrashed:
        raise  # raised by a plugin this one called (e.g. preemption running the filters)
    except Exception as e:
        raise _crashed(fn, e) from e


class Framework:
    """Plugin instances of one profile and their runners."""

    def __init__(self, config: ProfileConfig, registry: Mapping[str, type[itf.Plugin]], handle: Handle) -> None:
        self.config = config
        self.handle = handle.for_framework(self)
        handle = self.handle
        self.profile_name = config.scheduler_name
        self.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score
        self.plugins: dict[str, itf.Plugin] = {}
        for point in POINT_INTERFACES:
            for name in config.enabled(point):
                if name in self.plugins:
                    continue
                cls = registry.get(name)
                if cls is None:
                    raise FrameworkError(f"plugin {name!r} does not exist")
                try:
                    self.plugins[name] = cls(args_to_dict(config.plugin_args.get(name)), handle)
                except FrameworkError:
                    raise
                except Exception as e:
                    raise FrameworkError(f"initializing plugin {name!r}: {e}") from e
        per_point: dict[str, list[Any]] = {}
        for point, iface in POINT_INTERFACES.items():
            lst = []
            for name in config.enabled(point):
                pl = self.plugins[name]
                if not isinstance(pl, iface):
                    raise FrameworkError(f"plugin {name!r} does not extend {point} plugin")
                lst.append(pl)
            per_point[point] = lst
        self.pre_enqueue_plugins: list[itf.PreEnqueuePlugin] = per_point["preEnqueue"]
        qs = per_point["queueSort"]
        if len(qs) > 1:
            raise FrameworkError("only one queue sort plugin can be enabled")
        self.queue_sort_plugin: itf.QueueSortPlugin | None = qs[0] if qs else None
        self.pre_filter_plugins: list[itf.PreFilterPlugin] = per_point["preFilter"]
        self.filter_plugins: list[itf.FilterPlugin] = per_point["filter"]
        self.post_filter_plugins: list[itf.PostFilterPlugin] = per_point["postFilter"]
        self.pre_score_plugins: list[itf.PreScorePlugin] = per_point["preScore"]
        self.score_plugins: list[itf.ScorePlugin] = per_point["score"]
        self.reserve_plugins: list[itf.ReservePlugin] = per_point["reserve"]
        self.permit_plugins: list[itf.PermitPlugin] = per_point["permit"]
        self.pre_bind_plugins: list[itf.PreBindPlugin] = per_point["preBind"]
        self.bind_plugins: list[itf.BindPlugin] = per_point["bind"]
        self.post_bind_plugins: list[itf.PostBindPlugin] = per_point["postBind"]
        self.weights = {pl.name: int(config.weights.get(pl.name, 1) or 1) for pl in self.score_plugins}
        self._score_has_norm = {pl.name: type(pl).has_normalize() for pl in self.score_plugins}
        self.events_by_plugin = self._collect_events()
        from ..fastpath import FastPath, fast_path_for  # the plugins it stands in for import this module

        self.fast_path: FastPath | None = fast_path_for(self)

    # ------------------------------------------------------------ metadata
    def _collect_events(self) -> dict[str, list[ClusterEventWithHint]]:
        """EventsToRegister per plugin; plugins without EnqueueExtensions get every event."""
        out: dict[str, list[ClusterEventWithHint]] = {}
        seen = set()
        for pl in (*self.pre_enqueue_plugins, *self.pre_filter_plugins, *self.filter_plugins,
                   *self.reserve_plugins, *self.permit_plugins):
            if pl.name in seen:
                continue
            seen.add(pl.name)
            if isinstance(pl, itf.EnqueueExtensions):
                out[pl.name] = list(pl.events_to_register())
            else:
                out[pl.name] = [ClusterEventWithHint(ClusterEvent(WILDCARD, ActionType.ALL))]
        return out

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        if self.queue_sort_plugin is None:
            return False
        return bool(_call(self.queue_sort_plugin.less, a, b))

    # ----------------------------------------------------------- pre-enqueue
    def run_pre_enqueue(self, pod: Mapping[str, Any]) -> Status | None:
        for pl in self.pre_enqueue_plugins:
            s: Status | None = _call(pl.pre_enqueue, pod)
            if s is not None and not s.is_success():
                return s.with_plugin(pl.name)
        return None

    # ------------------------------------------------------------- prefilter
    def run_pre_filter(
        self, state: CycleState, pod_info: PodInfo, nodes: NodeInfoList, rec: PointResults | None = None
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """RunPreFilterPlugins: merge node-name narrowing; Skip marks the Filter to skip.

        With `rec`, each plugin's status and PreFilterResult node names are recorded.
        """
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status: Status | None = None
        pod = pod_info.pod
        skip = state.skip_filter_plugins
        try:
            for pl in self.pre_filter_plugins:
                try:
                    out = pl.pre_filter(state, pod, nodes)
                except PluginCrashed:
                    raise
                except Exception as e:
                    raise _crashed(pl.pre_filter, e) from e
                if isinstance(out, Status):
                    r, s = None, out
                else:
                    r, s = out
                if rec is not None:
                    _note(rec, "preFilter", pl.name, s)
                    if r is not None:
                        rec.setdefault("preFilterResult", {})[pl.name] = sorted(r.node_names or ())
                if s is not None and s.is_skip():
                    skip.add(pl.name)
                    continue
                if s is not None and not s.is_success():
                    s.plugin = pl.name
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, s, set()
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    return None, Status.from_error(f'running PreFilter plugin "{pl.name}": {s.message()}', plugin=pl.name), set()
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.add(pl.name)
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    names = sorted(plugins_with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg), plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip
        return result, return_status, plugins_with_nodes

    # ---------------------------------------------------------------- filter
    def run_filter(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> FilterOutcome:
        """Run every Filter plugin over rows; each node keeps its first rejecting plugin."""
        if self.fast_path is not None:
            fast = self.fast_path.filter(state, pod_info, rows)
            if fast is not None:
                return fast
        remaining = np.arange(len(rows), dtype=np.intp)
        whole = True  # remaining is still every position: rows need no gathering
        rejections: list[Rejection] = []
        plugins_run: list[str] = []
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if pl.name in skip:
                continue
            if len(remaining) == 0:
                break
            plugins_run.append(pl.name)
            sub = rows if whole else rows[remaining]
            if isinstance(pl, itf.BatchFilterPlugin):
                try:
                    res = pl.filter_batch(state, pod_info, sub)
                except PluginCrashed:
                    raise
                except Exception as e:
                    raise _crashed(pl.filter_batch, e) from e
                if isinstance(res, Status):
                    err = res
                    res = BatchFilterResult(np.full(len(sub), int(Code.ERROR), dtype=np.int8), lambda _r, e=err: e.reasons)
            else:
                res = self._filter_per_node(pl, state, pod_info, sub)
            fail = res.codes != 0
            if fail.any():
                ids = None if res.reason_ids is None else res.reason_ids[fail]
                rejections.append(Rejection(pl.name, remaining[fail], res.codes[fail], res, ids))
                remaining = remaining[~fail]
                whole = False
        return FilterOutcome(rows, remaining, rejections, plugins_run)

    def _filter_per_node(self, pl: itf.FilterPlugin, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        table = self.handle.node_table
        pod = pod_info.pod
        codes = np.zeros(len(rows), dtype=np.int8)
        statuses: dict[int, Status] = {}
        for i, row in enumerate(rows.tolist()):
            s = _call(pl.filter, state, pod, NodeInfo(table, row))
            if s is not None and not s.is_success():
                codes[i] = int(s.code)
                statuses[row] = s
        return BatchFilterResult(codes, lambda row: statuses[row].reasons)

    def run_filter_on_node(self, state: CycleState, pod_info: PodInfo, row: int) -> Status | None:
        """RunFilterPlugins for a single node (preemption's what-if checks)."""
        out = self.run_filter(state, pod_info, np.array([row], dtype=np.intp))
        if not out.rejections:
            return None
        return out.rejections[0].status(0, row)

    # ------------------------------------------------ prefilter extensions
    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_info: PodInfo, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        """RunPreFilterExtensionAddPod over PreFilter plugins not skipped in this cycle."""
        return self._run_extension("AddPod", state, pod_info, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_info: PodInfo, pod_info_to_remove: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        """RunPreFilterExtensionRemovePod over PreFilter plugins not skipped in this cycle."""
        return self._run_extension("RemovePod", state, pod_info, pod_info_to_remove, node_info)

    def _run_extension(self, op: str, state: CycleState, pod_info: PodInfo, other: PodInfo, node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for pl in self.pre_filter_plugins:
            ext = pl.pre_filter_extensions()
            if ext is None or pl.name in skip:
                continue
            fn = ext.add_pod if op == "AddPod" else ext.remove_pod
            s = _call(fn, state, pod_info.pod, other, node_info)
            if s is not None and not s.is_success():
                return Status.from_error(f'running {op} on PreFilter plugin "{pl.name}": {s.message()}')
        return None

    # ---------------------------------------------------- nominated pods
    def _ge_nominated_pods(self, pod_info: PodInfo, node_name: str) -> list[PodInfo]:
        """Pods nominated to the node with priority >= the pod's (not the pod itself)."""
        table = self.handle.node_table
        return [
            npi for npi in self.handle.nominator.pods_for_node(node_name)
            if npi.priority >= pod_info.priority and npi.key != pod_info.key and npi.key not in table.pod_row
        ]

    def _filter_with_added_pods(self, state: CycleState, pod_info: PodInfo, row: int, added: list[PodInfo]) -> Status | None:
        """The first pass of RunFilterPluginsWithNominatedPods: nominated pods count as running."""
        table = self.handle.node_table
        state2 = state.clone()
        with RowOverlay(table, row) as overlay:
            for npi in added:
                overlay.add(npi)
                s = self.run_pre_filter_extension_add_pod(state2, pod_info, npi, NodeInfo(table, row))
                if s is not None:
                    return s
            return self.run_filter_on_node(state2, pod_info, row)

    def run_filter_with_nominated_pods(self, state: CycleState, pod_info: PodInfo, row: int) -> Status | None:
        """RunFilterPluginsWithNominatedPods on one node: with the nominated pods, then without."""
        if self.handle.nominator:
            added = self._ge_nominated_pods(pod_info, self.handle.node_table.row_names[row])
            if added:
                s = self._filter_with_added_pods(state, pod_info, row, added)
                if s is not None and not s.is_success():
                    return s
        return self.run_filter_on_node(state, pod_info, row)

    def apply_nominated_pods(self, state: CycleState, pod_info: PodInfo, out: FilterOutcome) -> FilterOutcome:
        """Turn a plain Filter outcome into RunFilterPluginsWithNominatedPods' per node.

        The batch pass is the "without nominated pods" pass; nodes that have nominated pods
        of higher or equal priority get the "with" pass, whose failure wins.
        """
        nominator = self.handle.nominator
        if not nominator:
            return out
        table = self.handle.node_table
        for node_name in list(nominator.nodes()):
            row = table.row_of(node_name)
            if row is None:
                continue
            hits = np.flatnonzero(out.rows == row)
            if not len(hits):
                continue
            added = self._ge_nominated_pods(pod_info, node_name)
            if not added:
                continue
            s = self._filter_with_added_pods(state, pod_info, row, added)
            if s is None or s.is_success():
                continue
            out.override(int(hits[0]), s)
            if s.plugin and s.plugin not in out.plugins_run:
                run = set(out.plugins_run) | {s.plugin}
                out.plugins_run = [pl.name for pl in self.filter_plugins if pl.name in run]
        return out

    # ----------------------------------------------------------- postfilter
    def run_post_filter(
        self, state: CycleState, pod_info: PodInfo, statuses: NodeToStatus, rec: PointResults | None = None
    ) -> tuple[itf.PostFilterResult | None, Status]:
        """RunPostFilterPlugins; with `rec`, plugin -> the node it nominated ("" if none)."""
        result = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            out = _call(pl.post_filter, state, pod_info.pod, statuses)
            if isinstance(out, Status):
                r, s = None, out
            else:
                r, s = out
            if rec is not None:
                nominated = ""
                if (s is None or s.is_success()) and r is not None and r.nominating_info is not None:
                    nominated = r.nominating_info.node_name
                rec.setdefault("postFilter", {})[pl.name] = nominated
            if s is None or s.is_success():
                return r, s or Status()
            if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, s.with_plugin(pl.name)
            if not s.is_rejected():
                return None, Status.from_error(s.message(), plugin=pl.name)
            if r is not None and r.nominating_info is not None and r.nominating_info.mode != itf.NominatingInfo.MODE_NOOP:
                result = r
            reasons.extend(s.reasons)
            if not rejector:
                rejector = pl.name
        return result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    # --------------------------------------------------------------- scoring
    def run_pre_score(
        self, state: CycleState, pod_info: PodInfo, nodes: NodeInfoList, rec: PointResults | None = None
    ) -> Status | None:
        skip = state.skip_score_plugins
        for pl in self.pre_score_plugins:
            try:
                s = pl.pre_score(state, pod_info.pod, nodes)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.pre_score, e) from e
            _note(rec, "preScore", pl.name, s)
            if s is not None and s.is_skip():
                skip.add(pl.name)
                continue
            if s is not None and not s.is_success():
                return Status.from_error(f'running PreScore plugin "{pl.name}": {s.message()}', plugin=pl.name)
        return None

    def run_score(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> ScoreOutcome | Status:
        """RunScorePlugins: score, normalise, range-check, weight; totals per node."""
        if self.fast_path is not None:
            fast = self.fast_path.score(state, pod_info, rows)
            if fast is not None:
                return fast
        out = ScoreOutcome(rows)
        skip = state.skip_score_plugins
        for pl in self.score_plugins:
            if pl.name in skip:
                continue
            if isinstance(pl, itf.BatchScorePlugin):
                try:
                    raw = pl.score_batch(state, pod_info, rows)
                except PluginCrashed:
                    raise
                except Exception as e:
                    raise _crashed(pl.score_batch, e) from e
                if isinstance(raw, Status):
                    return Status.from_error(f'running Score plugins: plugin "{pl.name}" failed with: {raw.message()}')
                raw = np.asarray(raw, dtype=np.int64)
                if self._score_has_norm[pl.name]:
                    try:
                        norm = pl.normalize_batch(state, pod_info, rows, raw.copy())
                    except PluginCrashed:
                        raise
                    except Exception as e:
                        raise _crashed(pl.normalize_batch, e) from e
                    if isinstance(norm, Status):
                        return Status.from_error(f'running Normalize on Score plugins: plugin "{pl.name}" failed with: {norm.message()}')
                    norm = np.asarray(norm, dtype=np.int64)
                else:
                    norm = raw
            else:
                res = self._score_per_node(pl, state, pod_info, rows)
                if isinstance(res, Status):
                    return res
                raw, norm = res
            if len(norm) and (int(norm.max()) > MAX_NODE_SCORE or int(norm.min()) < MIN_NODE_SCORE):
                bad = int(norm.max()) if int(norm.max()) > MAX_NODE_SCORE else int(norm.min())
                return Status.from_error(
                    f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid score {bad}, '
                    f"it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
            weight = self.weights[pl.name]
            final = norm if weight == 1 else norm * weight  # score arrays are never changed in place
            out.plugins.append(pl.name)
            out.raw.append(raw)
            out.normalized.append(norm)
            out.final.append(final)
            out.total += final
        return out

    def _score_per_node(self, pl: itf.ScorePlugin, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | Status:
        table = self.handle.node_table
        pod = pod_info.pod
        raw = np.zeros(len(rows), dtype=np.int64)
        for i, row in enumerate(rows.tolist()):
            v = _call(pl.score, state, pod, NodeInfo(table, row))
            if isinstance(v, tuple):
                v, s = v
                if s is not None and not s.is_success():
                    return Status.from_error(f'running Score plugins: plugin "{pl.name}" failed with: {s.message()}')
            if isinstance(v, Status):
                return Status.from_error(f'running Score plugins: plugin "{pl.name}" failed with: {v.message()}')
            raw[i] = int(v)
        if not self._score_has_norm[pl.name]:
            return raw, raw
        names = table.names
        scores = [NodeScore(names[r], int(raw[i])) for i, r in enumerate(rows.tolist())]
        s = _call(pl.normalize_score, state, pod, scores)
        if s is not None and not s.is_success():
            return Status.from_error(f'running Normalize on Score plugins: plugin "{pl.name}" failed with: {s.message()}')
        return raw, np.array([x.score for x in scores], dtype=np.int64)

    # --------------------------------------------------------------- binding
    def run_reserve(self, state: CycleState, pod_info: PodInfo, node: str, rec: PointResults | None = None) -> Status | None:
        for pl in self.reserve_plugins:
            try:
                s: Status | None = pl.reserve(state, pod_info.pod, node)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.reserve, e) from e
            _note(rec, "reserve", pl.name, s)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.from_error(f'running Reserve plugin "{pl.name}": {s.message()}', plugin=pl.name)
        return None

    def run_unreserve(self, state: CycleState, pod_info: PodInfo, node: str) -> None:
        for pl in reversed(self.reserve_plugins):
            _call(pl.unreserve, state, pod_info.pod, node)

    def run_permit(self, state: CycleState, pod_info: PodInfo, node: str, rec: PointResults | None = None) -> Status | None:
        """RunPermitPlugins: on Wait (no plugin rejecting), the pod joins the handle's waiting
        pods with each waiting plugin's timeout (capped at MAX_PERMIT_TIMEOUT)."""
        waits: dict[str, float] | None = None
        for pl in self.permit_plugins:
            try:
                out = pl.permit(state, pod_info.pod, node)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.permit, e) from e
            s = out if isinstance(out, Status) else (out[0] if out else None)
            timeout = out[1] if isinstance(out, tuple) and len(out) > 1 else 0.0
            if rec is not None:
                _note(rec, "permit", pl.name, s)
                if s is not None and s.is_wait():
                    rec["permit"][pl.name] = WAIT_MESSAGE
                rec.setdefault("permitTimeout", {})[pl.name] = float(timeout or 0.0)
            if s is None or s.is_success():
                continue
            if s.is_rejected():
                return s.with_plugin(pl.name)
            if s.is_wait():
                if waits is None:
                    waits = {}
                waits[pl.name] = min(float(timeout or 0.0), MAX_PERMIT_TIMEOUT)
                continue
            return Status.from_error(f'running Permit plugin "{pl.name}": {s.message()}', plugin=pl.name)
        if waits is not None:
            self.handle.waiting_pods.add(WaitingPod(pod_info.pod, waits, self.handle.now()))
            return Status(Code.WAIT, f'one or more plugins asked to wait and no plugin rejected pod "{pod_info.name}"')
        return None

    def wait_on_permit(self, pod: Mapping[str, Any]) -> Status | None:
        """WaitOnPermit, without blocking: None when the pod is not waiting or every plugin
        allowed it (it leaves the waiting pods), a Wait status while it still waits, else
        the rejection (it leaves the waiting pods)."""
        uid = waiting_pod_uid(pod)
        wp = self.handle.waiting_pods.get(uid)
        if wp is None:
            return None
        wp.expire(self.handle.now())
        s = wp.result
        if s is None:
            return Status(Code.WAIT, plugin=wp.get_pending_plugins()[0] if wp.get_pending_plugins() else "")
        self.handle.waiting_pods.remove(uid)
        if s.is_success() or s.is_rejected():
            return None if s.is_success() else s
        return Status.from_error(f"waiting on permit for pod: {s.message()}", plugin=s.plugin)

    def run_pre_bind(self, state: CycleState, pod_info: PodInfo, node: str, rec: PointResults | None = None) -> Status | None:
        for pl in self.pre_bind_plugins:
            if pl.name in state.skip_pre_bind_plugins:
                continue
            try:
                s: Status | None = pl.pre_bind(state, pod_info.pod, node)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.pre_bind, e) from e
            _note(rec, "preBind", pl.name, s)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.from_error(f'running PreBind plugin "{pl.name}": {s.message()}', plugin=pl.name)
        return None

    def run_bind(self, state: CycleState, pod_info: PodInfo, node: str, rec: PointResults | None = None) -> Status | None:
        if not self.bind_plugins:
            return Status(Code.SKIP)
        s: Status | None = None
        for pl in self.bind_plugins:
            try:
                s = pl.bind(state, pod_info.pod, node)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.bind, e) from e
            _note(rec, "bind", pl.name, s)
            if s is not None and s.is_skip():
                continue
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.from_error(f'running Bind plugin "{pl.name}": {s.message()}', plugin=pl.name)
            return s
        return s

    def run_post_bind(self, state: CycleState, pod_info: PodInfo, node: str) -> None:
        for pl in self.post_bind_plugins:
            try:
                pl.post_bind(state, pod_info.pod, node)
            except PluginCrashed:
                raise
            except Exception as e:
                raise _crashed(pl.post_bind, e) from e

    def plugin(self, name: str) -> itf.Plugin | None:
        return self.plugins.get(name)

    def plugin_names(self, point: str) -> Sequence[str]:
        return self.config.enabled(point)
