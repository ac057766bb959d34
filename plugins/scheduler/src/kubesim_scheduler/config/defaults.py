"""Defaulting of a decoded configuration, as kube-scheduler does before validating it.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_KubeSchedulerConfiguration,
setDefaults_KubeSchedulerProfile, SetDefaults_*Args). Scalar defaults (parallelism 16,
backoffs 1s/10s, global percentageOfNodesToScore 0, args fields) are the attrs defaults
of the classes; this module adds the profile, the plugins and the plugin args.
"""

from __future__ import annotations

from typing import TypeVar

import attrs

from kubesim_scheduler.config.default_plugins import default_plugins, merge_plugins
from kubesim_scheduler.config.plugin_args import (
    ARGS_TYPES,
    DEFAULT_RESOURCES,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
)
from kubesim_scheduler.config.types import (
    DEFAULT_SCHEDULER_NAME,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    PluginConfig,
    Plugins,
)

__all__ = ["default_args", "enabled_plugin_names", "set_defaults"]

A = TypeVar("A")


def set_defaults(config: KubeSchedulerConfiguration, *, dynamic_resource_allocation: bool = True) -> KubeSchedulerConfiguration:
    """A copy with upstream defaults applied (idempotent); DynamicResources joins the default
    plugins while the DynamicResourceAllocation gate is on (applyFeatureGates)."""
    profiles = config.profiles or (KubeSchedulerProfile(),)
    if len(profiles) == 1 and profiles[0].scheduler_name is None:
        # Only a lone profile gets a default name; validation requires names otherwise.
        profiles = (attrs.evolve(profiles[0], scheduler_name=DEFAULT_SCHEDULER_NAME),)
    return attrs.evolve(config, profiles=tuple(_default_profile(p, dynamic_resource_allocation) for p in profiles))


def _default_profile(profile: KubeSchedulerProfile, dynamic_resource_allocation: bool = True) -> KubeSchedulerProfile:
    plugins = merge_plugins(default_plugins(dynamic_resource_allocation), profile.plugins)
    configs = [PluginConfig(pc.name, default_args(pc.args)) for pc in profile.plugin_config]
    existing = {pc.name for pc in profile.plugin_config}
    for name in enabled_plugin_names(plugins):
        if name not in existing and name in ARGS_TYPES:
            configs.append(PluginConfig(name, ARGS_TYPES[name]()))
    return attrs.evolve(profile, plugins=plugins, plugin_config=tuple(configs))


def enabled_plugin_names(plugins: Plugins) -> list[str]:
    """Sorted names enabled at any point, multiPoint included (pluginsNames)."""
    sets = [getattr(plugins, a.name) for a in attrs.fields(Plugins)]
    return sorted({p.name for s in sets for p in s.enabled})


def default_args(args: A) -> A:
    """Apply the SetDefaults_*Args rules that attrs defaults cannot express; other values pass through."""
    if isinstance(args, NodeResourcesFitArgs) and args.scoring_strategy is not None:
        strategy = args.scoring_strategy
        resources = strategy.resources or DEFAULT_RESOURCES
        strategy = attrs.evolve(strategy, resources=_weight_one_if_zero(resources))
        return attrs.evolve(args, scoring_strategy=strategy)
    if isinstance(args, NodeResourcesFitArgs):
        return attrs.evolve(args, scoring_strategy=NodeResourcesFitArgs().scoring_strategy)
    if isinstance(args, NodeResourcesBalancedAllocationArgs):
        return attrs.evolve(args, resources=_weight_one_if_zero(args.resources or DEFAULT_RESOURCES))
    if isinstance(args, PodTopologySpreadArgs) and not args.defaulting_type:
        return attrs.evolve(args, defaulting_type="System")
    return args


def _weight_one_if_zero(resources: tuple[ResourceSpec, ...]) -> tuple[ResourceSpec, ...]:
    return tuple(r if r.weight else attrs.evolve(r, weight=1) for r in resources)
