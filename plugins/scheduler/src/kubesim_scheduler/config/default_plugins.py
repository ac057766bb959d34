"""The v1.34 default plugin set and how a profile's plugins are merged into it.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins,
mergePlugins, mergePluginSet, applyDynamicResources). DynamicResourceAllocation is GA and on
in v1.34, so DynamicResources is in the default set, right before DefaultPreemption.
"""

from __future__ import annotations

from kubesim_scheduler.config.types import Plugin, Plugins, PluginSet

__all__ = ["DEFAULT_MULTI_POINT", "default_plugins", "merge_plugin_set", "merge_plugins"]

#: getDefaultPlugins().MultiPoint.Enabled, in upstream order, with upstream weights.
DEFAULT_MULTI_POINT: tuple[Plugin, ...] = (
    Plugin("SchedulingGates"),
    Plugin("PrioritySort"),
    Plugin("NodeUnschedulable"),
    Plugin("NodeName"),
    Plugin("TaintToleration", 3),
    Plugin("NodeAffinity", 2),
    Plugin("NodePorts"),
    Plugin("NodeResourcesFit", 1),
    Plugin("VolumeRestrictions"),
    Plugin("NodeVolumeLimits"),
    Plugin("VolumeBinding"),
    Plugin("VolumeZone"),
    Plugin("PodTopologySpread", 2),
    Plugin("InterPodAffinity", 2),
    Plugin("DynamicResources"),
    Plugin("DefaultPreemption"),
    Plugin("NodeResourcesBalancedAllocation", 1),
    Plugin("ImageLocality", 1),
    Plugin("DefaultBinder"),
)

_POINTS = (
    "multiPoint",
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)


def default_plugins(dynamic_resource_allocation: bool = True) -> Plugins:
    """The default plugins of a v1 profile: everything through multiPoint (applyFeatureGates:
    DynamicResources only while the DynamicResourceAllocation gate is on)."""
    enabled = DEFAULT_MULTI_POINT
    if not dynamic_resource_allocation:
        enabled = tuple(p for p in enabled if p.name != "DynamicResources")
    return Plugins(multi_point=PluginSet(enabled=enabled))


def merge_plugins(defaults: Plugins, custom: Plugins | None) -> Plugins:
    """Merge a profile's plugins into the defaults, point by point (mergePlugins)."""
    if custom is None:
        return defaults
    merged = defaults
    for point in _POINTS:
        merged = merged.with_point(point, merge_plugin_set(defaults.point(point), custom.point(point)))  # type: ignore[arg-type]
    return merged


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """mergePluginSet: drop disabled defaults ("*": all), replace re-enabled ones in place, append the rest.

    A custom plugin that names a default one takes its place (and its weight); the last
    custom entry of a name wins that place, earlier duplicates are appended and left for
    the framework to reject. Disabled entries are kept (custom first, then the
    default set's), since multiPoint expansion needs them.
    """
    disabled = tuple(Plugin(p.name, source=p.source) for p in custom.disabled) + tuple(
        Plugin(p.name) for p in default.disabled
    )
    disabled_names = {p.name for p in disabled}
    last_index = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[Plugin] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            if plugin.name in last_index:
                i = last_index[plugin.name]
                plugin = custom.enabled[i]
                replaced.add(i)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled=tuple(enabled), disabled=disabled)
