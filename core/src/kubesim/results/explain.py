"""Why a pod went where it went: every scheduling attempt of one pod, read from a result.

`explain_pod(result, "ns/name")` walks the timeline once and gathers, per attempt, the
filter verdict of every node (the first plugin that rejected it, as upstream's per-node
status), the score table (raw, normalized, weighted per plugin and the total), the node
chosen and why it won, and the preemption that followed a failure (nominated node and
victims). What an attempt holds depends on the `--detail` level it was recorded at
(`Attempt.detail`): full keeps every node, summary keeps reason counts and the best
nodes' scores, none only the outcome; `Attempt.notes` says what is missing and how to
get it. `kubesim explain` prints this; the HTML report's pod drill-down reads it too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs

from kubesim.api import Scenario, ScenarioPluginsScoreResult, ScenarioPodScheduleResult, ScenarioStep
from kubesim.k8s.keys import namespaced_name
from kubesim.results.attempts import PASSED, new_attempts, reason_counts
from kubesim.results.events import TimelineEvent, iter_events
from kubesim.results.gcpause import paused_gc

__all__ = [
    "DEFAULT_PROFILE",
    "Attempt",
    "Detail",
    "NodeFilter",
    "NodeScore",
    "Outcome",
    "PodExplanation",
    "PodNotFound",
    "Victim",
    "explain_pod",
    "explain_pods",
    "explanation_data",
    "is_extender",
    "pod_names",
]

DEFAULT_PROFILE = "default-scheduler"

Detail = Literal["full", "summary", "none"]
Outcome = Literal["scheduled", "unschedulable", "error"]

_FIT_ERROR = re.compile(r"0/\d+ nodes are available")
SUMMARY_NOTE = ("recorded at --detail summary: filter rejections are counted per reason (which node got which "
                "reason is not kept) and only the best-scored nodes are kept; "
                "`kubesim run --detail full` records every node and plugin")
NONE_NOTE = ("recorded at --detail none: only the outcome was kept; "
             "`kubesim run --detail full` records every node and plugin")
TIE_RULE = ("upstream selectHost picks uniformly at random among the nodes with the highest total "
            "(reservoir sampling); kubesim draws that pick from the run's --seed, so the same seed "
            "gives the same node")


def is_extender(name: str) -> bool:
    """True for a filter/score entry of a scheduler extender: extenders are named by their
    urlPrefix (upstream HTTPExtender.Name), plugins by a name without '/'."""
    return "/" in name


@attrs.frozen
class NodeFilter:
    """One node's filter verdict: each plugin that ran ("passed" or its message, in run
    order); `plugin` is the one that rejected it (None when it passed)."""

    node: str
    verdicts: dict[str, str]
    plugin: str | None = None
    message: str | None = None

    @property
    def passed(self) -> bool:
        return self.plugin is None


@attrs.frozen
class NodeScore:
    """One scored node: per plugin (raw, normalized, weighted = normalized x weight) and the total."""

    node: str
    plugins: dict[str, ScenarioPluginsScoreResult]
    total: int


@attrs.frozen
class Victim:
    """A pod evicted by preemption for the explained pod."""

    namespace: str
    name: str
    node: str | None
    step: ScenarioStep
    priority: int


@attrs.frozen
class Attempt:
    """One scheduling attempt of the pod and what the result recorded about it."""

    number: int
    step: ScenarioStep
    profile: str
    outcome: Outcome
    node: str | None
    message: str | None
    detail: Detail
    candidate_nodes: int | None
    feasible_nodes: int | None
    filters: list[NodeFilter]
    reasons: dict[str, int]
    scores: list[NodeScore]
    score_plugins: list[str]
    why: str
    tied: list[str] = attrs.field(factory=list)
    nominated_node: str | None = None
    victims: list[Victim] = attrs.field(factory=list)
    notes: list[str] = attrs.field(factory=list)

    @property
    def extenders(self) -> list[str]:
        """The extenders whose verdicts or scores the attempt holds."""
        names = {p for f in self.filters for p in f.verdicts} | set(self.score_plugins)
        return sorted(n for n in names if is_extender(n))


@attrs.frozen
class PodExplanation:
    """Every attempt of one pod (one instance: a pod re-created under its name is another)."""

    namespace: str
    name: str
    uid: str | None
    priority: int
    profile: str
    created: ScenarioStep
    state: str
    node: str | None
    attempts: list[Attempt]
    preempted_by: str | None = None
    preempted_at: ScenarioStep | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def focus(self, attempt: int | None = None, node: str | None = None) -> PodExplanation:
        """Only attempt number `attempt` and, in the filter and score tables, only `node`."""
        attempts = [a for a in self.attempts if attempt is None or a.number == attempt]
        if node is not None:
            attempts = [attrs.evolve(a, filters=[f for f in a.filters if f.node == node],
                                     scores=[s for s in a.scores if s.node == node]) for a in attempts]
        return attrs.evolve(self, attempts=attempts)


class PodNotFound(LookupError):
    """No pod (or more than one) matches the name asked for; `close` lists similar names."""

    def __init__(self, message: str, close: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.close = list(close)


# --- reading one attempt ------------------------------------------------------------------

def _detail(sr: ScenarioPodScheduleResult) -> Detail:
    if sr.plugin_results.filter or sr.all_candidate_nodes:
        return "full"
    if sr.candidate_node_count is not None or sr.plugin_results.score:
        return "summary"
    return "none"


def _filters(sr: ScenarioPodScheduleResult) -> list[NodeFilter]:
    out = []
    for node, verdicts in sorted(sr.plugin_results.filter.items()):
        plugin = message = None
        for p, m in verdicts.items():
            if m != PASSED:
                plugin, message = p, m
                break
        out.append(NodeFilter(node, verdicts, plugin, message))
    return out


def _scores(sr: ScenarioPodScheduleResult, chosen: str | None) -> tuple[list[NodeScore], list[str]]:
    """The scored nodes, best total first (the chosen node first among equals, then by name)."""
    plugins: dict[str, None] = {}
    rows = []
    for node, per in sr.plugin_results.score.items():
        if len(per) != len(plugins) or not per.keys() <= plugins.keys():
            plugins.update(dict.fromkeys(per))
        total = 0
        for s in per.values():
            total += s.final_score
        rows.append(NodeScore(node, per, total))
    rows.sort(key=lambda r: (-r.total, r.node != chosen, r.node))
    return rows, list(plugins)


def _outcome(sr: ScenarioPodScheduleResult, scheduled: bool) -> Outcome:
    if scheduled:
        return "scheduled"
    if sr.filter_reason_counts or sr.plugin_results.filter or _FIT_ERROR.search(sr.message or ""):
        return "unschedulable"
    return "error"


def _why(sr: ScenarioPodScheduleResult, outcome: Outcome, node: str | None, detail: Detail,
         scores: list[NodeScore], feasible: int | None, nominated: str | None) -> tuple[str, list[str]]:
    # upstream: schedule_one.go schedulePod, findNodesThatFitPod (evaluateNominatedNode), selectHost
    """A sentence on why the attempt ended as it did, and the nodes tied at the best total."""
    if outcome == "error":
        return f"the attempt failed with an error: {sr.message or '(no message)'}", []
    if outcome == "unschedulable":
        text = "no node passed the filters" if not feasible else (
            f"{feasible} node(s) passed the filters but a later extension point rejected the pod")
        return text, []
    if detail == "none":
        return f"bound to {node}; the result kept only the outcome (--detail none)", []
    if not scores:
        if nominated is not None and nominated == node and len(sr.plugin_results.filter) <= 1:
            return (f"{node} is the pod's nominated node (status.nominatedNodeName) and passed the filters: "
                    "upstream tries the nominated node first and, when it fits, neither filters the other "
                    "nodes nor scores"), []
        if feasible == 1 or detail == "full":
            return (f"{node} was the only node that passed the filters; upstream skips scoring "
                    "when a single node is feasible"), []
        return f"bound to {node}; no scores were recorded", []
    best = scores[0].total
    tied = [s.node for s in scores if s.total == best]
    chosen = next((s for s in scores if s.node == node), None)
    if chosen is None:
        return f"bound to {node}, which is not among the scored nodes recorded", tied
    if chosen.total < best:
        return (f"{node} scored {chosen.total}, below the best total {best}: it was bound without "
                "being the highest (e.g. by a Permit or Bind plugin)"), tied
    counted = f"of {len(scores)} scored node(s)" if feasible is None or feasible == len(scores) else (
        f"of the {len(scores)} best-scored of {feasible} feasible node(s) kept")
    if len(tied) == 1:
        runner = next((s for s in scores if s.node != node), None)
        margin = f", {best - runner.total} ahead of {runner.node} ({runner.total})" if runner else ""
        return f"{node} had the highest total score, {best} {counted}{margin}", tied
    more = " (at least: only the best nodes were kept)" if detail == "summary" and len(tied) == len(scores) else ""
    return (f"{node} tied for the highest total score, {best}, with {len(tied) - 1} other node(s){more}: "
            f"{TIE_RULE}"), tied


def _unfiltered(detail: Detail, candidates: int | None, feasible: int | None, filtered: int,
                reasons: dict[str, int]) -> str | None:
    """A note when some nodes were never filtered: upstream findNodesThatPassFilters stops
    once it has found numFeasibleNodesToFind nodes (percentageOfNodesToScore)."""
    if not candidates or feasible is None:
        return None
    if detail == "full":
        missing, bound = candidates - filtered, ""
    else:  # a node may count under several reasons: this is a lower bound
        missing, bound = candidates - feasible - sum(reasons.values()), "at least "
    if missing <= 0:
        return None
    return (f"{bound}{missing} of the {candidates} nodes were not filtered: upstream stops searching once it "
            "has found enough feasible nodes (percentageOfNodesToScore), starting where the previous "
            "attempt left off")


def _attempt(number: int, sr: ScenarioPodScheduleResult, event: TimelineEvent, scheduled: bool,
             node: str | None, profile: str, nominated: str | None) -> Attempt:
    detail = _detail(sr)
    outcome = _outcome(sr, scheduled)
    filters = _filters(sr)
    scores, score_plugins = _scores(sr, node if scheduled else None)
    if detail == "full":
        candidates: int | None = len(sr.all_candidate_nodes) or len(filters) or None
        feasible: int | None = len(sr.all_filtered_nodes) if sr.all_candidate_nodes else sum(f.passed for f in filters)
    else:
        candidates, feasible = sr.candidate_node_count, sr.filtered_node_count
    why, tied = _why(sr, outcome, node, detail, scores, feasible, nominated)
    notes = {"summary": [SUMMARY_NOTE], "none": [NONE_NOTE]}.get(detail, [])
    reasons = reason_counts(sr)
    unfiltered = _unfiltered(detail, candidates, feasible, len(filters), reasons)
    if unfiltered and not (nominated is not None and nominated == node):
        notes = [unfiltered, *notes]
    return Attempt(
        number=number, step=sr.step or event.step, profile=profile, outcome=outcome, node=node if scheduled else None,
        message=sr.message, detail=detail, candidate_nodes=candidates, feasible_nodes=feasible, filters=filters,
        reasons=reasons, scores=scores, score_plugins=score_plugins, why=why, tied=tied,
        nominated_node=nominated, notes=notes,
    )


# --- walking the timeline -----------------------------------------------------------------

@attrs.define
class _Instance:
    namespace: str
    name: str
    uid: str | None
    created: ScenarioStep
    pod: dict[str, Any] = attrs.field(factory=dict)
    state: str = "pending"
    node: str | None = None
    attempts: list[Attempt] = attrs.field(factory=list)
    victims: list[Victim] = attrs.field(factory=list)  # not yet given to an attempt
    preempted_by: str | None = None
    preempted_at: ScenarioStep | None = None

    def explanation(self) -> PodExplanation:
        spec = self.pod.get("spec") or {}
        return PodExplanation(
            namespace=self.namespace, name=self.name, uid=self.uid, priority=int(spec.get("priority") or 0),
            profile=str(spec.get("schedulerName") or DEFAULT_PROFILE), created=self.created, state=self.state,
            node=self.node, attempts=self.attempts, preempted_by=self.preempted_by, preempted_at=self.preempted_at,
        )


def _pod_events(result: Scenario) -> Iterable[tuple[TimelineEvent, str]]:
    for event in iter_events(result):
        if event.is_kind("v1", "Pod"):
            _, _, namespace, name = event.target
            yield event, namespaced_name(namespace, name)


def pod_names(result: Scenario) -> list[str]:
    """Every pod's namespace/name in the result, sorted."""
    return sorted({key for _, key in _pod_events(result)})


