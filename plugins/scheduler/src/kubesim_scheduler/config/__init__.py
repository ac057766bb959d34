"""KubeSchedulerConfiguration v1 for kubesim: load, default, validate, resolve profiles.

    config = load_config("scheduler.yaml")            # raises kubesim.errors.InvalidInput
    profiles = resolve(config, registry)              # registry: name -> extension points
    profiles[0].plugins["filter"], profiles[0].score_weights, profiles[0].args

Follows kube-scheduler v1.34 (pkg/scheduler/apis/config/v1, .../validation and
framework/runtime/framework.go).
"""

from kubesim_scheduler.config.default_plugins import (
    DEFAULT_MULTI_POINT,
    default_plugins,
    merge_plugin_set,
    merge_plugins,
)
from kubesim_scheduler.config.defaults import default_args, set_defaults
from kubesim_scheduler.config.in_tree import IN_TREE_PLUGINS
from kubesim_scheduler.config.loader import decode, load_config, loads_config, parse_yaml
from kubesim_scheduler.config.plugin_args import (
    ARGS_TYPES,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from kubesim_scheduler.config.resolve import ResolvedProfile, resolve
from kubesim_scheduler.config.to_dict import to_dict
from kubesim_scheduler.config.types import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    DEPLOYMENT_ONLY_FIELDS,
    EXTENSION_POINTS,
    KIND,
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
    ExtensionPoint,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
)
from kubesim_scheduler.config.validation import validate

__all__ = [
    "API_VERSION",
    "ARGS_TYPES",
    "DEFAULT_MULTI_POINT",
    "DEFAULT_SCHEDULER_NAME",
    "DEPLOYMENT_ONLY_FIELDS",
    "EXTENSION_POINTS",
    "IN_TREE_PLUGINS",
    "KIND",
    "DefaultPreemptionArgs",
    "DynamicResourcesArgs",
    "Extender",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "ExtensionPoint",
    "InterPodAffinityArgs",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "NodeAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "Plugin",
    "PluginArgs",
    "PluginConfig",
    "PluginSet",
    "Plugins",
    "PodTopologySpreadArgs",
    "RequestedToCapacityRatioParam",
    "ResolvedProfile",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "decode",
    "default_args",
    "default_plugins",
    "load_config",
    "loads_config",
    "merge_plugin_set",
    "merge_plugins",
    "parse_yaml",
    "resolve",
    "set_defaults",
    "to_dict",
    "validate",
]
