"""Ports of pkg/scheduler/apis/config/validation/validation_pluginargs_test.go (v1.34).

Upstream compares error type and field only (or a substring); these tables check the
full path and message. One deliberate difference: RequestedToCapacityRatio shape errors
are reported at `scoringStrategy.requestedToCapacityRatio.shape` (where the shape is
written) instead of upstream's `scoringStrategy.shape`.
"""

from __future__ import annotations

from typing import Any

import pytest
from kubesim_scheduler.config import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from kubesim_scheduler.config.validation_args import (
    validate_dynamic_resources_args,
    validate_plugin_args,
    validate_volume_binding_args,
)

Want = list[tuple[str, str]]


def problems(args: object) -> Want:
    """Validate args at the root path, as upstream's tests do (nil path)."""
    return [(p.path, p.message) for p in validate_plugin_args("", args)]


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(DefaultPreemptionArgs(10, 100), [], id="valid args (default)"),
        pytest.param(
            DefaultPreemptionArgs(-1, 100),
            [("minCandidateNodesPercentage", "Invalid value: -1: not in valid range [0, 100]")],
            id="negative minCandidateNodesPercentage",
        ),
        pytest.param(
            DefaultPreemptionArgs(900, 100),
            [("minCandidateNodesPercentage", "Invalid value: 900: not in valid range [0, 100]")],
            id="minCandidateNodesPercentage over 100",
        ),
        pytest.param(
            DefaultPreemptionArgs(20, -1),
            [("minCandidateNodesAbsolute", "Invalid value: -1: not in valid range [0, inf)")],
            id="negative minCandidateNodesAbsolute",
        ),
        pytest.param(
            DefaultPreemptionArgs(0, 0),
            [
                (
                    "minCandidateNodesPercentage",
                    "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
                ),
                (
                    "minCandidateNodesAbsolute",
                    "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage",
                ),
            ],
            id="all zero",
        ),
        pytest.param(
            DefaultPreemptionArgs(-1, -1),
            [
                ("minCandidateNodesPercentage", "Invalid value: -1: not in valid range [0, 100]"),
                ("minCandidateNodesAbsolute", "Invalid value: -1: not in valid range [0, inf)"),
            ],
            id="both negative",
        ),
    ],
)
def test_validate_default_preemption_args(args: DefaultPreemptionArgs, want: Want) -> None:
    """TestValidateDefaultPreemptionArgs."""
    assert problems(args) == want


@pytest.mark.parametrize(
    ("weight", "want"),
    [
        pytest.param(10, [], id="valid args"),
        pytest.param(
            -1,
            [("hardPodAffinityWeight", "Invalid value: -1: not in valid range [0, 100]")],
            id="hardPodAffinityWeight less than min",
        ),
        pytest.param(
            101,
            [("hardPodAffinityWeight", "Invalid value: 101: not in valid range [0, 100]")],
            id="hardPodAffinityWeight more than max",
        ),
    ],
)
def test_validate_inter_pod_affinity_args(weight: int, want: Want) -> None:
    """TestValidateInterPodAffinityArgs."""
    assert problems(InterPodAffinityArgs(weight)) == want


