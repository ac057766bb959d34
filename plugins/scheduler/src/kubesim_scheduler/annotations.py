"""A scheduling attempt's results as kube-scheduler-simulator's pod annotations.

With `kubesim run --annotations`, the scheduler writes what kube-scheduler-simulator's
result stores write: one annotation per extension point under
`kube-scheduler-simulator.sigs.k8s.io/`, each a JSON value encoded as Go's encoding/json
does (maps with sorted keys, compact, <>& escaped), plus `selected-node`, the extender
results when extenders answered, and `result-history` (every write's results, appended).

The API server refuses more than 256 KiB of annotations on an object (keys and values
counted). When the results would exceed that, older history entries go first, then the
per-node parts are cut down to the selected node and the best-scored nodes (then the
others by name), and `kube-scheduler-simulator.sigs.k8s.io/result-truncated: "true"` (a
kubesim addition) says so.
"""

# upstream: kubernetes-sigs/kube-scheduler-simulator simulator/scheduler/plugin/annotation,
# plugin/resultstore/store.go, plugin/wrappedplugin.go, extender/annotation,
# extender/resultstore/resultstore.go, storereflector/storereflector.go (updateResultHistory);
# k8s.io/apimachinery pkg/api/validation/objectmeta.go (TotalAnnotationSizeLimitB)

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from kubesim.input_limits import json_loads

from .attempt import PASSED, ScheduleAttempt
from .config.durations import format_duration
from .extender_types import binding_result_struct, filter_result_struct, preemption_result_struct

__all__ = [
    "BIND_RESULT",
    "EXTENDER_BIND_RESULT",
    "EXTENDER_FILTER_RESULT",
    "EXTENDER_PREEMPT_RESULT",
    "EXTENDER_PRIORITIZE_RESULT",
    "FILTER_RESULT",
    "FINAL_SCORE_RESULT",
    "PERMIT_RESULT",
    "PERMIT_TIMEOUT_RESULT",
    "POST_FILTER_NOMINATED_MESSAGE",
    "POST_FILTER_RESULT",
    "PREFIX",
    "PRE_BIND_RESULT",
    "PRE_FILTER_RESULT",
    "PRE_FILTER_STATUS_RESULT",
    "PRE_SCORE_RESULT",
    "RESERVE_RESULT",
    "RESULT_HISTORY",
    "RESULT_KEYS",
    "RESULT_TRUNCATED",
    "SCORE_RESULT",
    "SELECTED_NODE",
    "TOTAL_ANNOTATION_SIZE_LIMIT",
    "annotation_size",
    "attempt_annotations",
    "go_json",
]

PREFIX = "kube-scheduler-simulator.sigs.k8s.io/"
PRE_FILTER_STATUS_RESULT = PREFIX + "prefilter-result-status"
PRE_FILTER_RESULT = PREFIX + "prefilter-result"
FILTER_RESULT = PREFIX + "filter-result"
POST_FILTER_RESULT = PREFIX + "postfilter-result"
PRE_SCORE_RESULT = PREFIX + "prescore-result"
SCORE_RESULT = PREFIX + "score-result"
FINAL_SCORE_RESULT = PREFIX + "finalscore-result"
RESERVE_RESULT = PREFIX + "reserve-result"
PERMIT_RESULT = PREFIX + "permit-result"
PERMIT_TIMEOUT_RESULT = PREFIX + "permit-result-timeout"
PRE_BIND_RESULT = PREFIX + "prebind-result"
BIND_RESULT = PREFIX + "bind-result"
SELECTED_NODE = PREFIX + "selected-node"
RESULT_HISTORY = PREFIX + "result-history"
EXTENDER_FILTER_RESULT = PREFIX + "extender-filter-result"
EXTENDER_PRIORITIZE_RESULT = PREFIX + "extender-prioritize-result"
EXTENDER_PREEMPT_RESULT = PREFIX + "extender-preempt-result"
EXTENDER_BIND_RESULT = PREFIX + "extender-bind-result"
#: kubesim's own marker: "true" when results were cut to fit the annotation size limit.
RESULT_TRUNCATED = PREFIX + "result-truncated"

#: TotalAnnotationSizeLimitB: keys and values of all of an object's annotations, in bytes.
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
#: resultstore.PostFilterNominatedMessage
POST_FILTER_NOMINATED_MESSAGE = "preemption victim"

#: every key this module writes
RESULT_KEYS = frozenset({
    PRE_FILTER_STATUS_RESULT, PRE_FILTER_RESULT, FILTER_RESULT, POST_FILTER_RESULT, PRE_SCORE_RESULT,
    SCORE_RESULT, FINAL_SCORE_RESULT, RESERVE_RESULT, PERMIT_RESULT, PERMIT_TIMEOUT_RESULT,
    PRE_BIND_RESULT, BIND_RESULT, SELECTED_NODE, RESULT_HISTORY, EXTENDER_FILTER_RESULT,
    EXTENDER_PRIORITIZE_RESULT, EXTENDER_PREEMPT_RESULT, EXTENDER_BIND_RESULT, RESULT_TRUNCATED,
})

