"""A framework with just the plugins under test, for plugin unit tests.

    fw = new_framework([register_score_plugin(NodeCost, weight=2, args={...})], nodes=[...])
    fw.filter(pod)   # {node name: Status | None}
    fw.score(pod)    # {node name: {plugin name: Scores(raw, normalized, final)}}

Like upstream's framework_helpers.go, a test registers the plugins it exercises (classes,
or names of in-tree plugins) at the extension points it wants, then runs them for a pod
over a small fixture of nodes and assigned pods, without a cluster or a scenario.
"""

# upstream: pkg/scheduler/testing/framework/framework_helpers.go (NewFramework,
# RegisterPluginAsExtensions, RegisterFilterPlugin, RegisterScorePlugin)

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import attrs
import numpy as np

from .framework.cycle_state import CycleState
from .framework.interface import Plugin, PreFilterResult
from .framework.node_info import NodeInfoList
from .framework.pod_info import PodInfo
from .framework.profile_config import (
    DEFAULT_MULTI_POINT,
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    POINT_INTERFACES,
    ProfileConfig,
)
from .framework.runtime import Framework
from .framework.status import Status
from .framework.views import PluginHandle
from .plugins import in_tree_registry
from .scheduler import Scheduler

__all__ = [
    "PluginRegistration",
    "Scores",
    "PluginTestFramework",
    "new_framework",
    "register_plugin",
    "register_plugin_as_extensions",
    "register_filter_plugin",
    "register_score_plugin",
    "default_plugins",
]


@attrs.frozen
class PluginRegistration:
    """One plugin under test: its class (or in-tree name), extension points, weight and args.

    `points` are extension point names as in a KubeSchedulerConfiguration ("filter",
    "score", ...); None means every point the class implements (multiPoint).
    """

    plugin: type[Plugin] | str
    points: tuple[str, ...] | None = None
    weight: int = 1
    args: Mapping[str, Any] | None = None


class Scores(NamedTuple):
    """A plugin's score for one node: raw, after NormalizeScore, and times the weight."""

    raw: int
    normalized: int
    final: int


def register_plugin(
    plugin: type[Plugin] | str, *, weight: int = 1, args: Mapping[str, Any] | None = None,
) -> PluginRegistration:
    """Register a plugin at every extension point it implements."""
    _check_weight(plugin, weight)
    return PluginRegistration(plugin, None, weight, args)


def register_plugin_as_extensions(
    plugin: type[Plugin] | str, *points: str, weight: int = 1, args: Mapping[str, Any] | None = None,
) -> PluginRegistration:
    """RegisterPluginAsExtensions: register a plugin at the named extension points only."""
    _check_weight(plugin, weight)
    for p in points:
        if p not in EXTENSION_POINTS:
            raise ValueError(f"extension point {p!r}: expected one of {', '.join(EXTENSION_POINTS)}")
    return PluginRegistration(plugin, tuple(points), weight, args)


def register_filter_plugin(plugin: type[Plugin] | str, *, args: Mapping[str, Any] | None = None) -> PluginRegistration:
    """RegisterFilterPlugin: PreFilter (if implemented) and Filter."""
    return register_plugin_as_extensions(plugin, *_implemented(plugin, ("preFilter", "filter")), args=args)


def register_score_plugin(
    plugin: type[Plugin] | str, *, weight: int = 1, args: Mapping[str, Any] | None = None,
) -> PluginRegistration:
    """RegisterScorePlugin: PreScore (if implemented) and Score, with a weight."""
    return register_plugin_as_extensions(plugin, *_implemented(plugin, ("preScore", "score")), weight=weight, args=args)


def default_plugins() -> list[PluginRegistration]:
    """The default profile's plugins with their weights (kube-scheduler v1.34 multiPoint)."""
    return [register_plugin(name, weight=weight or 1) for name, weight in DEFAULT_MULTI_POINT]