def constraint(max_skew: int, key: str, action: str, **extra: Any) -> dict[str, Any]:
    """A v1.TopologySpreadConstraint dict."""
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action, **extra}


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(
            PodTopologySpreadArgs(
                (constraint(1, "node", "DoNotSchedule"), constraint(2, "zone", "ScheduleAnyway")), "List"
            ),
            [],
            id="valid config",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(-1, "node", "DoNotSchedule"),), "List"),
            [("defaultConstraints[0].maxSkew", "Invalid value: -1: not in valid range (0, inf)")],
            id="maxSkew less than zero",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(1, "", "DoNotSchedule"),), "List"),
            [("defaultConstraints[0].topologyKey", "Required value: can not be empty")],
            id="empty topology key",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(1, "node", ""),), "List"),
            [("defaultConstraints[0].whenUnsatisfiable", "Required value: can not be empty")],
            id="whenUnsatisfiable is empty",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(1, "node", "unknown action"),), "List"),
            [
                (
                    "defaultConstraints[0].whenUnsatisfiable",
                    'Unsupported value: "unknown action": supported values: "DoNotSchedule", "ScheduleAnyway"',
                )
            ],
            id="whenUnsatisfiable contains unsupported action",
        ),
        pytest.param(
            PodTopologySpreadArgs(
                (constraint(1, "node", "DoNotSchedule"), constraint(2, "node", "DoNotSchedule")), "List"
            ),
            [("defaultConstraints[1]", 'Duplicate value: "{node, DoNotSchedule}"')],
            id="duplicated constraints",
        ),
        pytest.param(
            PodTopologySpreadArgs(
                (constraint(1, "key", "DoNotSchedule", labelSelector={"matchLabels": {"a": "b"}}),), "List"
            ),
            [
                (
                    "defaultConstraints[0].labelSelector",
                    "Forbidden: constraint must not define a selector, as they deduced for each pod",
                )
            ],
            id="label selector present",
        ),
        pytest.param(PodTopologySpreadArgs((), "List"), [], id="list default constraints, no constraints"),
        pytest.param(PodTopologySpreadArgs((), "System"), [], id="system default constraints"),
        pytest.param(
            PodTopologySpreadArgs((), "unknown"),
            [("defaultingType", 'Unsupported value: "unknown": supported values: "System", "List"')],
            id="wrong constraints",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(1, "key", "DoNotSchedule"),), "System"),
            [("defaultingType", 'Invalid value: "System": when .defaultConstraints are not empty')],
            id="system default constraints, but has constraints",
        ),
        pytest.param(
            PodTopologySpreadArgs((constraint(1, "a/b/c", "DoNotSchedule"),), "List"),
            [
                (
                    "defaultConstraints[0].topologyKey",
                    (
                        'Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '
                        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', "
                        " or 'my.name',  or '123-abc', regex used for validation is "
                        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
                        "(e.g. 'example.com/MyName')"
                    ),
                )
            ],
            id="kubesim: invalid topology key",
        ),
    ],
)
def test_validate_pod_topology_spread_args(args: PodTopologySpreadArgs, want: Want) -> None:
    """TestValidatePodTopologySpreadArgs."""
    assert problems(args) == want


@pytest.mark.parametrize(
    ("resources", "want"),
    [
        pytest.param((ResourceSpec("cpu", 1), ResourceSpec("memory", 1)), [], id="valid config"),
        pytest.param(
            (ResourceSpec("cpu", 2), ResourceSpec("memory", 1)),
            [("resources[0].weight", "Invalid value: 2: must be 1")],
            id="invalid config",
        ),
        pytest.param(
            (ResourceSpec("cpu", 1), ResourceSpec("cpu", 1)),
            [("resources[1].name", 'Duplicate value: "cpu"')],
            id="repeated resources",
        ),
    ],
)
def test_validate_node_resources_balanced_allocation_args(
    resources: tuple[ResourceSpec, ...], want: Want
) -> None:
    """TestValidateNodeResourcesBalancedAllocationArgs."""
    assert problems(NodeResourcesBalancedAllocationArgs(resources)) == want


def requirement(key: str, operator: str, *values: str) -> dict[str, Any]:
    """A v1.NodeSelectorRequirement dict."""
    return {"key": key, "operator": operator, "values": list(values)}


def affinity(
    required: list[dict[str, Any]] | None = None, preferred_fields: list[dict[str, Any]] | None = None
) -> NodeAffinityArgs:
    """NodeAffinityArgs with one required term (matchExpressions) and one preferred term (matchFields)."""
    added: dict[str, Any] = {}
    if required is not None:
        added["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": required}]
        }
    if preferred_fields is not None:
        added["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 1, "preference": {"matchFields": preferred_fields}}
        ]
    return NodeAffinityArgs(added)