def _resolve(result: Scenario, pod: str) -> str:
    names = pod_names(result)
    if "/" in pod:
        key = pod if pod in names else None
    else:
        matches = [n for n in names if n.split("/", 1)[1] == pod]
        if len(matches) > 1:
            raise PodNotFound(f"pod {pod!r} is in more than one namespace: give namespace/name", matches)
        key = matches[0] if matches else None
    if key is None:
        short = [n.split("/", 1)[1] for n in names]
        close = difflib.get_close_matches(pod, names + short, n=5, cutoff=0.5)
        full = sorted({n for n in names if n in close or n.split("/", 1)[1] in close or pod in n})[:10]
        raise PodNotFound(f"no pod {pod!r} in the result ({len(names)} pods)", full)
    return key


def explain_pods(result: Scenario, keys: Iterable[str] | None = None) -> dict[str, list[PodExplanation]]:
    """namespace/name -> every instance of that pod (creation order), for `keys` or every pod."""
    with paused_gc():  # millions of small objects for a large result, no cycles
        return _explain_pods(result, set(keys) if keys is not None else None)


def _explain_pods(result: Scenario, wanted: set[str] | None) -> dict[str, list[PodExplanation]]:
    instances: dict[str, list[_Instance]] = {}
    # victims by preemptor namespace/name, waiting for the preemptor's failed attempt
    victims: dict[str, list[Victim]] = {}
    for event, key in _pod_events(result):
        pr = event.pod_result
        if event.kind == "podPreempted" and pr is not None and pr.preempted_by and (
                wanted is None or pr.preempted_by in wanted):
            meta = pr.pod.get("metadata") or {}
            victims.setdefault(pr.preempted_by, []).append(Victim(
                str(meta.get("namespace") or "default"), str(meta.get("name", "")), pr.bound_to,
                pr.preempted_at or event.step, int((pr.pod.get("spec") or {}).get("priority") or 0)))
        if wanted is not None and key not in wanted:
            continue
        _fold(instances.setdefault(key, []), event, key, victims)
    return {k: [i.explanation() for i in v] for k, v in sorted(instances.items())}


