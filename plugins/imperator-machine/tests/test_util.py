"""Ports of upstream pkg/controllers/util/{label,name,resources,status}_test.go (the Machine parts),
and the canonical quantities those objects carry."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim_imperator_machine import (
    affinity_match_expressions,
    canonical_quantity,
    generate_service,
    generate_statefulset,
    machine_group_of,
    pod_condition_type_map,
    quantity_value,
    reservation_labels,
    reservation_name,
    sleeper_container,
    tolerations,
)
from kubesim_imperator_machine.controller import _usage_of
from kubesim_imperator_nodepool import MACHINE_GROUP_KEY

GROUP = "test-machine-group"
NOW = "2025-01-01T00:00:00Z"


def test_get_machine_group() -> None:
    """TestGetMachineGroup."""
    assert machine_group_of({MACHINE_GROUP_KEY: GROUP, "dummy-key": "dummy-value"}) == GROUP


def test_generate_reservation_resource_name_is_group_then_type() -> None:
    """The implementation's order (util.GenerateReservationResourceName), not the design document's."""
    assert reservation_name(GROUP, "compute-xlarge") == f"{GROUP}-compute-xlarge"


def fake_machine_type(use_gpu: bool) -> dict[str, Any]:
    """newFakeMachineType."""
    mt: dict[str, Any] = {"name": "fake-machine-type", "available": 1, "spec": {"cpu": "4000m", "memory": "12Gi"}}
    if use_gpu:
        mt["spec"]["gpu"] = {"type": "nvidia.com/gpu", "num": "1", "family": "turing"}
    return mt


def fake_statefulset(mt: dict[str, Any]) -> dict[str, Any]:
    """newFakeStatefulSet."""
    labels = reservation_labels(GROUP, mt["name"])
    resources = {"cpu": "4", "memory": "12Gi"}
    if "gpu" in mt["spec"]:
        resources["nvidia.com/gpu"] = "1"
    container = sleeper_container()
    container["resources"] = {"requests": resources, "limits": dict(resources)}
    return {
        "metadata": {"labels": labels},
        "spec": {
            "serviceName": reservation_name(GROUP, mt["name"]),
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "tolerations": tolerations(mt["name"], GROUP),
                    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": affinity_match_expressions(mt, GROUP)}]}}},
                    "containers": [container],
                },
            },
        },
    }


@pytest.mark.parametrize(("description", "use_gpu"), [("Normal machineType", False),
                                                      ("machineType with GPUs", True)])
def test_generate_statefulset(description: str, use_gpu: bool) -> None:
    """TestGenerateStatefulSet."""
    mt = fake_machine_type(use_gpu)
    actual: dict[str, Any] = {}
    generate_statefulset(mt, GROUP, 1, actual)
    assert actual == fake_statefulset(mt), description


def test_generate_statefulset_keeps_what_it_does_not_own() -> None:
    sts: dict[str, Any] = {"metadata": {"name": "x", "labels": {"stale": "yes"}},
                           "spec": {"podManagementPolicy": "OrderedReady",
                                    "template": {"spec": {"restartPolicy": "Always"}}}}
    generate_statefulset(fake_machine_type(False), GROUP, 3, sts)
    assert sts["metadata"]["labels"] == reservation_labels(GROUP, "fake-machine-type")
    assert sts["spec"]["podManagementPolicy"] == "OrderedReady"
    assert sts["spec"]["template"]["spec"]["restartPolicy"] == "Always"
    assert sts["spec"]["replicas"] == 3


def test_generate_service() -> None:
    """TestGenerateService."""
    actual: dict[str, Any] = {}
    generate_service("test-machine-type", GROUP, actual)
    labels = reservation_labels(GROUP, "test-machine-type")
    assert actual == {"metadata": {"labels": labels},
                      "spec": {"selector": labels, "ports": [{"port": 80}], "type": "ClusterIP"}}


def fake_available_machines(target: dict[str, Any] | None) -> dict[str, Any]:
    """newFakeAvailableMachineConditions, as a Machine's status."""
    entries = [{"name": "dummy-machine-type", "usage": {"maximum": 2, "reserved": 1, "used": 1, "waiting": 0}}]
    if target is not None:
        entries.append(target)
    return {"status": {"availableMachines": entries}}


def test_get_machine_type_usage() -> None:
    """TestGetMachineTypeUsage: a present and a missing machine type."""
    usage = {"maximum": 2, "used": 1, "reserved": 1, "waiting": 0}
    machine = fake_available_machines({"name": "test-machine-type", "usage": usage})
    assert _usage_of(machine, "test-machine-type") == usage
    assert _usage_of(fake_available_machines(None), "not-exist") is None


def fake_pod_conditions() -> list[dict[str, str]]:
    """newFakePodConditions."""
    return [
        {"type": "ContainersReady", "lastTransitionTime": NOW, "status": "True"},
        {"type": "PodScheduled", "lastTransitionTime": NOW, "status": "False", "reason": "Unschedulable"},
    ]


@pytest.mark.parametrize(
    ("description", "conditions"),
    [
        ("Positive test", fake_pod_conditions()),
        ("Input podConditions is empty ", []),
        ("Duplicated Type in PodConditions",
         [*fake_pod_conditions(), {"type": "ContainersReady", "lastTransitionTime": NOW, "status": "False"}]),
    ],
)
def test_get_pod_condition_type_map(description: str, conditions: list[dict[str, str]]) -> None:
    """TestGetPodConditionTypeMap: the first condition of a type wins."""
    expected = {} if not conditions else {c["type"]: c for c in fake_pod_conditions()}
    assert pod_condition_type_map(conditions) == expected, description


@pytest.mark.parametrize(
    ("written", "go_prints"),
    [("6000m", "6"), ("2000m", "2"), ("4", "4"), (4, "4"), ("0.5", "500m"), ("1.5", "1500m"), ("100m", "100m"),
     ("128Gi", "128Gi"), ("1024Mi", "1Gi"), ("1.5Gi", "1536Mi"), ("0.5Ki", "512"), ("3Ki", "3Ki"),
     ("12e8", "1200e6"), ("1e3", "1e3"), ("0", "0"), ("0.0000000001", "1n"), ("48Gi", "48Gi"), ("1k", "1k"),
     ("1000", "1k"), ("1500", "1500")],
)
def test_canonical_quantities(written: Any, go_prints: str) -> None:
    """resource.Quantity's String() after ParseQuantity (CanonicalizeBytes)."""
    assert canonical_quantity(written) == go_prints


@pytest.mark.parametrize(("written", "value"), [("1", 1), ("-1", -1), ("-0.5", -1), ("0.5", 1), ("2k", 2000)])
def test_quantity_value_rounds_away_from_zero(written: str, value: int) -> None:
    assert quantity_value(written) == value