REQ = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
PREF = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0]"
QNAME_MSG = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
    "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(NodeAffinityArgs(), [], id="empty"),
        pytest.param(
            affinity(
                [requirement("label-1", "In", "label-1-val")], [requirement("metadata.name", "In", "node-1")]
            ),
            [],
            id="valid added affinity",
        ),
        pytest.param(
            affinity(
                [requirement("invalid/label/key", "In", "label-1-val")],
                [requirement("metadata.name", "In", "node-1", "node-2")],
            ),
            [
                (f"{REQ}.key", f'Invalid value: "invalid/label/key": {QNAME_MSG}'),
                (f"{PREF}.values", 'Invalid value: ["node-1","node-2"]: must have one element'),
            ],
            id="invalid added affinity",
        ),
        pytest.param(
            affinity([requirement("a", "Near", "x")], [requirement("metadata.name", "Exists")]),
            [
                (
                    f"{REQ}.operator",
                    (
                        'Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", '
                        '"Gt", "Lt"'
                    ),
                ),
                (f"{PREF}.operator", 'Unsupported value: "Exists": supported values: "In", "NotIn"'),
            ],
            id="kubesim: unsupported operators",
        ),
        pytest.param(
            affinity([requirement("a", "Gt", "1", "x")]),
            [
                (
                    f"{REQ}.values",
                    "Invalid value: [\"1\",\"x\"]: for 'Gt', 'Lt' operators, exactly one value is required",
                ),
                (
                    f"{REQ}.values[1]",
                    "Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
                ),
            ],
            id="kubesim: Gt needs one integer",
        ),
        pytest.param(
            affinity([requirement("a", "Exists", "x"), requirement("b", "In")]),
            [
                (
                    f"{REQ}.values",
                    'Invalid value: ["x"]: values set must be empty for exists and does not exist',
                ),
                (
                    REQ.replace("matchExpressions[0]", "matchExpressions[1]") + ".values",
                    "Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
                ),
            ],
            id="kubesim: value counts",
        ),
        pytest.param(
            affinity([requirement("a", "In", "bad value")]),
            [
                (
                    f"{REQ}.values[0][a]",
                    (
                        'Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric '
                        "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
                        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
                    ),
                )
            ],
            id="kubesim: bad label value",
        ),
    ],
)
def test_validate_node_affinity_args(args: NodeAffinityArgs, want: Want) -> None:
    """TestValidateNodeAffinityArgs."""
    assert problems(args) == want


SHAPE_1_3 = (UtilizationShapePoint(1, 1), UtilizationShapePoint(3, 3))


@pytest.mark.parametrize(
    ("args", "gate", "want"),
    [
        pytest.param(VolumeBindingArgs(0), False, [], id="zero is a valid config"),
        pytest.param(VolumeBindingArgs(10), False, [], id="positive value is valid config"),
        pytest.param(
            VolumeBindingArgs(-10),
            False,
            [
                (
                    "bindTimeoutSeconds",
                    "Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value",
                )
            ],
            id="negative value is invalid config",
        ),
        pytest.param(
            VolumeBindingArgs(10, None),
            False,
            [],
            id="[StorageCapacityScoring=off] shape should be nil when off",
        ),
        pytest.param(
            VolumeBindingArgs(10, SHAPE_1_3),
            False,
            [
                (
                    "shape",
                    (
                        'Invalid value: [{"utilization":1,"score":1},{"utilization":3,"score":3}]: unexpected field '
                        "`shape`, remove it or turn on the feature gate StorageCapacityScoring"
                    ),
                )
            ],
            id="[StorageCapacityScoring=off] error if the shape is not nil when the feature is off",
        ),
        pytest.param(
            VolumeBindingArgs(10, ()),
            True,
            [("shape", "Required value: at least one point must be specified")],
            id="[StorageCapacityScoring=on] shape should not be empty",
        ),
        pytest.param(
            VolumeBindingArgs(10, tuple(reversed(SHAPE_1_3))),
            True,
            [("shape[1].utilization", "Invalid value: 1: values must be sorted in increasing order")],
            id="[StorageCapacityScoring=on] shape points must be sorted in increasing order",
        ),
        pytest.param(
            VolumeBindingArgs(
                10,
                (
                    UtilizationShapePoint(-1, 1),
                    UtilizationShapePoint(10, -1),
                    UtilizationShapePoint(20, 11),
                    UtilizationShapePoint(101, 1),
                ),
            ),
            True,
            [
                ("shape[0].utilization", "Invalid value: -1: not in valid range [0, 100]"),
                ("shape[1].score", "Invalid value: -1: not in valid range [0, 10]"),
                ("shape[2].score", "Invalid value: 11: not in valid range [0, 10]"),
                ("shape[3].utilization", "Invalid value: 101: not in valid range [0, 100]"),
            ],
            id="[StorageCapacityScoring=on] shape point: invalid utilization and score",
        ),
    ],
)
def test_validate_volume_binding_args(args: VolumeBindingArgs, gate: bool, want: Want) -> None:
    """TestValidateVolumeBindingArgs (the gate is off in kubesim; on is tested through the option)."""
    got = validate_volume_binding_args("", args, storage_capacity_scoring=gate)
    assert [(p.path, p.message) for p in got] == want
    if not gate:
        assert problems(args) == want


