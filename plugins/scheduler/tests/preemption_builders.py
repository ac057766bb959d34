"""Builders and fakes for the ported preemption tables (default_preemption_test.go,
preemption_test.go): st.MakePod/MakeNode look-alikes, the fake filter plugins of
pkg/scheduler/testing/framework, and a harness that builds a one-profile Scheduler with
DefaultPreemption at PostFilter."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesim_scheduler import Scheduler, in_tree_registry
from kubesim_scheduler.framework import (
    Code,
    CycleState,
    FilterPlugin,
    NodeInfoList,
    PodInfo,
    PreFilterExtensions,
    PreFilterPlugin,
    ProfileConfig,
    Status,
)
from kubesim_scheduler.plugins.defaultpreemption import DefaultPreemption
from scheduler_harness import make_node, make_pod

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
LABEL_KEYS = ("hostname", "zone", "region")
ERR_REASON_FAKE = "Nodes failed the fake plugin"


def epoch(ns: int = 0) -> str:
    """metav1.NewTime(time.Unix(0, ns)) as an RFC 3339 string."""
    return f"1970-01-01T00:00:00.{ns:09d}Z"


def pod(
    name: str,
    *,
    node: str = "",
    prio: int | None = None,
    req: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    start: str | None = None,
    uid: str | None = None,
    nominated: str | None = None,
    policy: str | None = None,
    terminating: bool = False,
    conditions: Sequence[Mapping[str, str]] = (),
    anti_affinity_exists: tuple[str, str] | None = None,
    spread: Sequence[tuple[int, str]] = (),
    spread_key: str = "foo",
    scheduler_name: str | None = None,
) -> dict[str, Any]:
    """st.MakePod() with the wrappers the tables use (uid defaults to the name)."""
    extra: dict[str, Any] = {}
    if policy:
        extra["preemptionPolicy"] = policy
    if spread:
        extra["topologySpreadConstraints"] = [
            {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchExpressions": [{"key": spread_key, "operator": "Exists"}]}}
            for skew, key in spread
        ]
    if scheduler_name:
        extra["schedulerName"] = scheduler_name
    affinity = None
    if anti_affinity_exists:
        key, topo = anti_affinity_exists
        affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchExpressions": [{"key": key, "operator": "Exists"}]}, "topologyKey": topo}]}}
    p = make_pod(name, node=node, reqs=[req] if req else [], priority=prio, labels=labels,
                 affinity=affinity, spec_extra=extra)
    p["metadata"]["uid"] = uid or name
    status: dict[str, Any] = {}
    if start:
        status["startTime"] = start
    if nominated:
        status["nominatedNodeName"] = nominated
    if conditions:
        status["conditions"] = [dict(c) for c in conditions]
    if status:
        p["status"] = status
    if terminating:
        p["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return p


def node(
    spec: str, capacity: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
    *, topology: bool = False,
) -> dict[str, Any]:
    """A node named by the first part of "name/zone/region"; with `topology` it is labelled
    hostname/zone/region from those parts (as the DryRunPreemption and Preempt tables do).
    Like st.MakeNode().Capacity(), the capacity holds 32 pods unless it says otherwise."""
    parts = spec.split("/")
    ls = dict(labels or {})
    if topology:
        ls.update({LABEL_KEYS[i]: v for i, v in enumerate(parts)})
    return make_node(parts[0], {"pods": "32", **(VERY_LARGE if capacity is None else capacity)}, labels=ls)


def pdb(
    match_labels: Mapping[str, str], allowed: int, *, name: str = "", namespace: str | None = None,
    disrupted: Iterable[str] = (),
) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name}
    if namespace:
        md["namespace"] = namespace
    status: dict[str, Any] = {"disruptionsAllowed": allowed}
    d = list(disrupted)
    if d:
        status["disruptedPods"] = {n: "2025-01-01T00:00:00Z" for n in d}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": md,
            "spec": {"selector": {"matchLabels": dict(match_labels)}}, "status": status}


# --- fake plugins (pkg/scheduler/testing/framework/fake_plugins.go) --------------------

class FakeFilter(FilterPlugin):
    """Counts Filter calls; fails the nodes listed in `codes` with that code."""

    name = "FakeFilter"

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        self.num_called = 0
        self.codes: dict[str, Code] = {}

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: Any) -> Status | None:
        self.num_called += 1
        code = self.codes.get(node_info.name)
        if code is None or code == Code.SUCCESS:
            return None
        return Status(code, f"injecting failure for pod {pod['metadata']['name']}")


class TrueFilter(FilterPlugin):
    name = "TrueFilter"

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: Any) -> Status | None:
        return None


class FalseFilter(FilterPlugin):
    name = "FalseFilter"

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: Any) -> Status | None:
        return Status(Code.UNSCHEDULABLE, ERR_REASON_FAKE)


class MatchFilter(FilterPlugin):
    """Passes only the node named like the pod."""

    name = "MatchFilter"

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: Any) -> Status | None:
        if pod["metadata"]["name"] == node_info.name:
            return None
        return Status(Code.UNSCHEDULABLE, ERR_REASON_FAKE)


class ErrorOnLabelPlugin(PreFilterPlugin, PreFilterExtensions):
    """default_preemption_test.go's TestPlugin: AddPod/RemovePod fail on nodes labelled error=true."""

    name = "test-plugin"

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: Any) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_add: PodInfo, node_info: Any) -> Status | None:
        if (node_info.node.get("metadata") or {}).get("labels", {}).get("error") == "true":
            return Status.from_error(f"failed to add pod: {pod['metadata']['name']}")
        return None

    def remove_pod(self, state: CycleState, pod: Mapping[str, Any], pod_info_to_remove: PodInfo, node_info: Any) -> Status | None:
        if (node_info.node.get("metadata") or {}).get("labels", {}).get("error") == "true":
            return Status.from_error(f"failed to remove pod: {pod['metadata']['name']}")
        return None


