"""NodeAffinity: required nodeSelector + node affinity, preferred-term scoring, addedAffinity."""

# upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go,
# staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE, QueueingHint
from ..framework.interface import (
    BatchFilterPlugin,
    BatchFilterResult,
    BatchScorePlugin,
    EnqueueExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
)
from ..framework.node_info import NodeInfoList
from ..framework.node_table import NodeTable
from ..framework.normalize import default_normalize
from ..framework.pod_info import PodInfo
from ..framework.status import Code, Status
from ..labels import Requirement, SelectorError, requirements_from_expressions, selector_from_set

__all__ = [
    "NodeAffinity",
    "NodeSelector",
    "PreferredSchedulingTerms",
    "RequiredNodeAffinity",
    "ERR_REASON_POD",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_CONFLICT",
]

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_PRE_FILTER_KEY = "PreFilterNodeAffinity"
_PRE_SCORE_KEY = "PreScoreNodeAffinity"
_NAME_FIELD = "metadata.name"


class _Term:
    """A parsed NodeSelectorTerm: label requirements, field requirements, or parse errors."""

    __slots__ = ("labels", "fields", "errors")

    def __init__(self, term: Mapping[str, Any]) -> None:
        self.labels: list[Requirement] | None = None
        self.fields: list[tuple[str, bool, str]] | None = None  # (key, equal?, value)
        self.errors: list[str] = []
        exprs = term.get("matchExpressions") or []
        if exprs:
            try:
                self.labels = requirements_from_expressions(exprs)
            except SelectorError as e:
                self.errors.append(str(e))
        mf = term.get("matchFields") or []
        if mf:
            fields = []
            for r in mf:
                op, vals = r.get("operator"), r.get("values") or []
                if op not in ("In", "NotIn"):
                    self.errors.append(f"{op!r} is not a valid field selector operator")
                elif len(vals) != 1:
                    self.errors.append("must have one element")
                else:
                    fields.append((r.get("key", ""), op == "In", vals[0]))
            self.fields = fields

    def match_rows(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        m = np.ones(len(rows), dtype=bool)
        if self.labels is not None:
            for req in self.labels:
                m &= table.requirement_mask(req, rows)
        if self.fields is not None:
            names = table.names[rows]
            for key, equal, value in self.fields:
                if key == _NAME_FIELD:
                    hit = names == value
                else:
                    hit = np.full(len(rows), value == "", dtype=bool)
                m &= hit if equal else ~hit
        return m

    def match_node(self, node: Mapping[str, Any]) -> bool:
        md = node.get("metadata") or {}
        labels = md.get("labels") or {}
        if self.labels is not None and not all(r.matches(labels) for r in self.labels):
            return False
        name = md.get("name") or ""
        if self.fields is not None and name:
            for key, equal, value in self.fields:
                got = name if key == _NAME_FIELD else ""
                if (got == value) != equal:
                    return False
        return True


def _empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


class NodeSelector:
    """A NodeSelector (terms ORed); terms with parse errors never match (LazyErrorNodeSelector)."""

    def __init__(self, ns: Mapping[str, Any]) -> None:
        self.terms = [_Term(t) for t in ns.get("nodeSelectorTerms") or () if not _empty_term(t)]

    def errors(self) -> list[str]:
        return [e for t in self.terms for e in t.errors]

    def match_rows(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        m = np.zeros(len(rows), dtype=bool)
        for t in self.terms:
            if t.errors:
                continue
            m |= t.match_rows(table, rows)
        return m

    def match_node(self, node: Mapping[str, Any]) -> bool:
        return any(not t.errors and t.match_node(node) for t in self.terms)


class PreferredSchedulingTerms:
    """Weighted preference terms; terms with weight 0 or no requirements are dropped."""

    def __init__(self, terms: Sequence[Mapping[str, Any]]) -> None:
        self.terms: list[tuple[_Term, int]] = []
        errs = []
        for t in terms:
            weight = int(t.get("weight") or 0)
            pref = t.get("preference") or {}
            if weight == 0 or _empty_term(pref):
                continue
            parsed = _Term(pref)
            if parsed.errors:
                errs.extend(parsed.errors)
            else:
                self.terms.append((parsed, weight))
        if errs:
            raise SelectorError("; ".join(errs))

    def score_rows(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), dtype=np.int64)
        for term, weight in self.terms:
            out += np.where(term.match_rows(table, rows), weight, 0)
        return out


class RequiredNodeAffinity:
    """nodeSelector labels AND required node affinity terms (GetRequiredNodeAffinity)."""

    def __init__(self, pod: Mapping[str, Any]) -> None:
        spec = pod.get("spec") or {}
        ns = spec.get("nodeSelector") or {}
        self.label_selector = selector_from_set(ns) if ns else None
        req = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        self.node_selector = NodeSelector(req) if req is not None else None

    def match_rows(self, table: NodeTable, rows: np.ndarray) -> np.ndarray:
        m = np.ones(len(rows), dtype=bool)
        if self.label_selector is not None:
            for r in self.label_selector.requirements:
                m &= table.requirement_mask(r, rows)
        if self.node_selector is not None:
            m &= self.node_selector.match_rows(table, rows)
        return m

    def match_node(self, node: Mapping[str, Any]) -> bool:
        labels = (node.get("metadata") or {}).get("labels") or {}
        if self.label_selector is not None and not self.label_selector.matches(labels):
            return False
        return self.node_selector is None or self.node_selector.match_node(node)


def _pod_required(pod_info: PodInfo) -> RequiredNodeAffinity:
    r = pod_info.cache.get("NodeAffinity/required")
    if r is None:
        r = pod_info.cache["NodeAffinity/required"] = RequiredNodeAffinity(pod_info.pod)
    return r


def _pod_preferred(pod: Mapping[str, Any]) -> PreferredSchedulingTerms | None:
    na = (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity")) or {}
    terms = na.get("preferredDuringSchedulingIgnoredDuringExecution")
    if terms is None:
        return None
    return PreferredSchedulingTerms(terms)


class NodeAffinity(PreFilterPlugin, BatchFilterPlugin, PreScorePlugin, BatchScorePlugin, EnqueueExtensions):
    name = "NodeAffinity"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        added = self.args.get("addedAffinity") or None
        self.added_node_selector: NodeSelector | None = None
        self.added_pref_terms: PreferredSchedulingTerms | None = None
        if added:
            req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
            if req is not None:
                self.added_node_selector = NodeSelector(req)
                if self.added_node_selector.errors():
                    raise ValueError(f"parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: {self.added_node_selector.errors()}")
            pref = added.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            if pref:
                self.added_pref_terms = PreferredSchedulingTerms(pref)

    # PreFilter
    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        pi = state.pod_info or self.handle.pod_info(pod)
        spec = pod.get("spec") or {}
        na = (spec.get("affinity") or {}).get("nodeAffinity") or None
        required = None if na is None else na.get("requiredDuringSchedulingIgnoredDuringExecution")
        no_node_affinity = required is None
        if no_node_affinity and self.added_node_selector is None and spec.get("nodeSelector") is None:
            return None, Status(Code.SKIP)
        state.write(_PRE_FILTER_KEY, _pod_required(pi))
        if required is None or not required.get("nodeSelectorTerms"):
            return None, None
        node_names: set[str] | None = None
        for t in required["nodeSelectorTerms"]:
            term_names: set[str] | None = None
            for r in t.get("matchFields") or ():
                if r.get("key") == _NAME_FIELD and r.get("operator") == "In":
                    s = set(r.get("values") or ())
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                return None, None
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and len(node_names) == 0:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    # Filter
    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        t = self.handle.node_table
        enforced_fail = None
        if self.added_node_selector is not None:
            enforced_fail = ~self.added_node_selector.match_rows(t, rows)
        req = state.get(_PRE_FILTER_KEY) or _pod_required(pod_info)
        pod_fail = ~req.match_rows(t, rows)
        if enforced_fail is None or not enforced_fail.any():
            return BatchFilterResult.from_mask(pod_fail, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        fail = enforced_fail | pod_fail
        enforced_rows = set(rows[enforced_fail].tolist())
        codes = np.where(fail, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), np.int8(0)).astype(np.int8)
        return BatchFilterResult(codes, lambda row: (ERR_REASON_ENFORCED if row in enforced_rows else ERR_REASON_POD,))

    # Score
    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        try:
            pref = _pod_preferred(pod)
        except SelectorError as e:
            return Status.from_error(e)
        if pref is None and self.added_pref_terms is None:
            return Status(Code.SKIP)
        state.write(_PRE_SCORE_KEY, pref)
        return None

    def score_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> np.ndarray:
        t = self.handle.node_table
        out = np.zeros(len(rows), dtype=np.int64)
        if self.added_pref_terms is not None:
            out += self.added_pref_terms.score_rows(t, rows)
        try:
            pref = state.read(_PRE_SCORE_KEY)
        except KeyError:
            pref = _pod_preferred(pod_info.pod)
        if pref is not None:
            out += pref.score_rows(t, rows)
        return out

    def normalize_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores)

    # Queueing
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), self._after_node_change)]

    def _after_node_change(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        if self.added_node_selector is not None and not self.added_node_selector.match_node(new):
            return QueueingHint.QUEUE_SKIP
        req = RequiredNodeAffinity(pod)
        if not req.match_node(new):
            return QueueingHint.QUEUE_SKIP
        if old is None:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP if req.match_node(old) else QueueingHint.QUEUE
