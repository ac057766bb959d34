"""An incremental index of nodes and bound pods for the pod-to-pod plugins.

Upstream walks every pod of every node in each cycle (NodeInfo.Pods, PodsWithAffinity,
PodsWithRequiredAntiAffinity). Here pods that look the same to a selector (same namespace,
labels, terminating flag) form one group with a per-node count array, and identical affinity
terms of many pods form one term group; matching then costs one check per group, and the
counts per topology domain come from numpy. Sums of counts equal upstream's per-pod sums.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesim.k8s.keys import pod_key
from kubesim.k8s.selectors import EQUALS, IN
from kubesim.k8s.selectors import LabelSelector as Selector

from .terms import AffinityTerm, PodAffinityInfo, pod_affinity_info

__all__ = ["ClusterIndex", "Domain", "LabelGroup", "TermGroup", "pod_key"]

# Kinds of existing-pod terms that matter to scoring (and their sign).
HARD_AFFINITY = "hard"
PREFERRED_AFFINITY = "pref"
PREFERRED_ANTI_AFFINITY = "prefanti"

_MEMO_LIMIT = 1_000_000


def _labels_sig(labels: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(labels.items()))


def selector_pairs(sel: Selector) -> list[tuple[str, str]] | None:
    """Label pairs one of which any matching label set must hold; None when there are none.

    An empty list means the selector matches nothing. Used to look up candidates by label.
    """
    if sel.nothing:
        return []
    for r in sel.requirements:
        if r.op == EQUALS or r.op == IN:
            return [(r.key, v) for v in sorted(r.values)]
    return None


@dataclass(frozen=True)
class Domain:
    """The values of one topology key over node slots."""

    ids: np.ndarray
    values: list[str]
    pos: dict[str, int]

    def sums(self, counts: np.ndarray) -> np.ndarray:
        """Sum per-slot counts into per-domain totals (slots without the key are dropped)."""
        ids = self.ids
        c = counts[: len(ids)]
        mask = ids >= 0
        if not self.values:
            return np.zeros(0, dtype=np.int64)
        return np.bincount(ids[mask], weights=c[mask], minlength=len(self.values)).astype(np.int64)


@dataclass
class LabelGroup:
    """Bound pods sharing namespace, labels and terminating flag; counts per node slot."""

    namespace: str
    labels: Mapping[str, str]
    terminating: bool
    counts: np.ndarray
    total: int = 0
    refs: int = 0


@dataclass
class TermGroup:
    """Identical (term, weight) carried by bound pods; counts of (pod, term) per node slot."""

    term: AffinityTerm
    weight: int
    counts: np.ndarray
    total: int = 0
    refs: int = 0


@dataclass
class _PodEntry:
    pod: Mapping[str, Any]
    info: PodAffinityInfo
    node_name: str
    label_sig: Any
    term_keys: list[tuple[str, Any]] = field(default_factory=list)


class ClusterIndex:
    """Nodes (slots with labels) and the bound pods on them, kept up to date incrementally."""

    def __init__(
        self, nodes: Iterable[Mapping[str, Any]] = (), pods: Iterable[Mapping[str, Any]] = ()
    ) -> None:
        self.node_names: list[str] = []
        self.node_objs: list[Mapping[str, Any] | None] = []
        self.node_labels: list[Mapping[str, str]] = []
        self.node_pos: dict[str, int] = {}
        self.generation = 0
        self.node_generation = 0
        self.label_groups: dict[Any, LabelGroup] = {}
        self.anti_groups: dict[Any, TermGroup] = {}
        self.score_groups: dict[tuple[str, Any], TermGroup] = {}
        self._label_by_pair: dict[tuple[str, str], dict[Any, None]] = {}
        self._anti_buckets: dict[Any, dict[Any, None]] = {}
        self._score_buckets: dict[Any, dict[Any, None]] = {}
        self._pods: dict[Any, _PodEntry] = {}
        self._pods_by_node: dict[str, dict[Any, _PodEntry]] = {}
        self._capacity = 0
        self._domains: dict[str, Domain] = {}
        self._active: np.ndarray = np.zeros(0, dtype=bool)
        self.memo: dict[Any, Any] = {}
        for n in nodes:
            self.add_node(n)
        for p in pods:
            self.add_pod(p)

    # ----- nodes -------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of node slots (removed nodes keep their slot)."""
        return len(self.node_names)

    def active_mask(self) -> np.ndarray:
        """Boolean array: slots that hold a live node."""
        return self._active[: self.size]

    def nodes(self) -> Iterator[tuple[int, Mapping[str, Any]]]:
        """Live nodes as (slot, node object), in insertion order."""
        for i, n in enumerate(self.node_objs):
            if n is not None:
                yield i, n

    def _grow(self, need: int) -> None:
        if need <= self._capacity:
            return
        cap = max(need, self._capacity * 2, 16)
        for g in (
            list(self.label_groups.values())
            + list(self.anti_groups.values())
            + list(self.score_groups.values())
        ):
            g.counts = np.concatenate([g.counts, np.zeros(cap - self._capacity, dtype=np.int64)])
        self._active = np.concatenate([self._active, np.zeros(cap - self._capacity, dtype=bool)])
        self._capacity = cap

    def _zeros(self) -> np.ndarray:
        return np.zeros(self._capacity, dtype=np.int64)

    def add_node(self, node: Mapping[str, Any]) -> int:
        """Add (or update) a node; returns its slot."""
        name = (node.get("metadata") or {}).get("name", "")
        if name in self.node_pos and self.node_objs[self.node_pos[name]] is not None:
            self.update_node(node)
            return self.node_pos[name]
        if name in self.node_pos:
            i = self.node_pos[name]
        else:
            i = len(self.node_names)
            self._grow(i + 1)
            self.node_names.append(name)
            self.node_objs.append(None)
            self.node_labels.append({})
            self.node_pos[name] = i
        self.node_objs[i] = node
        self.node_labels[i] = (node.get("metadata") or {}).get("labels") or {}
        self._active[i] = True
        self._touch_nodes()
        for entry in self._pods_by_node.get(name, {}).values():
            self._count(entry, i, 1)
        return i

    def update_node(self, node: Mapping[str, Any]) -> None:
        """Replace a node's object (labels, taints) in place."""
        name = (node.get("metadata") or {}).get("name", "")
        i = self.node_pos[name]
        self.node_objs[i] = node
        self.node_labels[i] = (node.get("metadata") or {}).get("labels") or {}
        self._touch_nodes()

    def remove_node(self, name: str) -> None:
        """Drop a node; its pods stay known and count again if it comes back."""
        i = self.node_pos.get(name)
        if i is None or self.node_objs[i] is None:
            return
        for entry in self._pods_by_node.get(name, {}).values():
            self._count(entry, i, -1)
        self.node_objs[i] = None
        self.node_labels[i] = {}
        self._active[i] = False
        self._touch_nodes()

    def _touch_nodes(self) -> None:
        self._domains.clear()
        self.generation += 1
        self.node_generation += 1

    def domain(self, key: str) -> Domain:
        """Per-slot domain ids for a topology key (-1: no such label or no node), values, positions."""
        d = self._domains.get(key)
        if d is None:
            values: list[str] = []
            pos: dict[str, int] = {}
            ids = np.full(self.size, -1, dtype=np.int64)
            for i, labels in enumerate(self.node_labels):
                if self.node_objs[i] is None:
                    continue
                v = labels.get(key)
                if v is None:
                    continue
                j = pos.get(v)
                if j is None:
                    j = pos[v] = len(values)
                    values.append(v)
                ids[i] = j
            d = self._domains[key] = Domain(ids, values, pos)
        return d

    # ----- pods --------------------------------------------------------------------------
    def add_pod(
        self,
        pod: Mapping[str, Any],
        info: PodAffinityInfo | None = None,
        key: Any = None,
        node_name: str | None = None,
    ) -> None:
        """Add a bound pod (on spec.nodeName unless given); an already known key is replaced."""
        key = pod_key(pod) if key is None else key
        if key in self._pods:
            self.remove_key(key)
        if node_name is None:
            node_name = (pod.get("spec") or {}).get("nodeName", "") or ""
        info = info or pod_affinity_info(pod)
        meta = pod.get("metadata") or {}
        terminating = meta.get("deletionTimestamp") is not None
        lsig = (info.namespace, _labels_sig(info.labels), terminating)
        entry = _PodEntry(pod, info, node_name, lsig)
        g = self.label_groups.get(lsig)
        if g is None:
            g = self.label_groups[lsig] = LabelGroup(
                info.namespace, dict(info.labels), terminating, self._zeros()
            )
            for pair in info.labels.items():
                self._label_by_pair.setdefault(pair, {})[lsig] = None
        g.refs += 1
        for t in info.required_anti_affinity:
            k = t.sig()
            self._ref_term(self.anti_groups, self._anti_buckets, k, t, 1)
            entry.term_keys.append(("anti", k))
        for t in info.required_affinity:
            self._score_group(entry, HARD_AFFINITY, t, 1)
        for wt in info.preferred_affinity:
            self._score_group(entry, PREFERRED_AFFINITY, wt.term, wt.weight)
        for wt in info.preferred_anti_affinity:
            self._score_group(entry, PREFERRED_ANTI_AFFINITY, wt.term, wt.weight)
        self._pods[key] = entry
        self._pods_by_node.setdefault(node_name, {})[key] = entry
        i = self.node_pos.get(node_name)
        if i is not None and self.node_objs[i] is not None:
            self._count(entry, i, 1)
        self.generation += 1

    def _ref_term(
        self,
        groups: dict[Any, TermGroup],
        buckets: dict[Any, dict[Any, None]],
        k: Any,
        term: AffinityTerm,
        weight: int,
    ) -> None:
        g = groups.get(k)
        if g is None:
            g = groups[k] = TermGroup(term, weight, self._zeros())
            pairs = selector_pairs(term.selector)
            for b in [None] if pairs is None else pairs:
                buckets.setdefault(b, {})[k] = None
        g.refs += 1

    def _unref_term(self, groups: dict[Any, TermGroup], buckets: dict[Any, dict[Any, None]], k: Any) -> None:
        g = groups[k]
        g.refs -= 1
        if g.refs > 0:
            return
        del groups[k]
        pairs = selector_pairs(g.term.selector)
        for b in [None] if pairs is None else pairs:
            bucket = buckets.get(b)
            if bucket is not None:
                bucket.pop(k, None)
                if not bucket:
                    del buckets[b]

    def _score_group(self, entry: _PodEntry, kind: str, term: AffinityTerm, weight: int) -> None:
        k = (kind, term.sig(), weight)
        self._ref_term(self.score_groups, self._score_buckets, k, term, weight)
        entry.term_keys.append(("score", k))

    def remove_pod(self, pod: Mapping[str, Any]) -> None:
        """Forget a bound pod."""
        self.remove_key(pod_key(pod))

    def remove_key(self, key: Any) -> None:
        """Forget a bound pod by the key it was added with."""
        entry = self._pods.pop(key, None)
        if entry is None:
            return
        self._pods_by_node.get(entry.node_name, {}).pop(key, None)
        i = self.node_pos.get(entry.node_name)
        if i is not None and self.node_objs[i] is not None:
            self._count(entry, i, -1)
        g = self.label_groups[entry.label_sig]
        g.refs -= 1
        if g.refs == 0:
            del self.label_groups[entry.label_sig]
            for pair in g.labels.items():
                bucket = self._label_by_pair.get(pair)
                if bucket is not None:
                    bucket.pop(entry.label_sig, None)
                    if not bucket:
                        del self._label_by_pair[pair]
        for kind, k in entry.term_keys:
            if kind == "anti":
                self._unref_term(self.anti_groups, self._anti_buckets, k)
            else:
                self._unref_term(self.score_groups, self._score_buckets, k)
        self.generation += 1

    def _count(self, entry: _PodEntry, i: int, delta: int) -> None:
        g = self.label_groups[entry.label_sig]
        g.counts[i] += delta
        g.total += delta
        for kind, k in entry.term_keys:
            tg = self.anti_groups[k] if kind == "anti" else self.score_groups[k]
            tg.counts[i] += delta
            tg.total += delta

    def keys_on(self, node_name: str) -> list[Any]:
        """Keys of the pods bound to a node."""
        return list(self._pods_by_node.get(node_name, {}))

    def pod_of(self, key: Any) -> Mapping[str, Any] | None:
        """The pod object stored under a key."""
        e = self._pods.get(key)
        return e.pod if e else None

    def node_of(self, key: Any) -> str | None:
        """The node name a pod key was added on."""
        e = self._pods.get(key)
        return e.node_name if e else None

    def has_live_node(self, name: str) -> bool:
        """Whether a node of that name is present."""
        i = self.node_pos.get(name)
        return i is not None and self.node_objs[i] is not None

    def node_obj(self, name: str) -> Mapping[str, Any] | None:
        """The stored node object of a live node."""
        i = self.node_pos.get(name)
        return None if i is None else self.node_objs[i]

    def pods_on(self, node_name: str) -> list[PodAffinityInfo]:
        """Parsed pods bound to a node (in insertion order)."""
        return [e.info for e in self._pods_by_node.get(node_name, {}).values()]

    def info(self, pod: Mapping[str, Any]) -> PodAffinityInfo | None:
        """The parsed info of a known pod."""
        e = self._pods.get(pod_key(pod))
        return e.info if e else None

    # ----- helpers for the plugins -------------------------------------------------------
    def memoized(self, key: Any, compute: Any) -> Any:
        """Cache a pure function of group identities (bounded)."""
        try:
            return self.memo[key]
        except KeyError:
            if len(self.memo) > _MEMO_LIMIT:
                self.memo.clear()
            v = self.memo[key] = compute()
            return v

    def candidate_label_groups(self, sel: Selector) -> Iterator[tuple[Any, LabelGroup]]:
        """Label groups with pods on live nodes that `sel` could match (a superset of matches)."""
        pairs = selector_pairs(sel)
        if pairs is None:
            yield from self.live_label_groups()
            return
        groups = self.label_groups
        for pair in pairs:
            for sig in self._label_by_pair.get(pair, ()):
                g = groups[sig]
                if g.total > 0:
                    yield sig, g

    def _candidate_terms(
        self, groups: dict[Any, TermGroup], buckets: dict[Any, dict[Any, None]], labels: Mapping[str, str]
    ) -> Iterator[tuple[Any, TermGroup]]:
        seen: set[Any] = set()
        for b in (None, *labels.items()):
            for k in buckets.get(b, ()):
                if k in seen:
                    continue
                seen.add(k)
                g = groups[k]
                if g.total > 0:
                    yield k, g

    def candidate_anti_groups(self, labels: Mapping[str, str]) -> Iterator[tuple[Any, TermGroup]]:
        """Required anti-affinity term groups (with pods on live nodes) that may match `labels`."""
        return self._candidate_terms(self.anti_groups, self._anti_buckets, labels)

    def candidate_score_groups(self, labels: Mapping[str, str]) -> Iterator[tuple[Any, TermGroup]]:
        """Scoring term groups (with pods on live nodes) that may match `labels`."""
        return self._candidate_terms(self.score_groups, self._score_buckets, labels)

    def live_label_groups(self) -> Iterator[tuple[Any, LabelGroup]]:
        """Label groups with at least one pod on a live node."""
        for sig, g in self.label_groups.items():
            if g.total > 0:
                yield sig, g

    def counts_view(self, counts: np.ndarray) -> np.ndarray:
        """The slice of a count array covering live slots."""
        return counts[: self.size]