LEAST = ScoringStrategy("LeastAllocated", (ResourceSpec("cpu", 1), ResourceSpec("memory", 1)))


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(
            NodeResourcesFitArgs(ignored_resources=("longvalue" + "a" * 64,), scoring_strategy=LEAST),
            [
                (
                    "ignoredResources[0]",
                    f'Invalid value: "longvalue{"a" * 64}": name part must be no more than 63 characters',
                )
            ],
            id="IgnoredResources: too long value",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resources=("example.com/",), scoring_strategy=LEAST),
            [
                ("ignoredResources[0]", 'Invalid value: "example.com/": name part must be non-empty'),
                (
                    "ignoredResources[0]",
                    (
                        'Invalid value: "example.com/": name part must consist of alphanumeric characters, '
                        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                    ),
                ),
            ],
            id="IgnoredResources: name is empty",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resources=("example.com/aaa/bbb",), scoring_strategy=LEAST),
            [("ignoredResources[0]", f'Invalid value: "example.com/aaa/bbb": {QNAME_MSG}')],
            id="IgnoredResources: name has too many slash",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resources=("example.com",), scoring_strategy=LEAST),
            [],
            id="IgnoredResources: valid args",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resource_groups=("example.com",), scoring_strategy=LEAST),
            [],
            id="IgnoredResourceGroups: valid args",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resource_groups=("example.com/",), scoring_strategy=LEAST),
            [
                (
                    "ignoredResourceGroups[0]",
                    "Invalid value: \"example.com/\": resource group name can't contain '/'",
                ),
                ("ignoredResourceGroups[0]", 'Invalid value: "example.com/": name part must be non-empty'),
                (
                    "ignoredResourceGroups[0]",
                    (
                        'Invalid value: "example.com/": name part must consist of alphanumeric characters, '
                        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                    ),
                ),
            ],
            id="IgnoredResourceGroups: illegal args",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resource_groups=("a" * 64,), scoring_strategy=LEAST),
            [
                (
                    "ignoredResourceGroups[0]",
                    f'Invalid value: "{"a" * 64}": name part must be no more than 63 characters',
                )
            ],
            id="IgnoredResourceGroups: name is too long",
        ),
        pytest.param(
            NodeResourcesFitArgs(ignored_resource_groups=("example.com/aa",), scoring_strategy=LEAST),
            [
                (
                    "ignoredResourceGroups[0]",
                    "Invalid value: \"example.com/aa\": resource group name can't contain '/'",
                )
            ],
            id="IgnoredResourceGroups: name cannot be contain slash",
        ),
        pytest.param(
            NodeResourcesFitArgs(scoring_strategy=None), [], id="ScoringStrategy: field is required"
        ),
        pytest.param(
            NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("Invalid")),
            [
                (
                    "scoringStrategy.type",
                    (
                        'Unsupported value: "Invalid": supported values: "LeastAllocated", "MostAllocated", '
                        '"RequestedToCapacityRatio"'
                    ),
                )
            ],
            id="ScoringStrategy: type is unsupported",
        ),
    ],
)
def test_validate_fit_args(args: NodeResourcesFitArgs, want: Want) -> None:
    """TestValidateFitArgs (upstream checks substrings; the v1.34 code gives no error for a nil strategy)."""
    assert problems(args) == want


def weight_error(i: int, name: str, weight: int) -> tuple[str, str]:
    """The resource weight error at scoringStrategy.resources[i]."""
    path = f"scoringStrategy.resources[{i}].weight"
    return (path, f"Invalid value: {weight}: resource weight of {name} not in valid range (0, 100]")


RESOURCE_CASES = [
    pytest.param((), [], id="default config"),
    pytest.param((ResourceSpec("cpu", 1), ResourceSpec("memory", 10)), [], id="multi valid resources"),
    pytest.param((ResourceSpec("cpu", 0),), [weight_error(0, "cpu", 0)], id="weight less than min"),
    pytest.param((ResourceSpec("cpu", 101),), [weight_error(0, "cpu", 101)], id="weight greater than max"),
    pytest.param(
        (ResourceSpec("cpu", 0), ResourceSpec("memory", 101)),
        [weight_error(0, "cpu", 0), weight_error(1, "memory", 101)],
        id="multi invalid resources",
    ),
]