def _fold(history: list[_Instance], event: TimelineEvent, key: str, victims: dict[str, list[Victim]]) -> None:
    current = history[-1] if history else None
    if event.kind == "delete":
        if current is not None and current.state not in ("deleted", "preempted"):
            current.state = "preempted" if current.preempted_by else "deleted"
        return
    obj = event.object or {}
    meta = obj.get("metadata") or {}
    uid = meta.get("uid")
    if current is None or current.state in ("deleted", "preempted") and event.kind in ("create", "podScheduled") or (
            uid and current.uid and uid != current.uid):
        namespace, name = key.split("/", 1)
        pr = event.pod_result
        current = _Instance(namespace, name, uid, pr.created_at if pr is not None else event.step)
        history.append(current)
    current.uid = current.uid or uid
    if obj:
        current.pod = obj
    pr = event.pod_result
    node = (obj.get("spec") or {}).get("nodeName")
    if node and current.state == "pending":
        current.state, current.node = "bound", node
    if pr is None:
        return
    profile = str((current.pod.get("spec") or {}).get("schedulerName") or DEFAULT_PROFILE)
    if event.kind == "podPreempted":
        current.preempted_by, current.preempted_at = pr.preempted_by, pr.preempted_at or event.step
        current.state = "preempted"
        return
    scheduled = event.kind == "podScheduled"
    # a bind clears the nomination: the one that led to it is the previous attempt's
    before = current.attempts[-1].nominated_node if current.attempts else None
    nominated = before if scheduled else ((obj.get("status") or {}).get("nominatedNodeName") or None)
    for sr in new_attempts(event):
        attempt = _attempt(len(current.attempts) + 1, sr, event, scheduled, pr.bound_to, profile, nominated)
        if not scheduled:
            attempt = _with_preemption(attempt, victims.pop(key, []))
        current.attempts.append(attempt)
    if scheduled:
        current.state, current.node = "bound", pr.bound_to


