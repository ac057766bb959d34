"""Builders for nodes/pods and a one-plugin harness (on kubesim_scheduler.testing) for the upstream tables.

The builders mirror upstream's st.MakeNode()/st.MakePod() wrappers closely enough that
the tables read like the Go originals.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from kubesim_scheduler.framework import Status
from kubesim_scheduler.testing import new_framework, register_plugin

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
    """A framework whose only plugin is `plugin`, at every extension point it implements.

    A thin adapter over kubesim_scheduler.testing for the ported upstream tables: results
    come as lists in node order, and Filter statuses without the plugin name.
    """

    def __init__(self, plugin: str, args: Mapping[str, Any] | None = None,
                 nodes: Sequence[Mapping[str, Any]] = (), pods: Sequence[Mapping[str, Any]] = ()) -> None:
        self.plugin = plugin
        self.under_test = new_framework([register_plugin(plugin, args=args)], nodes, pods)
        self.scheduler = self.under_test.scheduler
        self.fw = self.under_test.framework
        self.node_names = self.under_test.node_names

    @property
    def table(self):  # type: ignore[no-untyped-def]
        return self.scheduler.table

    def filter(self, pod: Mapping[str, Any]) -> list[Status | None]:
        """Per node (in the given order): the plugin's Filter status (after its PreFilter)."""
        _res, st = self.under_test.pre_filter(pod)
        if st is not None and not st.is_success():
            return [st for _ in self.node_names]
        return [None if s is None else s.with_plugin("") for s in self.under_test.filter(pod).values()]

    def score(self, pod: Mapping[str, Any], *, normalized: bool = True) -> list[int] | Status | None:
        """Per node: the (normalised) score; None when PreScore skipped; an Error status on failure."""
        res = self.under_test.score(pod)
        if isinstance(res, Status):
            return res
        per_node = [res[n].get(self.plugin) for n in self.node_names]
        if any(s is None for s in per_node):
            return None
        return [(s.normalized if normalized else s.raw) for s in per_node if s is not None]
