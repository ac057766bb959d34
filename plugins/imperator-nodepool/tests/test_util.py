"""Ports of upstream pkg/controllers/util/{label,name,taint}_test.go (the node-pool parts)."""

from __future__ import annotations

from kubesim_imperator_nodepool import (
    GROUP,
    MACHINE_STATUS_KEY,
    extract_key_value_from_taints,
    node_pool_name,
    schedule_machine_type_keys,
    taint_key_index,
)

NOW = "2025-01-01T00:00:00Z"


def fake_taints() -> list[dict[str, str]]:
    """newFakeTaints."""
    return [
        {"key": f"{GROUP}/compute-xlarge", "value": "test-machine-type", "effect": "NoSchedule", "timeAdded": NOW},
        {"key": MACHINE_STATUS_KEY, "value": "ready", "effect": "NoSchedule", "timeAdded": NOW},
    ]


def test_get_schedule_machine_type_keys() -> None:
    """TestGetScheduleMachineTypeKeys."""
    types = ["compute-xsmall", "compute-large"]
    assert schedule_machine_type_keys([{"name": t} for t in types]) == [f"{GROUP}/{t}" for t in types]


def test_generate_machine_node_pool_name() -> None:
    """TestGenerateMachineNodePoolName."""
    assert node_pool_name("test-machine-group") == "test-machine-group-node-pool"


def test_extract_key_value_from_taint() -> None:
    """TestExtractKeyValueFromTaint."""
    assert extract_key_value_from_taints(fake_taints()) == {
        f"{GROUP}/compute-xlarge": "test-machine-type",
        MACHINE_STATUS_KEY: "ready",
    }


def test_get_taint_key_index() -> None:
    """TestGetTaintKeyIndex: the positive case and a key that is not there."""
    assert taint_key_index(fake_taints(), MACHINE_STATUS_KEY) == 1
    assert taint_key_index(fake_taints(), "not-exist") is None
