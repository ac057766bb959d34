"""KubeSchedulerConfiguration v1 (kubescheduler.config.k8s.io/v1) as frozen attrs classes.

Upstream: k8s.io/kube-scheduler/config/v1/types.go. Attribute names are snake_case;
the JSON names are their camelCase forms. A Go pointer field with an upstream default
(parallelism, podInitialBackoffSeconds, ...) carries that default here, since an absent
and a null value both mean "unset" to the Go decoder.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from kubesim_scheduler.config.field_kinds import JSON_NAME, duration, int32, int64, internal
from kubesim_scheduler.config.plugin_args import PluginArgs

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "DEPLOYMENT_ONLY_FIELDS",
    "EXTENSION_POINTS",
    "KIND",
    "Extender",
    "ExtenderManagedResource",
    "ExtenderTLSConfig",
    "ExtensionPoint",
    "KubeSchedulerConfiguration",
    "KubeSchedulerProfile",
    "Plugin",
    "PluginConfig",
    "PluginSet",
    "Plugins",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"

#: Top-level fields that only matter to a real kube-scheduler process (leader election,
#: the API client, profiling, caching, serving): accepted and ignored by kubesim.
DEPLOYMENT_ONLY_FIELDS = (
    "leaderElection",
    "clientConnection",
    "enableProfiling",
    "enableContentionProfiling",
    "delayCacheUntilActive",
    "healthzBindAddress",
    "metricsBindAddress",
    "featureGates",
)

ExtensionPoint = Literal[
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
]

#: The extension points in the order of the v1 Plugins type (multiPoint excluded).
EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
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


@attrs.frozen
class Plugin:
    """A plugin named at an extension point; weight only matters at score (and multiPoint)."""

    name: str
    weight: int | None = int32(None)
    #: Where the user wrote it (`profiles[0].plugins.filter.enabled[2]`); None for defaults.
    source: str | None = internal()


@attrs.frozen
class PluginSet:
    """Plugins enabled (in order) and disabled ("*" disables every default) at one point."""

    enabled: tuple[Plugin, ...] = ()
    disabled: tuple[Plugin, ...] = ()


@attrs.frozen
class Plugins:
    """A PluginSet per extension point, plus multiPoint (expanded by the framework)."""

    pre_enqueue: PluginSet = PluginSet()
    queue_sort: PluginSet = PluginSet()
    pre_filter: PluginSet = PluginSet()
    filter: PluginSet = PluginSet()
    post_filter: PluginSet = PluginSet()
    pre_score: PluginSet = PluginSet()
    score: PluginSet = PluginSet()
    reserve: PluginSet = PluginSet()
    permit: PluginSet = PluginSet()
    pre_bind: PluginSet = PluginSet()
    bind: PluginSet = PluginSet()
    post_bind: PluginSet = PluginSet()
    multi_point: PluginSet = PluginSet()

    def point(self, name: ExtensionPoint | Literal["multiPoint"]) -> PluginSet:
        """The PluginSet of an extension point given by its JSON name."""
        value: PluginSet = getattr(self, _ATTR[name])
        return value

    def with_point(self, name: ExtensionPoint | Literal["multiPoint"], value: PluginSet) -> Plugins:
        """A copy with one extension point's PluginSet replaced."""
        return attrs.evolve(self, **{_ATTR[name]: value})


_ATTR = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "queue_sort",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
    "multiPoint": "multi_point",
}


@attrs.frozen
class PluginConfig:
    """Args for one plugin: a typed args object for in-tree plugins, raw JSON otherwise."""

    name: str
    args: PluginArgs | dict[str, Any] | list[Any] | str | int | float | bool | None = None


@attrs.frozen
class KubeSchedulerProfile:
    """One scheduling profile; pods choose it with spec.schedulerName."""

    scheduler_name: str | None = None
    #: None means "use the global percentageOfNodesToScore".
    percentage_of_nodes_to_score: int | None = int32(None)
    plugins: Plugins | None = None
    plugin_config: tuple[PluginConfig, ...] = ()


@attrs.frozen
class ExtenderManagedResource:
    """An extended resource the extender manages."""

    name: str
    ignored_by_scheduler: bool = False


@attrs.frozen
class ExtenderTLSConfig:
    """TLS settings for an HTTPS extender (the *Data fields are base64 in JSON)."""

    insecure: bool = False
    server_name: str = ""
    cert_file: str = ""
    key_file: str = ""
    ca_file: str = ""
    cert_data: str = ""
    key_data: str = ""
    ca_data: str = ""


@attrs.frozen
class Extender:
    """An HTTP scheduler extender; an empty verb means the extender does not do that step."""

    url_prefix: str = ""
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = int64(0)
    bind_verb: str = ""
    enable_https: bool = attrs.field(default=False, metadata={JSON_NAME: "enableHTTPS"})
    tls_config: ExtenderTLSConfig | None = None
    #: Seconds; 0 means the upstream default of 5 seconds (extender.go DefaultExtenderTimeout).
    http_timeout: float = duration(0.0)
    node_cache_capable: bool = False
    managed_resources: tuple[ExtenderManagedResource, ...] = ()
    ignorable: bool = False


@attrs.frozen
class KubeSchedulerConfiguration:
    """The whole scheduler configuration.

    The fields listed in DEPLOYMENT_ONLY_FIELDS (leaderElection, clientConnection,
    profiling, healthz/metrics addresses, featureGates, ...) are accepted and ignored: a
    simulation has no leader election, API client or HTTP server. Their names are kept in
    `ignored_fields`. Any other unknown key is an error.
    """

    parallelism: int = int32(16)
    #: 0 means adaptive (schedule_one.go numFeasibleNodesToFind).
    percentage_of_nodes_to_score: int = int32(0)
    pod_initial_backoff_seconds: int = int64(1)
    pod_max_backoff_seconds: int = int64(10)
    profiles: tuple[KubeSchedulerProfile, ...] = ()
    extenders: tuple[Extender, ...] = ()
    ignored_fields: tuple[str, ...] = internal(())