def _check_weight(plugin: type[Plugin] | str, weight: int) -> None:
    if isinstance(weight, bool) or not isinstance(weight, int) or weight < 1:
        name = plugin if isinstance(plugin, str) else getattr(plugin, "name", plugin)
        raise ValueError(f"plugin {name!r}: weight {weight!r}: expected a positive integer")


def _implemented(plugin: type[Plugin] | str, points: Sequence[str] = EXTENSION_POINTS) -> list[str]:
    """The extension points among `points` that the plugin's class implements."""
    cls = _resolve(plugin, in_tree_registry())
    return [p for p in points if issubclass(cls, POINT_INTERFACES[p])]


def _resolve(plugin: type[Plugin] | str, registry: Mapping[str, type[Plugin]]) -> type[Plugin]:
    if isinstance(plugin, str):
        cls = registry.get(plugin)
        if cls is None:
            raise ValueError(f"plugin {plugin!r} is not an in-tree plugin; register its class instead")
        return cls
    if not (isinstance(plugin, type) and issubclass(plugin, Plugin)) or not plugin.name:
        raise ValueError(f"plugin {plugin!r}: expected a Plugin subclass with a name")
    return plugin


def _profile(registrations: Sequence[PluginRegistration], profile_name: str) -> tuple[ProfileConfig, dict[str, type[Plugin]]]:
    registry = in_tree_registry()
    points: dict[str, list[str]] = {p: [] for p in EXTENSION_POINTS}
    weights: dict[str, int] = {}
    args: dict[str, Any] = {}
    for reg in registrations:
        cls = _resolve(reg.plugin, registry)
        if cls.name in weights:
            raise ValueError(f"plugin {cls.name!r} is registered twice")
        registry[cls.name] = cls
        wanted = reg.points if reg.points is not None else _implemented(cls)
        for p in wanted:
            if not issubclass(cls, POINT_INTERFACES[p]):
                raise ValueError(f"plugin {cls.name!r} does not implement the {p} extension point")
            points[p].append(cls.name)
        weights[cls.name] = reg.weight
        if reg.args is not None:
            args[cls.name] = dict(reg.args)
    profile = ProfileConfig(
        scheduler_name=profile_name, plugins={p: tuple(v) for p, v in points.items() if v},
        weights=weights, plugin_args=args,
    )
    return profile, registry


