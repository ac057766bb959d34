"""Typed args of the in-tree plugins (kubescheduler.config.k8s.io/v1 *Args kinds).

Upstream: k8s.io/kube-scheduler/config/v1/types_pluginargs.go, defaults from
pkg/scheduler/apis/config/v1/defaults.go. A class built with no arguments equals
upstream's defaulted empty args; `defaults.default_args` applies the remaining rules
(weight 0 -> 1, empty resources -> cpu and memory, empty defaultingType -> System).
Core API objects inside args (topology spread constraints, node affinity) stay plain
dicts in their Kubernetes JSON form, as pods carry them.
"""

from __future__ import annotations

from typing import Any

import attrs

from kubesim_scheduler.config.field_kinds import duration, int32, int64

__all__ = [
    "ARGS_TYPES",
    "DEFAULT_RESOURCES",
    "DefaultPreemptionArgs",
    "DynamicResourcesArgs",
    "InterPodAffinityArgs",
    "NodeAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "PluginArgs",
    "PodTopologySpreadArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "args_kind",
]


@attrs.frozen
class ResourceSpec:
    """A resource and its weight in a scoring strategy."""

    name: str
    weight: int = int64(0)


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@attrs.frozen
class UtilizationShapePoint:
    """A point of a utilization -> score function (score 0..10)."""

    utilization: int = int32(0)
    score: int = int32(0)


@attrs.frozen
class RequestedToCapacityRatioParam:
    """The shape of the RequestedToCapacityRatio scoring function."""

    shape: tuple[UtilizationShapePoint, ...] = ()


@attrs.frozen
class ScoringStrategy:
    """NodeResourcesFit scoring: LeastAllocated, MostAllocated or RequestedToCapacityRatio."""

    type: str = ""
    resources: tuple[ResourceSpec, ...] = ()
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@attrs.frozen
class DefaultPreemptionArgs:
    """How many candidate nodes preemption tries: max(absolute, percentage of all nodes)."""

    min_candidate_nodes_percentage: int = int32(10)
    min_candidate_nodes_absolute: int = int32(100)


@attrs.frozen
class InterPodAffinityArgs:
    """hardPodAffinityWeight scores existing pods' required affinity terms (0..100)."""

    hard_pod_affinity_weight: int = int32(1)
    ignore_preferred_terms_of_existing_pods: bool = False


@attrs.frozen
class NodeResourcesFitArgs:
    """Resources to ignore when filtering, and the scoring strategy."""

    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy | None = ScoringStrategy("LeastAllocated", DEFAULT_RESOURCES)


@attrs.frozen
class PodTopologySpreadArgs:
    """Cluster-level default constraints (v1.TopologySpreadConstraint dicts, no selector)."""

    default_constraints: tuple[dict[str, Any], ...] = ()
    #: "System" (built-in defaults) or "List" (use default_constraints).
    defaulting_type: str = "System"


@attrs.frozen
class NodeResourcesBalancedAllocationArgs:
    """Resources whose allocation is balanced (every weight must be 1)."""

    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES


@attrs.frozen
class VolumeBindingArgs:
    """Volume binding timeout; shape needs the StorageCapacityScoring gate (off in v1.34)."""

    bind_timeout_seconds: int = int64(600)
    shape: tuple[UtilizationShapePoint, ...] | None = None


@attrs.frozen
class NodeAffinityArgs:
    """A v1.NodeAffinity dict that every pod of the profile must also satisfy."""

    added_affinity: dict[str, Any] | None = None


@attrs.frozen
class DynamicResourcesArgs:
    """Filter timeout in seconds (DRASchedulerFilterTimeout is on by default in v1.34)."""

    filter_timeout: float | None = duration(10.0)


PluginArgs = (
    DefaultPreemptionArgs
    | DynamicResourcesArgs
    | InterPodAffinityArgs
    | NodeAffinityArgs
    | NodeResourcesBalancedAllocationArgs
    | NodeResourcesFitArgs
    | PodTopologySpreadArgs
    | VolumeBindingArgs
)

#: Plugin name -> its args class (registered as "<name>Args" in the v1 scheme).
ARGS_TYPES: dict[str, type[PluginArgs]] = {
    "DefaultPreemption": DefaultPreemptionArgs,
    "DynamicResources": DynamicResourcesArgs,
    "InterPodAffinity": InterPodAffinityArgs,
    "NodeAffinity": NodeAffinityArgs,
    "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs,
    "NodeResourcesFit": NodeResourcesFitArgs,
    "PodTopologySpread": PodTopologySpreadArgs,
    "VolumeBinding": VolumeBindingArgs,
}


def args_kind(cls: type[PluginArgs]) -> str:
    """The kind of an args class ("DefaultPreemptionArgs")."""
    return cls.__name__
