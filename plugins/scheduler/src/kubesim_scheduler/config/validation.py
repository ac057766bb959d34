"""Validation of a (defaulted) configuration, with upstream messages and field paths.

Upstream: pkg/scheduler/apis/config/validation/validation.go
(ValidateKubeSchedulerConfiguration). Differences, all deliberate:
- leaderElection/clientConnection are ignored by kubesim, so not validated;
- NodeResourcesFit args are validated here (upstream's table keys them by the
  misspelt "NodeResourcesFitArgs" and only the plugin's constructor checks them);
- paths name real fields: `profiles[0].plugins.queueSort.enabled`, not `.Enabled`;
- a duplicate profile name is shown as the name, not as upstream's `{}`;
- an extender needs a urlPrefix that is an http or https URL with a host (upstream
  fails only when it calls the extender; kubesim says so before the run);
- an extender's httpTimeout is within [0, MAX_EXTENDER_TIMEOUT] (upstream waits forever
  on a negative one; kubesim bounds every wall-clock wait, see docs/extender-limits.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesim.errors import Problem

from kubesim_scheduler.config.converter import unstructure
from kubesim_scheduler.config.durations import format_duration
from kubesim_scheduler.config.field_errors import duplicate, index, invalid, join, required
from kubesim_scheduler.config.label_names import qualified_name_errors
from kubesim_scheduler.config.plugin_args import ARGS_TYPES
from kubesim_scheduler.config.types import (
    API_VERSION,
    EXTENSION_POINTS,
    Extender,
    KubeSchedulerConfiguration,
    KubeSchedulerProfile,
    Plugin,
    PluginSet,
)
from kubesim_scheduler.config.validation_args import validate_plugin_args
from kubesim_scheduler.extender_limits import MAX_EXTENDER_TIMEOUT, url_prefix_problem
from kubesim_scheduler.resources import is_extended_resource_name

__all__ = ["REMOVED_PLUGINS", "validate"]

#: Plugins removed before v1 (invalidPluginsByVersion).
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")


def validate(config: KubeSchedulerConfiguration) -> list[Problem]:
    """Every problem of a configuration, in upstream order; empty when it is valid."""
    out: list[Problem] = []
    if config.parallelism <= 0:
        out.append(invalid("parallelism", config.parallelism, "should be an integer value greater than zero"))
    if not config.profiles:
        out.append(required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, profile in enumerate(config.profiles):
            path = index("profiles", i)
            out.extend(_profile_problems(path, profile))
            name = profile.scheduler_name or ""
            if name in seen:
                out.append(duplicate(join(path, "schedulerName"), name))
            seen[name] = i
        out.extend(_common_queue_sort_problems(config.profiles))
    out.extend(_percentage_problems("percentageOfNodesToScore", config.percentage_of_nodes_to_score))
    if config.pod_initial_backoff_seconds <= 0:
        out.append(
            invalid("podInitialBackoffSeconds", config.pod_initial_backoff_seconds, "must be greater than 0")
        )
    if config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds:
        detail = "must be greater than or equal to PodInitialBackoffSeconds"
        out.append(invalid("podMaxBackoffSeconds", config.pod_max_backoff_seconds, detail))
    out.extend(_extender_problems("extenders", config.extenders))
    return out


def _percentage_problems(path: str, value: int | None) -> list[Problem]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _profile_problems(path: str, profile: KubeSchedulerProfile) -> list[Problem]:
    """validateKubeSchedulerProfile and validatePluginConfig."""
    out = []
    if not profile.scheduler_name:
        out.append(required(join(path, "schedulerName")))
    out.extend(
        _percentage_problems(join(path, "percentageOfNodesToScore"), profile.percentage_of_nodes_to_score)
    )
    if profile.plugins is not None:
        for point in EXTENSION_POINTS:
            point_path = join(path, f"plugins.{point}")
            out.extend(_removed_plugin_problems(point_path, profile.plugins.point(point)))
    seen: set[str] = set()
    for i, pc in enumerate(profile.plugin_config):
        pc_path = index(join(path, "pluginConfig"), i)
        if pc.name in seen:
            out.append(duplicate(pc_path, pc.name))
        seen.add(pc.name)
        if pc.name in REMOVED_PLUGINS:
            out.append(invalid(pc_path, pc.name, _removed_detail()))
        elif pc.name in ARGS_TYPES:
            if not isinstance(pc.args, ARGS_TYPES[pc.name]):
                out.append(invalid(join(pc_path, "args"), unstructure(pc.args), "has to match plugin args"))
            else:
                out.extend(validate_plugin_args(join(pc_path, "args"), pc.args))
    return out


def _removed_detail() -> str:
    return f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")'


def _removed_plugin_problems(path: str, plugin_set: PluginSet) -> list[Problem]:
    return [
        invalid(p.source or index(join(path, "enabled"), i), p.name, _removed_detail())
        for i, p in enumerate(plugin_set.enabled)
        if p.name in REMOVED_PLUGINS
    ]


def _comparable(plugin_set: PluginSet) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """A PluginSet as upstream's Semantic.DeepEqual sees it (nil weight == 0)."""

    def key(plugins: Sequence[Plugin]) -> tuple[tuple[str, int], ...]:
        return tuple((p.name, p.weight or 0) for p in plugins)

    return key(plugin_set.enabled), key(plugin_set.disabled)