_GO_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def go_json(value: Any) -> str:
    """json.Marshal's text: compact, non-ASCII kept, <, >, & and U+2028/9 escaped.

    Maps must already hold their keys in sorted order (Go sorts map keys; struct fields
    keep their declaration order, which is why this does not sort).
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).translate(_GO_ESCAPES)


def annotation_size(annotations: Mapping[str, str]) -> int:
    """ValidateAnnotationsSize's count: the bytes of every key and value."""
    return sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())


def _sorted(d: Mapping[str, Any]) -> dict[str, Any]:
    return dict(sorted(d.items()))


class _Results:
    """The attempt's results in the simulator's shapes; per-node parts restricted on render."""

    def __init__(self, attempt: ScheduleAttempt) -> None:
        rec = attempt.point_results or {}
        extenders = set(attempt.extender_names)
        self.plain: dict[str, Any] = {
            PRE_FILTER_STATUS_RESULT: _sorted(rec.get("preFilter", {})),
            PRE_SCORE_RESULT: _sorted(rec.get("preScore", {})),
            RESERVE_RESULT: _sorted(rec.get("reserve", {})),
            PERMIT_RESULT: _sorted(rec.get("permit", {})),
            PERMIT_TIMEOUT_RESULT: {p: format_duration(t) for p, t in sorted(rec.get("permitTimeout", {}).items())},
            PRE_BIND_RESULT: _sorted(rec.get("preBind", {})),
            BIND_RESULT: _sorted(rec.get("bind", {})),
        }
        self.selected = attempt.reserved_node or ""
        self.pre_filter_result: dict[str, list[str]] = _sorted(rec.get("preFilterResult", {}))

        # filter: Filter plugins per node, as run (not PreFilter's exclusions, not extenders)
        filt: dict[str, dict[str, str]] = {}
        if attempt.pre_filter_status is None:
            for node, per in attempt.filter_results(PASSED).items():
                d = {p: m for p, m in per.items() if p not in extenders and p != "PreFilterResult"}
                if d:
                    filt[node] = _sorted(d)
        post: dict[str, dict[str, str]] = {}
        post_nodes = (rec.get("postFilterNodes") or {}).get("", [])
        for plugin, nominated in rec.get("postFilter", {}).items():
            for node in post_nodes:
                entry = post.setdefault(node, {})
                if node == nominated:
                    entry[plugin] = POST_FILTER_NOMINATED_MESSAGE
        score: dict[str, dict[str, str]] = {}
        final: dict[str, dict[str, str]] = {}
        for node, triples in attempt.score_triples().items():
            cols = {p: t for p, t in triples.items() if p not in extenders}
            if cols:
                score[node] = {p: str(t[0]) for p, t in sorted(cols.items())}
                final[node] = {p: str(t[2]) for p, t in sorted(cols.items())}
        self.node_maps: dict[str, dict[str, Any]] = {
            FILTER_RESULT: _sorted(filt), POST_FILTER_RESULT: {n: _sorted(v) for n, v in sorted(post.items())},
            SCORE_RESULT: _sorted(score), FINAL_SCORE_RESULT: _sorted(final),
        }

        responses = attempt.extender_responses
        self.has_extenders = bool(responses)
        self.ext_filter = {n: filter_result_struct(r) for n, r in sorted(responses.get("filter", {}).items())}
        self.ext_prioritize: dict[str, list[dict[str, Any]]] = _sorted(responses.get("prioritize", {}))
        self.ext_preempt = {n: preemption_result_struct(r) for n, r in sorted(responses.get("preempt", {}).items())}
        self.ext_bind = {n: binding_result_struct(r) for n, r in sorted(responses.get("bind", {}).items())}
        self.ranking = self._ranking(attempt)

    def _nodes(self) -> set[str]:
        """Every node named anywhere in the results."""
        out: set[str] = set()
        for m in self.node_maps.values():
            out.update(m)
        for names in self.pre_filter_result.values():
            out.update(names)
        for r in self.ext_filter.values():
            out.update(r["NodeNames"] or ())
            out.update(_item_name(i) for i in ((r["Nodes"] or {}).get("items") or ()))
            out.update(r["FailedNodes"] or ())
            out.update(r["FailedAndUnresolvableNodes"] or ())
        for lst in self.ext_prioritize.values():
            out.update(str(h.get("Host", "")) for h in lst)
        for r in self.ext_preempt.values():
            out.update(r["NodeNameToMetaVictims"] or ())
        return out

    def _ranking(self, attempt: ScheduleAttempt) -> list[str]:
        """Nodes in the order they are kept: the selected one, the best totals, the rest by name."""
        order: list[str] = []
        if self.selected:
            order.append(self.selected)
        totals = attempt.totals()
        order.extend(sorted(totals, key=lambda n: (-totals[n], n)))
        seen = set(order)
        order.extend(sorted(n for n in self._nodes() if n not in seen))
        out, dup = [], set()
        for n in order:
            if n not in dup:
                dup.add(n)
                out.append(n)
        return out

    def render(self, keep: Callable[[str], bool] | None) -> dict[str, str]:
        """key -> JSON text, per-node parts restricted to the nodes `keep` accepts (None: all)."""
        k = keep or (lambda _n: True)
        out = {key: go_json(v) for key, v in self.plain.items()}
        out[PRE_FILTER_RESULT] = go_json({p: [n for n in names if k(n)] for p, names in self.pre_filter_result.items()})
        for key, m in self.node_maps.items():
            out[key] = go_json({n: v for n, v in m.items() if k(n)})
        out[SELECTED_NODE] = self.selected
        if self.has_extenders:
            out[EXTENDER_FILTER_RESULT] = go_json({n: _restrict_filter(r, k) for n, r in self.ext_filter.items()})
            out[EXTENDER_PRIORITIZE_RESULT] = go_json(
                {n: [h for h in lst if k(str(h.get("Host", "")))] for n, lst in self.ext_prioritize.items()})
            out[EXTENDER_PREEMPT_RESULT] = go_json({n: _restrict_preempt(r, k) for n, r in self.ext_preempt.items()})
            out[EXTENDER_BIND_RESULT] = go_json(self.ext_bind)
        return dict(sorted(out.items()))


