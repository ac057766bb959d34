"""Builders for nodes/pods and a one-plugin framework harness for the ported upstream tables.

The builders mirror upstream's st.MakeNode()/st.MakePod() wrappers closely enough that
the tables read like the Go originals.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kubesim_scheduler import Scheduler, in_tree_registry
from kubesim_scheduler.framework import CycleState, NodeInfoList, PodInfo, ProfileConfig, Status

_uid = itertools.count()


def make_node(
    name: str,
    capacity: Mapping[str, Any] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    taints: Sequence[Mapping[str, str]] | None = None,
    images: Sequence[tuple[Sequence[str], int]] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    """A node whose capacity and allocatable are both `capacity`."""
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    status: dict[str, Any] = {"capacity": dict(capacity or {}), "allocatable": dict(capacity or {})}
    if images:
        status["images"] = [{"names": list(n), "sizeBytes": s} for n, s in images]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec, "status": status}


def make_pod(
    name: str = "",
    *,
    node: str = "",
    reqs: Sequence[Mapping[str, Any] | None] = (),
    init_reqs: Sequence[Mapping[str, Any] | None] = (),
    images: Sequence[str] = (),
    init_images: Sequence[str] = (),
    ports: Sequence[Mapping[str, Any]] = (),
    tolerations: Sequence[Mapping[str, Any]] = (),
    node_selector: Mapping[str, str] | None = None,
    affinity: Mapping[str, Any] | None = None,
    overhead: Mapping[str, Any] | None = None,
    priority: int | None = None,
    labels: Mapping[str, str] | None = None,
    gates: Sequence[str] = (),
    spec_extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A pod; each entry of `reqs` becomes one container (None: a container without requests)."""
    uid = f"uid-{next(_uid)}"
    containers = [
        {"name": f"c{i}", "image": "", **({"resources": {"requests": dict(r)}} if r is not None else {})}
        for i, r in enumerate(reqs)
    ]
    for i, img in enumerate(images):
        if i < len(containers):
            containers[i]["image"] = img
        else:
            containers.append({"name": f"c{i}", "image": img})
    if ports:
        if not containers:
            containers.append({"name": "c0", "image": ""})
        containers[0]["ports"] = [dict(p) for p in ports]
    inits = [
        {"name": f"i{i}", "image": "", **({"resources": {"requests": dict(r)}} if r is not None else {})}
        for i, r in enumerate(init_reqs)
    ]
    for i, img in enumerate(init_images):
        if i < len(inits):
            inits[i]["image"] = img
        else:
            inits.append({"name": f"i{i}", "image": img})
    spec: dict[str, Any] = {"containers": containers}
    if inits:
        spec["initContainers"] = inits
    if node:
        spec["nodeName"] = node
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if node_selector is not None:
        spec["nodeSelector"] = dict(node_selector)
    if affinity is not None:
        spec["affinity"] = affinity
    if overhead is not None:
        spec["overhead"] = dict(overhead)
    if priority is not None:
        spec["priority"] = priority
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if spec_extra:
        spec.update(spec_extra)
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name or uid, "namespace": "default", "uid": uid, "labels": dict(labels or {})},
        "spec": spec,
    }


class PluginHarness:
    """A scheduler whose only plugin is `plugin`, at every extension point it implements."""

    def __init__(self, plugin: str, args: Mapping[str, Any] | None = None,
                 nodes: Sequence[Mapping[str, Any]] = (), pods: Sequence[Mapping[str, Any]] = ()) -> None:
        reg = in_tree_registry()
        profile = ProfileConfig.from_multi_point([(plugin, 1)], reg, plugin_args={plugin: args} if args is not None else {})
        self.plugin = plugin
        self.scheduler = Scheduler([profile], registry=reg)
        self.fw = self.scheduler.frameworks["default-scheduler"]
        self.node_names = [n["metadata"]["name"] for n in nodes]
        for n in nodes:
            self.scheduler.add_node(n)
        for p in pods:
            self.scheduler.add_pod(p)

    @property
    def table(self):  # type: ignore[no-untyped-def]
        return self.scheduler.table

    def _rows(self) -> np.ndarray:
        return np.array([self.table.name_to_row[n] for n in self.node_names], dtype=np.intp)

    def pre_filter(self, pod: Mapping[str, Any]) -> tuple[CycleState, PodInfo, Any, Status | None]:
        pi = PodInfo(pod)
        state = CycleState(pi)
        res, st, _ = self.fw.run_pre_filter(state, pi, NodeInfoList(self.table, self.table.order))
        return state, pi, res, st

    def filter(self, pod: Mapping[str, Any]) -> list[Status | None]:
        """Per node (in the given order): the plugin's Filter status (after its PreFilter)."""
        state, pi, _res, st = self.pre_filter(pod)
        if st is not None and not st.is_success():
            return [st for _ in self.node_names]
        out = []
        for row in self._rows().tolist():
            s = self.fw.run_filter_on_node(state, pi, row)
            if s is not None:
                s.plugin = ""
            out.append(s)
        return out

    def score(self, pod: Mapping[str, Any], *, normalized: bool = True) -> list[int] | Status | None:
        """Per node: the (normalised) score; None when PreScore skipped; an Error status on failure."""
        pi = PodInfo(pod)
        state = CycleState(pi)
        rows = self._rows()
        st = self.fw.run_pre_score(state, pi, NodeInfoList(self.table, rows))
        if st is not None and not st.is_success():
            return st
        if self.plugin in state.skip_score_plugins:
            return None
        res = self.fw.run_score(state, pi, rows)
        if isinstance(res, Status):
            return res
        arr = res.normalized[0] if normalized else res.raw[0]
        return [int(x) for x in arr]