class PluginTestFramework:
    """The plugins under test in one profile, over a fixture of nodes and assigned pods."""

    def __init__(
        self,
        registrations: Sequence[PluginRegistration],
        nodes: Iterable[Mapping[str, Any]] = (),
        pods: Iterable[Mapping[str, Any]] = (),
        *,
        profile_name: str = DEFAULT_SCHEDULER_NAME,
        feature_gates: Mapping[str, bool] | None = None,
        lister: Callable[[str, str | None], Iterable[Mapping[str, Any]]] | None = None,
        now: Callable[[], float] | None = None,
        update_object: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None,
    ) -> None:
        profile, registry = _profile(registrations, profile_name)
        self.scheduler = Scheduler([profile], registry=registry, feature_gates=feature_gates, lister=lister, now=now,
                                   update_object=update_object)
        self.framework: Framework = self.scheduler.frameworks[profile_name]
        self.node_names: list[str] = []
        for n in nodes:
            self.add_node(n)
        for p in pods:
            self.add_pod(p)

    @property
    def handle(self) -> PluginHandle:
        """The handle the plugins were given."""
        return self.framework.handle

    def plugin(self, name: str) -> Plugin:
        """The instance of a registered plugin."""
        pl = self.framework.plugin(name)
        if pl is None:
            raise KeyError(f"plugin {name!r} is not registered in this framework")
        return pl

    def add_node(self, node: Mapping[str, Any]) -> None:
        """Add (or replace) a node of the fixture."""
        name = (node.get("metadata") or {}).get("name", "")
        if name not in self.node_names:
            self.node_names.append(name)
        self.scheduler.add_node(node)

    def add_pod(self, pod: Mapping[str, Any]) -> None:
        """Add a pod; one with spec.nodeName counts on that node."""
        self.scheduler.add_pod(pod)

    def _rows(self, node_names: Sequence[str] | None) -> np.ndarray:
        table = self.scheduler.table
        rows = []
        for n in node_names if node_names is not None else self.node_names:
            row = table.row_of(n)
            if row is None:
                raise KeyError(f"node {n!r} is not in the fixture")
            rows.append(row)
        return np.array(rows, dtype=np.intp)

    def _pod_info(self, pod: Mapping[str, Any]) -> PodInfo:
        return self.framework.handle.pod_info(pod)

    def cycle_state(self, pod: Mapping[str, Any]) -> CycleState:
        """A fresh CycleState for scheduling `pod`."""
        return CycleState(self._pod_info(pod))

    def pre_filter(self, pod: Mapping[str, Any], state: CycleState | None = None) -> tuple[PreFilterResult | None, Status | None]:
        """RunPreFilterPlugins over every node: the merged node narrowing and the status."""
        state = state if state is not None else self.cycle_state(pod)
        pi = state.pod_info if state.pod_info is not None else self._pod_info(pod)
        table = self.scheduler.table
        result, status, _ = self.framework.run_pre_filter(state, pi, NodeInfoList(table, table.order))
        return result, status

    def filter(self, pod: Mapping[str, Any], node_names: Sequence[str] | None = None) -> dict[str, Status | None]:
        """PreFilter, then RunFilterPlugins on each node: node name -> None or the rejecting status.

        A failed PreFilter is every node's status. Statuses carry the rejecting plugin's name.
        """
        pi = self._pod_info(pod)
        state = CycleState(pi)
        names = list(node_names) if node_names is not None else list(self.node_names)
        _, status = self.pre_filter(pod, state)
        if status is not None and not status.is_success():
            return {n: status for n in names}
        return {
            n: self.framework.run_filter_on_node(state, pi, int(row))
            for n, row in zip(names, self._rows(names).tolist())
        }

    def score(self, pod: Mapping[str, Any], node_names: Sequence[str] | None = None) -> dict[str, dict[str, Scores]] | Status:
        """PreScore and RunScorePlugins over the nodes: node -> plugin -> Scores; an Error status on failure.

        Plugins that PreScore skipped are absent.
        """
        pi = self._pod_info(pod)
        state = CycleState(pi)
        names = list(node_names) if node_names is not None else list(self.node_names)
        rows = self._rows(names)
        status = self.framework.run_pre_score(state, pi, NodeInfoList(self.scheduler.table, rows))
        if status is not None and not status.is_success():
            return status
        out = self.framework.run_score(state, pi, rows)
        if isinstance(out, Status):
            return out
        result: dict[str, dict[str, Scores]] = {n: {} for n in names}
        for k, plugin in enumerate(out.plugins):
            for i, n in enumerate(names):
                result[n][plugin] = Scores(int(out.raw[k][i]), int(out.normalized[k][i]), int(out.final[k][i]))
        return result

    def schedule(self, pod: Mapping[str, Any]) -> str | None:
        """A whole scheduling cycle without binding: the node chosen, None when none fits."""
        attempt = self.scheduler.evaluate(pod)
        return attempt.node or None


def new_framework(
    registrations: Sequence[PluginRegistration],
    nodes: Iterable[Mapping[str, Any]] = (),
    pods: Iterable[Mapping[str, Any]] = (),
    *,
    profile_name: str = DEFAULT_SCHEDULER_NAME,
    feature_gates: Mapping[str, bool] | None = None,
    lister: Callable[[str, str | None], Iterable[Mapping[str, Any]]] | None = None,
    now: Callable[[], float] | None = None,
    update_object: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None,
) -> PluginTestFramework:
    """NewFramework: a framework with just `registrations`, over `nodes` and assigned `pods`.

    `lister(kind, namespace)` serves other API objects (claims, volumes, classes ...) and
    `update_object(obj)` receives the objects plugins write (VolumeBinding's PreBind).
    """
    return PluginTestFramework(
        registrations, nodes, pods, profile_name=profile_name, feature_gates=feature_gates, lister=lister, now=now,
        update_object=update_object,
    )
