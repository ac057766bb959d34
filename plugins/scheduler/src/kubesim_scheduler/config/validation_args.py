"""Validation of the in-tree plugin args, with upstream messages and field paths.

Upstream: pkg/scheduler/apis/config/validation/validation_pluginargs.go and, for
NodeAffinityArgs, k8s.io/component-helpers/scheduling/corev1/nodeaffinity plus
k8s.io/apimachinery/pkg/labels (NewRequirement). One deliberate difference: a
RequestedToCapacityRatio shape is reported at
`scoringStrategy.requestedToCapacityRatio.shape`, where it is written, not at
upstream's `scoringStrategy.shape`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kubesim.errors import Problem
from kubesim.k8s.duration import format_duration

from kubesim_scheduler.config import core_shapes
from kubesim_scheduler.config.converter import FieldErrors, structure, unstructure
from kubesim_scheduler.config.field_errors import (
    duplicate,
    forbidden,
    index,
    invalid,
    join,
    not_supported,
    required,
)
from kubesim_scheduler.config.label_names import label_value_errors, qualified_name_errors
from kubesim_scheduler.config.plugin_args import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
    UtilizationShapePoint,
    VolumeBindingArgs,
)

__all__ = [
    "validate_default_preemption_args",
    "validate_dynamic_resources_args",
    "validate_inter_pod_affinity_args",
    "validate_node_affinity_args",
    "validate_node_resources_balanced_allocation_args",
    "validate_node_resources_fit_args",
    "validate_plugin_args",
    "validate_pod_topology_spread_args",
    "validate_volume_binding_args",
]

_SCORING_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
_MAX_CUSTOM_PRIORITY_SCORE = 10
_GO_INT = re.compile(r"[+-]?[0-9]+")


def validate_plugin_args(path: str, args: object) -> list[Problem]:
    """Validate any typed args object; raw (out-of-tree) args are not checked."""
    if isinstance(args, DefaultPreemptionArgs):
        return validate_default_preemption_args(path, args)
    if isinstance(args, InterPodAffinityArgs):
        return validate_inter_pod_affinity_args(path, args)
    if isinstance(args, NodeAffinityArgs):
        return validate_node_affinity_args(path, args)
    if isinstance(args, NodeResourcesBalancedAllocationArgs):
        return validate_node_resources_balanced_allocation_args(path, args)
    if isinstance(args, NodeResourcesFitArgs):
        return validate_node_resources_fit_args(path, args)
    if isinstance(args, PodTopologySpreadArgs):
        return validate_pod_topology_spread_args(path, args)
    if isinstance(args, VolumeBindingArgs):
        return validate_volume_binding_args(path, args)
    if isinstance(args, DynamicResourcesArgs):
        return validate_dynamic_resources_args(path, args)
    return []


def validate_default_preemption_args(path: str, args: DefaultPreemptionArgs) -> list[Problem]:
    """ValidateDefaultPreemptionArgs."""
    pct_path = join(path, "minCandidateNodesPercentage")
    abs_path = join(path, "minCandidateNodesAbsolute")
    pct, absolute = args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute
    out = []
    if not 0 <= pct <= 100:
        out.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        out.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        out.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        out.append(
            invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage")
        )
    return out


def validate_inter_pod_affinity_args(path: str, args: InterPodAffinityArgs) -> list[Problem]:
    """ValidateInterPodAffinityArgs: hardPodAffinityWeight in [0, 100]."""
    w = args.hard_pod_affinity_weight
    if not 0 <= w <= 100:
        return [invalid(join(path, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


def validate_pod_topology_spread_args(path: str, args: PodTopologySpreadArgs) -> list[Problem]:
    """ValidatePodTopologySpreadArgs: defaultingType rules and each default constraint."""
    out = []
    kind = args.defaulting_type
    kind_path = join(path, "defaultingType")
    if kind not in ("System", "List"):
        out.append(not_supported(kind_path, kind, ["System", "List"]))
    elif kind == "System" and args.default_constraints:
        out.append(invalid(kind_path, kind, "when .defaultConstraints are not empty"))
    list_path = join(path, "defaultConstraints")
    seen: list[tuple[str, str]] = []
    for i, raw in enumerate(args.default_constraints):
        p = index(list_path, i)
        c = _typed(raw, core_shapes.TopologySpreadConstraint, p, out)
        if c is None:
            continue
        if c.max_skew <= 0:
            out.append(invalid(join(p, "maxSkew"), c.max_skew, "not in valid range (0, inf)"))
        out.extend(_topology_key_problems(join(p, "topologyKey"), c.topology_key))
        action_path = join(p, "whenUnsatisfiable")
        if not c.when_unsatisfiable:
            out.append(required(action_path, "can not be empty"))
        elif c.when_unsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            out.append(not_supported(action_path, c.when_unsatisfiable, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.label_selector is not None:
            out.append(
                forbidden(
                    join(p, "labelSelector"),
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        key = (c.topology_key, c.when_unsatisfiable)
        if key in seen:
            out.append(duplicate(p, f"{{{key[0]}, {key[1]}}}"))
        seen.append(key)
    return out


def _topology_key_problems(path: str, key: str) -> list[Problem]:
    if not key:
        return [required(path, "can not be empty")]
    return [invalid(path, key, msg) for msg in qualified_name_errors(key)]


def validate_node_resources_balanced_allocation_args(
    path: str, args: NodeResourcesBalancedAllocationArgs
) -> list[Problem]:
    """ValidateNodeResourcesBalancedAllocationArgs: unique names, every weight 1."""
    out = []
    seen: set[str] = set()
    for i, r in enumerate(args.resources):
        p = index(join(path, "resources"), i)
        if r.name in seen:
            out.append(duplicate(join(p, "name"), r.name))
        seen.add(r.name)
        if r.weight != 1:
            out.append(invalid(join(p, "weight"), r.weight, "must be 1"))
    return out


def validate_node_resources_fit_args(path: str, args: NodeResourcesFitArgs) -> list[Problem]:
    """ValidateNodeResourcesFitArgs: ignored resources/groups, strategy type, weights, shape."""
    out: list[Problem] = []
    for i, name in enumerate(args.ignored_resources):
        p = index(join(path, "ignoredResources"), i)
        out.extend(invalid(p, name, msg) for msg in qualified_name_errors(name))
    for i, group in enumerate(args.ignored_resource_groups):
        p = index(join(path, "ignoredResourceGroups"), i)
        if "/" in group:
            out.append(invalid(p, group, "resource group name can't contain '/'"))
        out.extend(invalid(p, group, msg) for msg in qualified_name_errors(group))
    strategy = args.scoring_strategy
    if strategy is not None:
        sp = join(path, "scoringStrategy")
        if strategy.type not in _SCORING_STRATEGIES:
            out.append(not_supported(join(sp, "type"), strategy.type, _SCORING_STRATEGIES))
        out.extend(_resource_weight_problems(join(sp, "resources"), strategy.resources))
        if strategy.requested_to_capacity_ratio is not None:
            shape_path = join(sp, "requestedToCapacityRatio.shape")
            out.extend(_shape_problems(shape_path, strategy.requested_to_capacity_ratio.shape))
    return out


def _resource_weight_problems(path: str, resources: Sequence[ResourceSpec]) -> list[Problem]:
    return [
        invalid(
            join(index(path, i), "weight"),
            r.weight,
            f"resource weight of {r.name} not in valid range (0, 100]",
        )
        for i, r in enumerate(resources)
        if not 0 < r.weight <= 100
    ]


def _shape_problems(path: str, shape: Sequence[UtilizationShapePoint]) -> list[Problem]:
    """validateFunctionShape: at least one point, increasing utilization in [0, 100], score in [0, 10]."""
    if not shape:
        return [required(path, "at least one point must be specified")]
    out = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            p = join(index(path, i), "utilization")
            out.append(invalid(p, shape[i].utilization, "values must be sorted in increasing order"))
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            out.append(
                invalid(join(index(path, i), "utilization"), point.utilization, "not in valid range [0, 100]")
            )
        if not 0 <= point.score <= _MAX_CUSTOM_PRIORITY_SCORE:
            msg = f"not in valid range [0, {_MAX_CUSTOM_PRIORITY_SCORE}]"
            out.append(invalid(join(index(path, i), "score"), point.score, msg))
    return out


def validate_volume_binding_args(
    path: str, args: VolumeBindingArgs, *, storage_capacity_scoring: bool = False
) -> list[Problem]:
    """ValidateVolumeBindingArgsWithOptions; the StorageCapacityScoring gate is off in v1.34."""
    out = []
    if args.bind_timeout_seconds < 0:
        detail = "invalid BindTimeoutSeconds, should not be a negative value"
        out.append(invalid(join(path, "bindTimeoutSeconds"), args.bind_timeout_seconds, detail))
    shape_path = join(path, "shape")
    if storage_capacity_scoring:
        out.extend(_shape_problems(shape_path, args.shape or ()))
    elif args.shape is not None:
        detail = "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"
        out.append(invalid(shape_path, unstructure(args.shape), detail))
    return out


def validate_dynamic_resources_args(
    path: str, args: DynamicResourcesArgs, *, filter_timeout_gate: bool = True
) -> list[Problem]:
    """ValidateDynamicResourcesArgs; DRASchedulerFilterTimeout is on by default in v1.34."""
    timeout_path = join(path, "filterTimeout")
    if filter_timeout_gate:
        if args.filter_timeout is not None and args.filter_timeout < 0:
            return [invalid(timeout_path, format_duration(args.filter_timeout), "must be zero or positive")]
        return []
    if args.filter_timeout is not None:
        return [forbidden(timeout_path, "DRASchedulingFilterTimeout feature gate is disabled")]
    return []


def validate_node_affinity_args(path: str, args: NodeAffinityArgs) -> list[Problem]:
    """ValidateNodeAffinityArgs: the added affinity must parse as node selectors do."""
    if args.added_affinity is None:
        return []
    out: list[Problem] = []
    aff_path = join(path, "addedAffinity")
    affinity = _typed(args.added_affinity, core_shapes.NodeAffinity, aff_path, out)
    if affinity is None:
        return out
    req = affinity.required_during_scheduling_ignored_during_execution
    if req is not None:
        terms_path = join(aff_path, "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")
        for i, term in enumerate(req.node_selector_terms):
            if term.match_expressions or term.match_fields:
                out.extend(_term_problems(index(terms_path, i), term))
    pref_path = join(aff_path, "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pref in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
        term = pref.preference
        if pref.weight != 0 and (term.match_expressions or term.match_fields):
            out.extend(_term_problems(index(pref_path, i), term))
    return out


_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _term_problems(path: str, term: core_shapes.NodeSelectorTerm) -> list[Problem]:
    """newNodeSelectorTerm: label requirements (labels.NewRequirement) and field requirements."""
    out = []
    for j, expr in enumerate(term.match_expressions):
        p = index(join(path, "matchExpressions"), j)
        if expr.operator not in _LABEL_OPERATORS:
            out.append(not_supported(join(p, "operator"), expr.operator, _LABEL_OPERATORS))
            continue
        out.extend(_requirement_problems(p, expr))
    for j, expr in enumerate(term.match_fields):
        p = index(join(path, "matchFields"), j)
        if expr.operator in ("In", "NotIn"):
            if len(expr.values) != 1:
                out.append(invalid(join(p, "values"), list(expr.values), "must have one element"))
        else:
            out.append(not_supported(join(p, "operator"), expr.operator, ["In", "NotIn"]))
    return out


def _requirement_problems(path: str, expr: core_shapes.NodeSelectorRequirement) -> list[Problem]:
    """labels.NewRequirement checks for one node selector expression."""
    out: list[Problem] = []
    key_errs = qualified_name_errors(expr.key)
    if key_errs:
        out.append(invalid(join(path, "key"), expr.key, "; ".join(key_errs)))
    values_path = join(path, "values")
    values = list(expr.values)
    op = expr.operator
    if op in ("In", "NotIn") and not values:
        out.append(invalid(values_path, values, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist") and values:
        out.append(invalid(values_path, values, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            out.append(
                invalid(values_path, values, "for 'Gt', 'Lt' operators, exactly one value is required")
            )
        for i, v in enumerate(values):
            if not _is_go_int64(v):
                out.append(
                    invalid(
                        index(values_path, i), v, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    for i, v in enumerate(values):
        errs = label_value_errors(v)
        if errs:
            out.append(invalid(index(index(values_path, i), expr.key), v, "; ".join(errs)))
    return out


def _is_go_int64(text: str) -> bool:
    return bool(_GO_INT.fullmatch(text)) and -(2**63) <= int(text) < 2**63


def _typed(raw: dict[str, Any], shape: type[Any], path: str, out: list[Problem]) -> Any:
    """The typed mirror of a core object dict, or None after recording why it does not fit."""
    try:
        return structure(raw, shape)
    except FieldErrors as exc:
        out.extend(Problem(join(path, p), m) for p, m in exc.pairs)
        return None
