"""ProfileConfig: one resolved scheduling profile (plugins per extension point, weights, args)."""

# upstream: pkg/scheduler/framework/runtime/framework.go (expandMultiPointPlugins),
# pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins)

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from . import interface as itf

__all__ = [
    "ProfileConfig",
    "EXTENSION_POINTS",
    "POINT_INTERFACES",
    "DEFAULT_MULTI_POINT",
    "DEFAULT_SCHEDULER_NAME",
    "args_to_dict",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"

EXTENSION_POINTS = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
    "score", "reserve", "permit", "preBind", "bind", "postBind",
)

POINT_INTERFACES: dict[str, type] = {
    "preEnqueue": itf.PreEnqueuePlugin,
    "queueSort": itf.QueueSortPlugin,
    "preFilter": itf.PreFilterPlugin,
    "filter": itf.FilterPlugin,
    "postFilter": itf.PostFilterPlugin,
    "preScore": itf.PreScorePlugin,
    "score": itf.ScorePlugin,
    "reserve": itf.ReservePlugin,
    "permit": itf.PermitPlugin,
    "preBind": itf.PreBindPlugin,
    "bind": itf.BindPlugin,
    "postBind": itf.PostBindPlugin,
}

#: The v1.34 default profile's multiPoint plugins and weights (DynamicResourceAllocation on:
#: DynamicResources comes right before DefaultPreemption, as applyDynamicResources puts it).
DEFAULT_MULTI_POINT: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", None),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
)


@attrs.frozen
class ProfileConfig:
    """A profile as the framework runs it.

    `plugins` maps an extension point's JSON name ("filter", "score", ...) to the ordered
    names enabled there; `weights` holds score weights (missing -> 1); `plugin_args` maps a
    plugin name to its args (a JSON-shaped dict, or a typed attrs args object).
    """

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    weights: Mapping[str, int] = attrs.field(factory=dict)
    plugin_args: Mapping[str, Any] = attrs.field(factory=dict)
    percentage_of_nodes_to_score: int | None = None

    @classmethod
    def from_multi_point(
        cls,
        multi_point: Sequence[tuple[str, int | None]],
        registry: Mapping[str, type],
        *,
        scheduler_name: str = DEFAULT_SCHEDULER_NAME,
        plugin_args: Mapping[str, Any] | None = None,
        percentage_of_nodes_to_score: int | None = None,
        skip_unknown: bool = False,
    ) -> ProfileConfig:
        """Expand multiPoint: each plugin joins every extension point its class implements."""
        points: dict[str, list[str]] = {p: [] for p in EXTENSION_POINTS}
        weights: dict[str, int] = {}
        for name, weight in multi_point:
            cls_ = registry.get(name)
            if cls_ is None:
                if skip_unknown:
                    continue
                raise KeyError(f"plugin {name!r} is not registered")
            for point, iface in POINT_INTERFACES.items():
                if issubclass(cls_, iface):
                    points[point].append(name)
            if issubclass(cls_, itf.ScorePlugin):
                weights[name] = weight if weight else 1
        return cls(
            scheduler_name=scheduler_name,
            plugins={p: tuple(v) for p, v in points.items() if v},
            weights=weights,
            plugin_args=dict(plugin_args or {}),
            percentage_of_nodes_to_score=percentage_of_nodes_to_score,
        )

    def enabled(self, point: str) -> tuple[str, ...]:
        return tuple(self.plugins.get(point, ()))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def args_to_dict(args: Any) -> dict[str, Any] | None:
    """Typed args (attrs) -> the JSON-shaped dict plugins read; dicts pass through."""
    if args is None:
        return None
    if isinstance(args, Mapping):
        return dict(args)
    if attrs.has(type(args)):
        return _plain(args)  # type: ignore[no-any-return]
    raise TypeError(f"unsupported plugin args type {type(args).__name__}")


def _plain(v: Any) -> Any:
    if attrs.has(type(v)):
        out = {}
        for f in attrs.fields(type(v)):
            if f.metadata.get("kubesim.internal"):
                continue
            key = f.metadata.get("kubesim.json_name") or _camel(f.name)
            out[key] = _plain(getattr(v, f.name))
        return out
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v
