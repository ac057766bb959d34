"""From a KubeSchedulerConfiguration to the profiles and settings the Scheduler runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .config import KubeSchedulerConfiguration, load_config, resolve
from .framework.interface import Plugin
from .framework.profile_config import POINT_INTERFACES, ProfileConfig

__all__ = ["SchedulerSettings", "load_settings"]


@attrs.frozen
class SchedulerSettings:
    """Profiles plus the global knobs of one configuration."""

    config: KubeSchedulerConfiguration
    profiles: tuple[ProfileConfig, ...]
    percentage_of_nodes_to_score: int
    pod_initial_backoff: float
    pod_max_backoff: float


def _points(registry: Mapping[str, type[Plugin]]) -> dict[str, set[str]]:
    """Plugin name -> the extension points its class implements (what resolve() checks)."""
    return {
        name: {point for point, iface in POINT_INTERFACES.items() if issubclass(cls, iface)}
        for name, cls in registry.items()
    }


def load_settings(source: str | Path | Mapping[str, Any] | None, registry: Mapping[str, type[Plugin]],
                  feature_gates: Mapping[str, bool] | None = None) -> SchedulerSettings:
    """Load, default, validate and resolve a configuration file, or an already parsed one
    (a mapping: what `kubesim sweep` hands each cell), None: the defaults.

    `feature_gates` (name -> on) are the gates in force; the default plugins depend on
    DynamicResourceAllocation. Raises kubesim.errors.InvalidInput with every problem (file
    and field path).
    """
    dra = bool((feature_gates or {}).get("DynamicResourceAllocation", True))
    if source is None:
        config = load_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"},
                             dynamic_resource_allocation=dra)
        file = None
    else:
        config = load_config(source, dynamic_resource_allocation=dra)
        file = None if isinstance(source, Mapping) else str(source)
    resolved = resolve(config, _points(registry), file=file)
    profiles = tuple(
        ProfileConfig(
            scheduler_name=r.scheduler_name,
            plugins={p: tuple(names) for p, names in r.plugins.items() if names},
            weights=dict(r.score_weights),
            plugin_args=_args(r.args),
            percentage_of_nodes_to_score=r.percentage_of_nodes_to_score,
        )
        for r in resolved
    )
    pct = config.percentage_of_nodes_to_score
    return SchedulerSettings(
        config=config,
        profiles=profiles,
        percentage_of_nodes_to_score=int(pct or 0),
        pod_initial_backoff=float(config.pod_initial_backoff_seconds),
        pod_max_backoff=float(config.pod_max_backoff_seconds),
    )


def _args(args: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in args.items() if value is not None}
