"""Small builders for pod/node dicts, shaped like upstream's pkg/scheduler/testing wrappers.

Used by test_interpodaffinity.py and test_podtopologyspread.py to transcribe upstream test tables.
"""

from __future__ import annotations

import copy
from typing import Any

REQ_AFF = "aff-req"
PREF_AFF = "aff-pref"
REQ_ANTI = "anti-req"
PREF_ANTI = "anti-pref"


def sel(
    match_labels: dict[str, str] | None = None, *exprs: tuple[str, str, list[str] | None]
) -> dict[str, Any]:
    """A metav1.LabelSelector: matchLabels plus (key, operator, values) expressions."""
    out: dict[str, Any] = {}
    if match_labels is not None:
        out["matchLabels"] = dict(match_labels)
    if exprs:
        out["matchExpressions"] = [
            {"key": k, "operator": op, **({"values": list(v)} if v is not None else {})} for k, op, v in exprs
        ]
    return out


def term(
    selector: dict[str, Any] | None,
    topology_key: str = "",
    namespaces: list[str] | None = None,
    namespace_selector: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A v1.PodAffinityTerm."""
    t: dict[str, Any] = {"topologyKey": topology_key}
    if selector is not None:
        t["labelSelector"] = selector
    if namespaces is not None:
        t["namespaces"] = list(namespaces)
    if namespace_selector is not None:
        t["namespaceSelector"] = namespace_selector
    return t


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    """A v1.WeightedPodAffinityTerm."""
    return {"weight": weight, "podAffinityTerm": t}


def affinity(
    req: list[dict[str, Any]] | None = None,
    pref: list[dict[str, Any]] | None = None,
    anti_req: list[dict[str, Any]] | None = None,
    anti_pref: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A v1.Affinity with pod (anti-)affinity; None parts are omitted."""
    out: dict[str, Any] = {}
    if req is not None or pref is not None:
        pa: dict[str, Any] = {}
        if req is not None:
            pa["requiredDuringSchedulingIgnoredDuringExecution"] = req
        if pref is not None:
            pa["preferredDuringSchedulingIgnoredDuringExecution"] = pref
        out["podAffinity"] = pa
    if anti_req is not None or anti_pref is not None:
        paa: dict[str, Any] = {}
        if anti_req is not None:
            paa["requiredDuringSchedulingIgnoredDuringExecution"] = anti_req
        if anti_pref is not None:
            paa["preferredDuringSchedulingIgnoredDuringExecution"] = anti_pref
        out["podAntiAffinity"] = paa
    return out


class Pod:
    """Fluent pod builder (a dict in Kubernetes JSON form)."""

    def __init__(self, name: str = "") -> None:
        self.p: dict[str, Any] = {"metadata": {"name": name, "namespace": ""}, "spec": {}}

    def name(self, n: str) -> Pod:
        self.p["metadata"]["name"] = n
        return self

    def uid(self, u: str) -> Pod:
        self.p["metadata"]["uid"] = u
        return self

    def ns(self, n: str) -> Pod:
        self.p["metadata"]["namespace"] = n
        return self

    def label(self, k: str, v: str) -> Pod:
        self.p["metadata"].setdefault("labels", {})[k] = v
        return self

    def labels(self, d: dict[str, str]) -> Pod:
        for k, v in d.items():
            self.label(k, v)
        return self

    def node(self, n: str) -> Pod:
        self.p["spec"]["nodeName"] = n
        return self

    def terminating(self) -> Pod:
        self.p["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        return self

    def node_selector(self, d: dict[str, str]) -> Pod:
        self.p["spec"]["nodeSelector"] = dict(d)
        return self

    def node_affinity_in(self, key: str, vals: list[str], fields: bool = False) -> Pod:
        expr = {"key": key, "operator": "In", "values": list(vals)}
        t = {"matchFields": [expr]} if fields else {"matchExpressions": [expr]}
        na = self.p["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [t]}
        return self

    def node_affinity_not_in(self, key: str, vals: list[str]) -> Pod:
        expr = {"key": key, "operator": "NotIn", "values": list(vals)}
        na = self.p["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": [expr]}]
        }
        return self

    def toleration(self, key: str) -> Pod:
        self.p["spec"].setdefault("tolerations", []).append({"key": key, "operator": "Exists"})
        return self

    def affinity(self, a: dict[str, Any] | None) -> Pod:
        if a is not None:
            self.p["spec"]["affinity"] = copy.deepcopy(a)
        return self

    def _pod_affinity(self, anti: bool, tk: str, selector: dict[str, Any] | None, kind: str) -> Pod:
        a = (
            self.p["spec"]
            .setdefault("affinity", {})
            .setdefault("podAntiAffinity" if anti else "podAffinity", {})
        )
        t = term(selector, tk)
        if kind.endswith("req"):
            a.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(t)
        else:
            a.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(weighted(1, t))
        return self

    def pod_affinity_in(self, key: str, tk: str, vals: list[str], kind: str = REQ_AFF) -> Pod:
        return self._pod_affinity(kind.startswith("anti"), tk, sel(None, (key, "In", vals)), kind)

    def pod_affinity_not_in(self, key: str, tk: str, vals: list[str], kind: str = REQ_AFF) -> Pod:
        return self._pod_affinity(kind.startswith("anti"), tk, sel(None, (key, "NotIn", vals)), kind)

    def pod_affinity_exists(self, key: str, tk: str, kind: str = REQ_AFF) -> Pod:
        return self._pod_affinity(kind.startswith("anti"), tk, sel(None, (key, "Exists", None)), kind)

    def pod_affinity_not_exists(self, key: str, tk: str, kind: str = REQ_AFF) -> Pod:
        return self._pod_affinity(kind.startswith("anti"), tk, sel(None, (key, "DoesNotExist", None)), kind)

    def spread(
        self,
        max_skew: int,
        tk: str,
        mode: str,
        selector: dict[str, Any] | None,
        min_domains: int | None = None,
        node_affinity_policy: str | None = None,
        node_taints_policy: str | None = None,
        match_label_keys: list[str] | None = None,
    ) -> Pod:
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": tk, "whenUnsatisfiable": mode}
        if selector is not None:
            c["labelSelector"] = selector
        if min_domains is not None:
            c["minDomains"] = min_domains
        if node_affinity_policy is not None:
            c["nodeAffinityPolicy"] = node_affinity_policy
        if node_taints_policy is not None:
            c["nodeTaintsPolicy"] = node_taints_policy
        if match_label_keys is not None:
            c["matchLabelKeys"] = list(match_label_keys)
        self.p["spec"].setdefault("topologySpreadConstraints", []).append(c)
        return self

    def owner(self, name: str, kind: str, api_version: str) -> Pod:
        self.p["metadata"]["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": name, "controller": True}
        ]
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self.p)


class Node:
    """Fluent node builder."""

    def __init__(self, name: str = "") -> None:
        self.n: dict[str, Any] = {"metadata": {"name": name}, "spec": {}}

    def label(self, k: str, v: str) -> Node:
        self.n["metadata"].setdefault("labels", {})[k] = v
        return self

    def labels(self, d: dict[str, str]) -> Node:
        for k, v in d.items():
            self.label(k, v)
        return self

    def taints(self, taints: list[dict[str, str]]) -> Node:
        self.n["spec"]["taints"] = list(taints)
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self.n)


def node(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A node with labels."""
    return Node(name).labels(labels or {}).obj()


def bare_pod(
    node_name: str = "",
    labels: dict[str, str] | None = None,
    ns: str = "",
    aff: dict[str, Any] | None = None,
    name: str = "",
) -> dict[str, Any]:
    """A pod literal like upstream's &v1.Pod{Spec: {NodeName, Affinity}, ObjectMeta: {Namespace, Labels}}."""
    return Pod(name).ns(ns).labels(labels or {}).node(node_name).affinity(aff).obj()