def _common_queue_sort_problems(profiles: Sequence[KubeSchedulerProfile]) -> list[Problem]:
    """validateCommonQueueSort: every profile must have the same queueSort plugins and args."""
    out = []
    first = profiles[0]
    canon = first.plugins.queue_sort if first.plugins is not None else PluginSet()
    queue_sort_name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        detail = "only one queue sort plugin can be enabled"
        out.append(invalid("profiles[0].plugins.queueSort.enabled", len(canon.enabled), detail))
    canon_args = None
    for pc in first.plugin_config:
        if queue_sort_name and pc.name == queue_sort_name:
            canon_args = pc.args
    for i in range(1, len(profiles)):
        profile = profiles[i]
        current = profile.plugins.queue_sort if profile.plugins is not None else PluginSet()
        if _comparable(current) != _comparable(canon):
            path = index("profiles", i) + ".plugins.queueSort"
            out.append(invalid(path, unstructure(current), "must be the same for all profiles"))
        for pc in profile.plugin_config:
            if pc.name == queue_sort_name and pc.args != canon_args:
                path = index("profiles", i) + ".pluginConfig.args"
                out.append(invalid(path, unstructure(pc.args), "queueSort must be the same for all profiles"))
    return out


def _extender_problems(path: str, extenders: Sequence[Extender]) -> list[Problem]:
    """validateExtenders, plus kubesim's urlPrefix and httpTimeout checks."""
    out = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        p = index(path, i)
        if not ext.url_prefix:
            out.append(required(join(p, "urlPrefix"), "kubesim sends the extender's requests there"))
        else:
            problem = url_prefix_problem(ext.url_prefix)
            if problem:
                out.append(invalid(join(p, "urlPrefix"), ext.url_prefix, problem))
        out.extend(_http_timeout_problems(join(p, "httpTimeout"), ext.http_timeout))
        if ext.prioritize_verb and ext.weight <= 0:
            out.append(invalid(join(p, "weight"), ext.weight, "must have a positive weight applied to it"))
        if ext.bind_verb:
            binders += 1
        for j, resource in enumerate(ext.managed_resources):
            name_path = join(index(join(p, "managedResources"), j), "name")
            out.extend(_extended_resource_name_problems(name_path, resource.name))
            if resource.name in managed:
                out.append(invalid(name_path, resource.name, "duplicate extender managed resource name"))
            managed.add(resource.name)
    if binders > 1:
        out.append(
            invalid(
                path, f"found {binders} extenders implementing bind", "only one extender can implement bind"
            )
        )
    return out


def _http_timeout_problems(path: str, seconds: float) -> list[Problem]:
    """kubesim's bounds on one extender call: not negative, at most MAX_EXTENDER_TIMEOUT."""
    if seconds < 0:
        return [invalid(path, format_duration(seconds),
                        "must be zero (the default, 5s) or positive (kubesim check: kube-scheduler would never time out)")]
    if seconds > MAX_EXTENDER_TIMEOUT:
        return [invalid(path, format_duration(seconds),
                        f"must be at most {format_duration(MAX_EXTENDER_TIMEOUT)} (kubesim's bound on one extender call)")]
    return []


def _extended_resource_name_problems(path: str, name: str) -> list[Problem]:
    errs = qualified_name_errors(name)
    if errs:
        return [invalid(path, name, msg) for msg in errs]
    if not is_extended_resource_name(name):
        return [invalid(path, name, "is an invalid extended resource name")]
    return []