def _with_preemption(attempt: Attempt, evicted: list[Victim]) -> Attempt:
    """The failed attempt with what its PostFilter (preemption) did, said in `why`."""
    nominated = attempt.nominated_node
    if evicted:
        names = ", ".join(f"{v.namespace}/{v.name}" for v in evicted)
        why = (f"{attempt.why}; preemption evicted {len(evicted)} pod(s) of lower priority ({names})"
               + (f" and nominated node {nominated}" if nominated else ""))
        return attrs.evolve(attempt, victims=evicted, why=why)
    if nominated:
        return attrs.evolve(attempt, why=f"{attempt.why}; the pod stays nominated to {nominated} "
                                          "(status.nominatedNodeName) until the victims are gone")
    return attempt


def explain_pod(result: Scenario, pod: str) -> list[PodExplanation]:
    """Every instance of the pod named `pod` ("name" or "namespace/name"); PodNotFound when
    no pod (or more than one, by name alone) matches."""
    key = _resolve(result, pod)
    return explain_pods(result, [key])[key]


# --- JSON -----------------------------------------------------------------------------------

def _step(step: ScenarioStep | None) -> dict[str, int] | None:
    return None if step is None else {"major": step.major, "minor": step.minor}


def _score(s: ScenarioPluginsScoreResult) -> dict[str, int]:
    return {"raw": s.raw_score, "normalized": s.normalized_score, "weighted": s.final_score}