FAKES = (FakeFilter, TrueFilter, FalseFilter, MatchFilter, ErrorOnLabelPlugin)


class Harness:
    """A Scheduler with one profile: PrioritySort, the given PreFilter/Filter plugins,
    DefaultPreemption at PostFilter (and PreEnqueue), DefaultBinder."""

    def __init__(
        self,
        nodes: Sequence[Mapping[str, Any]],
        pods: Sequence[Mapping[str, Any]] = (),
        *,
        pre_filter: Sequence[str] = ("NodeResourcesFit",),
        filter: Sequence[str] = ("NodeResourcesFit",),
        args: Mapping[str, Any] | None = None,
        pdbs: Sequence[Mapping[str, Any]] = (),
        async_preemption: bool = False,
        fail_delete: Iterable[str] = (),
        gone: Iterable[str] = (),
    ) -> None:
        reg = in_tree_registry()
        for cls in FAKES:
            reg[cls.name] = cls
        points = {
            "queueSort": ("PrioritySort",), "preFilter": tuple(pre_filter), "filter": tuple(filter),
            "postFilter": ("DefaultPreemption",), "preEnqueue": ("DefaultPreemption",), "bind": ("DefaultBinder",),
        }
        profile = ProfileConfig(
            plugins={k: v for k, v in points.items() if v},
            plugin_args={"DefaultPreemption": dict(args)} if args else {},
        )
        self.pdbs = [dict(p) for p in pdbs]
        self.deleted: list[str] = []
        self.fail_delete = set(fail_delete)
        self.gone = set(gone)
        self.scheduler = Scheduler(
            [profile], registry=reg,
            lister=lambda kind, ns: self.pdbs if kind == "PodDisruptionBudget" else (),
            preempt_pod=self._preempt, feature_gates={"SchedulerAsyncPreemption": async_preemption},
        )
        self.fw = self.scheduler.frameworks["default-scheduler"]
        self.plugin: DefaultPreemption = self.fw.plugins["DefaultPreemption"]  # type: ignore[assignment]
        for n in nodes:
            self.scheduler.add_node(n)
        for p in pods:
            self.scheduler.add_pod(p)

    def _preempt(self, victim: Mapping[str, Any], preemptor: Mapping[str, Any], node: str) -> bool:
        name = victim["metadata"]["name"]
        if name in self.fail_delete:
            raise RuntimeError("delete pod failed")
        if name in self.gone:
            return False
        self.deleted.append(name)
        return True

    @property
    def table(self) -> Any:
        return self.scheduler.table

    def fake(self, name: str = "FakeFilter") -> Any:
        return self.fw.plugins[name]

    def state_for(self, preemptor: Mapping[str, Any]) -> tuple[CycleState, PodInfo]:
        """PreFilter run for the pod (which is added to the scheduler, as to the informer)."""
        self.scheduler.add_pod(preemptor)
        pi = PodInfo(self.scheduler.pods[preemptor["metadata"]["uid"]])
        state = CycleState(pi)
        _res, st, _ = self.fw.run_pre_filter(state, pi, NodeInfoList(self.table, self.table.order))
        assert st is None or st.is_success(), st
        return state, pi

    def rows_by_name(self) -> list[int]:
        """All node rows sorted by node name (the tables sort nodeInfos by name)."""
        return sorted(self.table.order.tolist(), key=lambda r: self.table.row_names[r])