def _item_name(item: Any) -> str:
    return str(((item or {}).get("metadata") or {}).get("name", "")) if isinstance(item, dict) else ""


def _restrict_filter(r: dict[str, Any], k: Callable[[str], bool]) -> dict[str, Any]:
    nodes = r["Nodes"]
    if nodes is not None and nodes["items"] is not None:
        nodes = {"metadata": {}, "items": [i for i in nodes["items"] if k(_item_name(i))]}
    return {
        "Nodes": nodes,
        "NodeNames": None if r["NodeNames"] is None else [n for n in r["NodeNames"] if k(n)],
        "FailedNodes": None if r["FailedNodes"] is None else {n: m for n, m in r["FailedNodes"].items() if k(n)},
        "FailedAndUnresolvableNodes": None if r["FailedAndUnresolvableNodes"] is None
        else {n: m for n, m in r["FailedAndUnresolvableNodes"].items() if k(n)},
        "Error": r["Error"],
    }


def _restrict_preempt(r: dict[str, Any], k: Callable[[str], bool]) -> dict[str, Any]:
    m = r["NodeNameToMetaVictims"]
    return {"NodeNameToMetaVictims": None if m is None else {n: v for n, v in m.items() if k(n)}}


def _history(text: str | None) -> list[dict[str, str]]:
    """The pod's result-history entries (none when absent or unreadable)."""
    if not text:
        return []
    try:
        data = json_loads(text, dict)  # a user may write the annotation: nesting bounded
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [{str(k): str(v) for k, v in e.items()} for e in data if isinstance(e, dict)]


def attempt_annotations(
    attempt: ScheduleAttempt, current: Mapping[str, str] | None, limit: int = TOTAL_ANNOTATION_SIZE_LIMIT
) -> tuple[dict[str, str | None], bool] | None:
    """The annotation changes (a merge patch: None deletes) that record `attempt` on a pod
    whose annotations are `current`, and whether they were truncated. None when even the
    smallest form would not fit next to the pod's other annotations."""
    current = current or {}
    res = _Results(attempt)
    others = {k: v for k, v in current.items() if k not in RESULT_KEYS}
    base = annotation_size(others) + len(RESULT_HISTORY.encode())
    old = [go_json(dict(sorted(e.items()))) for e in _history(current.get(RESULT_HISTORY))]

    def history_text(entries: list[str], entry: Mapping[str, str]) -> str:
        return "[" + ",".join([*entries, go_json(dict(sorted(entry.items())))]) + "]"

    def fits(entry: Mapping[str, str], entries: list[str]) -> bool:
        old_bytes = sum(len(t.encode()) + 1 for t in entries)  # each with its comma
        entry_bytes = len(go_json(dict(sorted(entry.items()))).encode()) + 2  # and the brackets
        return base + annotation_size(entry) + old_bytes + entry_bytes <= limit

    def done(entry: dict[str, str], entries: list[str], truncated: bool) -> tuple[dict[str, str | None], bool]:
        patch: dict[str, str | None] = dict(entry)
        patch[RESULT_HISTORY] = history_text(entries, entry)
        if not truncated and RESULT_TRUNCATED in current:
            patch[RESULT_TRUNCATED] = None
        return patch, truncated

    full = res.render(None)
    if fits(full, old):
        return done(full, old, False)
    marked = {**full, RESULT_TRUNCATED: "true"}
    for i in range(1, len(old) + 1):  # the oldest history entries go first
        if fits(marked, old[i:]):
            return done(marked, old[i:], True)

    def form(n: int) -> dict[str, str]:
        return {**res.render(_prefix(res.ranking, n)), RESULT_TRUNCATED: "true"}

    if not fits(form(0), []):
        return None
    lo, hi = 0, len(res.ranking)  # the largest prefix of the ranking that fits is in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(form(mid), []):
            lo = mid
        else:
            hi = mid - 1
    return done(form(lo), [], True)


def _prefix(ranking: list[str], n: int) -> Callable[[str], bool]:
    keep = set(ranking[:n])
    return keep.__contains__
