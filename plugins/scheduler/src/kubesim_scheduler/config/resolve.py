"""Turn each profile of a loaded configuration into the plan the framework runs.

Upstream: pkg/scheduler/framework/runtime/framework.go (NewFramework, updatePluginList,
expandMultiPointPlugins, getScoreWeights). Per extension point:
1. the plugins listed at that point, in order (each must be registered, implement the
   point, and appear once);
2. if multiPoint lists plugins and the point does not disable "*": plugins listed both
   at the point and in multiPoint come first, in the point's order; then multiPoint
   plugins that implement the point and are not disabled there, in multiPoint order;
   then the point's other plugins, in its order;
3. score weights: the first of score.enabled + multiPoint.enabled naming the plugin
   gives its weight; 0 or unset means 1.
Exactly one queueSort plugin and at least one bind plugin are required.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import attrs
from kubesim.errors import InvalidInput, Problem

from kubesim_scheduler.config.default_plugins import DEFAULT_MULTI_POINT
from kubesim_scheduler.config.field_errors import index, join
from kubesim_scheduler.config.types import (
    EXTENSION_POINTS,
    ExtensionPoint,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    Plugins,
)

__all__ = ["ResolvedProfile", "resolve"]

_DEFAULT_NAMES = frozenset(p.name for p in DEFAULT_MULTI_POINT)
_MAX_NODE_SCORE = 100
_MAX_TOTAL_SCORE = 2**63 - 1

#: getExtensionPoints order: problems are found (and reported) in this order.
_FRAMEWORK_ORDER: tuple[ExtensionPoint, ...] = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
)

_GO_TYPE = {
    "preEnqueue": "PreEnqueuePlugin",
    "queueSort": "QueueSortPlugin",
    "preFilter": "PreFilterPlugin",
    "filter": "FilterPlugin",
    "postFilter": "PostFilterPlugin",
    "preScore": "PreScorePlugin",
    "score": "ScorePlugin",
    "reserve": "ReservePlugin",
    "permit": "PermitPlugin",
    "preBind": "PreBindPlugin",
    "bind": "BindPlugin",
    "postBind": "PostBindPlugin",
}


@attrs.frozen
class ResolvedProfile:
    """What the framework needs to run one profile.

    - `plugins`: every extension point (preEnqueue ... postBind) -> plugin names in run order;
    - `score_weights`: weight of each plugin in `plugins["score"]`;
    - `args`: for every plugin to instantiate (enabled anywhere, multiPoint included), its
      final args: a typed args object for in-tree plugins, the raw JSON value (usually a
      dict) for others, or None when no pluginConfig names it;
    - `percentage_of_nodes_to_score`: the profile's value, else the global one (0 = adaptive).
    """

    scheduler_name: str
    percentage_of_nodes_to_score: int
    plugins: Mapping[ExtensionPoint, tuple[str, ...]]
    score_weights: Mapping[str, int]
    args: Mapping[str, Any]

    def weighted_score_plugins(self) -> tuple[tuple[str, int], ...]:
        """(name, weight) of the score plugins, in run order."""
        return tuple((name, self.score_weights[name]) for name in self.plugins["score"])


def resolve(
    config: KubeSchedulerConfiguration,
    registry: Mapping[str, Collection[str]],
    *,
    file: str | None = None,
) -> list[ResolvedProfile]:
    """Resolve every profile of a defaulted, validated config against the registered plugins.

    `registry` maps each registered plugin name to the extension points it implements
    (JSON names: "preFilter", "filter", "score", ...). Raises InvalidInput listing every
    problem (unknown plugins, duplicates, missing queueSort/bind, weight overflow).
    """
    for name, points in registry.items():
        unknown = set(points) - set(EXTENSION_POINTS)
        if unknown:
            raise ValueError(f"plugin {name!r} registers unknown extension points {sorted(unknown)}")
    problems: list[Problem] = []
    resolved = []
    for i, profile in enumerate(config.profiles):
        found = _Resolver(index("profiles", i), profile, registry, config.percentage_of_nodes_to_score).run()
        if isinstance(found, ResolvedProfile):
            resolved.append(found)
        else:
            problems.extend(found)
    if problems:
        raise InvalidInput([attrs.evolve(p, file=file) for p in problems])
    return resolved


class _Resolver:
    """NewFramework for one profile, collecting every problem instead of stopping at the first."""

    def __init__(
        self,
        path: str,
        profile: KubeSchedulerProfile,
        registry: Mapping[str, Collection[str]],
        global_percentage: int,
    ) -> None:
        self.path = path
        self.profile = profile
        self.plugins = profile.plugins or Plugins()
        self.registry = registry
        self.global_percentage = global_percentage
        self.problems: list[Problem] = []
        self.reported: set[tuple[str, str]] = set()
        self.repeated: set[str] = set()

    def run(self) -> ResolvedProfile | list[Problem]:
        lists = {point: self._point_list(point) for point in _FRAMEWORK_ORDER}
        multi = self._multi_point()
        if multi:
            for point in _FRAMEWORK_ORDER:
                lists[point] = self._expand(point, lists[point], multi)
        weights = self._score_weights()
        if self.problems:
            return self.problems
        name = self.profile.scheduler_name or ""
        if len(lists["queueSort"]) != 1:
            count = len(lists["queueSort"])
            msg = (
                f'only one queue sort plugin required for profile with scheduler name "{name}", '
                f"but got {count}"
            )
            self.problems.append(Problem(join(self.path, "plugins.queueSort"), msg))
        if not lists["bind"]:
            msg = f'at least one bind plugin is needed for profile with scheduler name "{name}"'
            self.problems.append(Problem(join(self.path, "plugins.bind"), msg))
        if self.problems:
            return self.problems
        percentage = self.profile.percentage_of_nodes_to_score
        return ResolvedProfile(
            scheduler_name=name,
            percentage_of_nodes_to_score=self.global_percentage if percentage is None else percentage,
            plugins={point: tuple(lists[point]) for point in EXTENSION_POINTS},
            score_weights={n: weights[n] for n in lists["score"]},
            args=self._args(),
        )

    def _where(self, plugin: Plugin, point: str, i: int) -> str:
        return plugin.source or index(join(self.path, f"plugins.{point}.enabled"), i)

    def _report(self, path: str, message: str) -> None:
        if (path, message) not in self.reported:
            self.reported.add((path, message))
            self.problems.append(Problem(path, message))

    def _unknown(self, plugin: Plugin, where: str) -> bool:
        if plugin.name in self.registry:
            return False
        known = ", ".join(sorted(self.registry)) or "none"
        what = "default plugin" if plugin.source is None and plugin.name in _DEFAULT_NAMES else "plugin"
        self._report(join(where, "name"), f'{what} "{plugin.name}" is not registered (known: {known})')
        return True

    def _point_list(self, point: ExtensionPoint) -> list[str]:
        """updatePluginList: the plugins named at the point itself."""
        names: list[str] = []
        for i, plugin in enumerate(self.plugins.point(point).enabled):
            where = self._where(plugin, point, i)
            if self._unknown(plugin, where):
                continue
            if point not in self.registry[plugin.name]:
                self._report(
                    join(where, "name"), f'plugin "{plugin.name}" does not extend {_GO_TYPE[point]} plugin'
                )
            elif plugin.name in names:
                self._report(
                    join(where, "name"), f'plugin "{plugin.name}" already registered as "{_GO_TYPE[point]}"'
                )
            else:
                names.append(plugin.name)
        return names

    def _multi_point(self) -> list[tuple[Plugin, str]]:
        """multiPoint entries that name registered plugins, with where they were written."""
        out = []
        for i, plugin in enumerate(self.plugins.multi_point.enabled):
            where = self._where(plugin, "multiPoint", i)
            if not self._unknown(plugin, where):
                out.append((plugin, where))
        return out

    def _expand(
        self, point: ExtensionPoint, explicit: list[str], multi: list[tuple[Plugin, str]]
    ) -> list[str]:
        """expandMultiPointPlugins for one extension point."""
        disabled = {p.name for p in self.plugins.point(point).disabled}
        if "*" in disabled:
            return explicit
        overrides: set[str] = set()
        from_multi: list[str] = []
        for plugin, where in multi:
            if point not in self.registry[plugin.name] or plugin.name in disabled:
                continue
            if plugin.name in explicit:
                overrides.add(plugin.name)
            elif plugin.name in from_multi:
                if where not in self.repeated:  # upstream stops at the first point; report it once
                    self.repeated.add(where)
                    msg = f'plugin "{plugin.name}" already registered as "{_GO_TYPE[point]}"'
                    self._report(join(where, "name"), msg)
            else:
                from_multi.append(plugin.name)
        first = [n for n in explicit if n in overrides]
        rest = [n for n in explicit if n not in overrides]
        return first + from_multi + rest

    def _score_weights(self) -> dict[str, int]:
        """getScoreWeights: first mention wins, 0 means 1, and the total must not overflow."""
        weights: dict[str, int] = {}
        total = 0
        for plugin in self.plugins.score.enabled + self.plugins.multi_point.enabled:
            points = self.registry.get(plugin.name, ())
            if "score" not in points or plugin.name in weights:
                continue
            weight = plugin.weight or 1
            weights[plugin.name] = weight
            if weight * _MAX_NODE_SCORE > _MAX_TOTAL_SCORE - total:
                self._report(join(self.path, "plugins.score"), "total score of Score plugins could overflow")
                break
            total += weight * _MAX_NODE_SCORE
        return weights

    def _args(self) -> dict[str, Any]:
        """Args of every plugin to instantiate (pluginsNeeded), by name."""
        given = {pc.name: pc.args for pc in self.profile.plugin_config}
        needed = {
            p.name
            for s in (self.plugins.point(point) for point in (*EXTENSION_POINTS, "multiPoint"))  # type: ignore[arg-type]
            for p in s.enabled
        }
        return {name: given.get(name) for name in sorted(needed)}