@pytest.mark.parametrize("strategy", ["LeastAllocated", "MostAllocated"])
@pytest.mark.parametrize(("resources", "want"), RESOURCE_CASES)
def test_validate_allocated_scoring_strategy(
    strategy: str, resources: tuple[ResourceSpec, ...], want: Want
) -> None:
    """TestValidateLeastAllocatedScoringStrategy and TestValidateMostAllocatedScoringStrategy."""
    assert problems(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(strategy, resources))) == want


SHAPE = "scoringStrategy.requestedToCapacityRatio.shape"
P30_3 = (UtilizationShapePoint(30, 3),)


def points(*pairs: tuple[int, int]) -> tuple[UtilizationShapePoint, ...]:
    """Shape points from (utilization, score) pairs."""
    return tuple(UtilizationShapePoint(u, s) for u, s in pairs)


@pytest.mark.parametrize(
    ("resources", "shape", "want"),
    [
        pytest.param(
            (), (), [(SHAPE, "Required value: at least one point must be specified")], id="no shapes"
        ),
        pytest.param(
            (ResourceSpec("cpu", 101),), P30_3, [weight_error(0, "cpu", 101)], id="weight greater than max"
        ),
        pytest.param(
            (ResourceSpec("cpu", 0),), P30_3, [weight_error(0, "cpu", 0)], id="weight less than min"
        ),
        pytest.param((), P30_3, [], id="valid shapes"),
        pytest.param(
            (),
            points((-1, 3)),
            [(f"{SHAPE}[0].utilization", "Invalid value: -1: not in valid range [0, 100]")],
            id="utilization less than min",
        ),
        pytest.param(
            (),
            points((101, 3)),
            [(f"{SHAPE}[0].utilization", "Invalid value: 101: not in valid range [0, 100]")],
            id="utilization greater than max",
        ),
        pytest.param(
            (),
            points((10, 3), (10, 3)),
            [(f"{SHAPE}[1].utilization", "Invalid value: 10: values must be sorted in increasing order")],
            id="duplicated utilization values",
        ),
        pytest.param((), points((10, 3), (20, 3), (30, 3)), [], id="increasing utilization values"),
        pytest.param(
            (),
            points((10, 3), (20, 3), (15, 3)),
            [(f"{SHAPE}[2].utilization", "Invalid value: 15: values must be sorted in increasing order")],
            id="non-increasing utilization values",
        ),
        pytest.param(
            (),
            points((10, -1)),
            [(f"{SHAPE}[0].score", "Invalid value: -1: not in valid range [0, 10]")],
            id="score less than min",
        ),
        pytest.param(
            (),
            points((10, 11)),
            [(f"{SHAPE}[0].score", "Invalid value: 11: not in valid range [0, 10]")],
            id="score greater than max",
        ),
    ],
)
def test_validate_requested_to_capacity_ratio_scoring_strategy(
    resources: tuple[ResourceSpec, ...], shape: tuple[UtilizationShapePoint, ...], want: Want
) -> None:
    """TestValidateRequestedToCapacityRatioScoringStrategy."""
    strategy = ScoringStrategy("RequestedToCapacityRatio", resources, RequestedToCapacityRatioParam(shape))
    assert problems(NodeResourcesFitArgs(scoring_strategy=strategy)) == want


@pytest.mark.parametrize(
    ("timeout", "gate", "want"),
    [
        pytest.param(10.0, True, [], id="default timeout"),
        pytest.param(0.0, True, [], id="zero timeout"),
        pytest.param(
            -1.0,
            True,
            [("filterTimeout", 'Invalid value: "-1s": must be zero or positive')],
            id="negative timeout",
        ),
        pytest.param(None, False, [], id="gate off, unset"),
        pytest.param(
            5.0,
            False,
            [("filterTimeout", "Forbidden: DRASchedulingFilterTimeout feature gate is disabled")],
            id="gate off, set",
        ),
    ],
)
def test_validate_dynamic_resources_args(timeout: float | None, gate: bool, want: Want) -> None:
    """ValidateDynamicResourcesArgs (DRASchedulerFilterTimeout is on by default in v1.34)."""
    got = validate_dynamic_resources_args("", DynamicResourcesArgs(timeout), filter_timeout_gate=gate)
    assert [(p.path, p.message) for p in got] == want