def _attempt_data(a: Attempt) -> dict[str, Any]:
    return {
        "attempt": a.number, "step": _step(a.step), "profile": a.profile, "outcome": a.outcome, "node": a.node,
        "message": a.message, "detail": a.detail, "candidateNodes": a.candidate_nodes,
        "feasibleNodes": a.feasible_nodes, "why": a.why, "tiedNodes": a.tied, "nominatedNode": a.nominated_node,
        "victims": [{"namespace": v.namespace, "name": v.name, "node": v.node, "priority": v.priority,
                     "step": _step(v.step)} for v in a.victims],
        "filterReasons": dict(sorted(a.reasons.items())),
        "filter": [{"node": f.node, "rejectedBy": f.plugin, "message": f.message, "plugins": f.verdicts}
                   for f in a.filters],
        "scorePlugins": a.score_plugins,
        "scores": [{"node": s.node, "total": s.total, "plugins": {p: _score(v) for p, v in s.plugins.items()}}
                   for s in a.scores],
        "extenders": a.extenders, "notes": a.notes,
    }


def explanation_data(pod: PodExplanation) -> dict[str, Any]:
    """The explanation as JSON-ready data (what `kubesim explain --json` prints)."""
    return {
        "namespace": pod.namespace, "name": pod.name, "uid": pod.uid, "priority": pod.priority,
        "profile": pod.profile, "created": _step(pod.created), "state": pod.state, "node": pod.node,
        "preemptedBy": pod.preempted_by, "preemptedAt": _step(pod.preempted_at),
        "attempts": [_attempt_data(a) for a in pod.attempts],
    }
