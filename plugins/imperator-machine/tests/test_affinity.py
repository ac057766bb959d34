"""Port of upstream pkg/api/v1alpha1/affinity_test.go (TestGetGPUSelector), and the affinity and
tolerations that GenerateAffinityMatchExpression / GenerateToleration build from it."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim_imperator_machine import affinity_match_expressions, gpu_selector, tolerations
from kubesim_imperator_nodepool import (
    MACHINE_STATUS_KEY,
    NVIDIA_GPU_FAMILY_KEY,
    NVIDIA_GPU_MACHINE_KEY,
    NVIDIA_GPU_PRODUCT_KEY,
)


@pytest.mark.parametrize(
    ("description", "gpu", "expected"),
    [
        ("Use Family", {"family": "turing"}, [NVIDIA_GPU_FAMILY_KEY, "turing"]),
        ("Use Product", {"product": "NVIDIA-GeForce-RTX-3080"}, [NVIDIA_GPU_PRODUCT_KEY, "NVIDIA-GeForce-RTX-3080"]),
        ("Use Machine", {"machine": "DGX-A100"}, [NVIDIA_GPU_MACHINE_KEY, "DGX-A100"]),
        ("Family is empty", {"family": ""}, []),
    ],
)
def test_get_gpu_selector(description: str, gpu: dict[str, Any], expected: list[str]) -> None:
    """TestGetGPUSelector."""
    assert gpu_selector(gpu) == expected, description


def test_family_wins_over_product_and_machine() -> None:
    """The switch in getGPUSelector checks family, then product, then machine."""
    assert gpu_selector({"product": "p", "machine": "m"}) == [NVIDIA_GPU_PRODUCT_KEY, "p"]
    assert gpu_selector({"family": "f", "product": "p", "machine": "m"}) == [NVIDIA_GPU_FAMILY_KEY, "f"]


def test_match_expressions_with_and_without_a_gpu() -> None:
    cpu_only = {"name": "small", "spec": {"cpu": "1", "memory": "1Gi"}}
    assert affinity_match_expressions(cpu_only, "g") == [
        {"key": "imperator.tenzen-y.io/small", "operator": "In", "values": ["g"]},
        {"key": MACHINE_STATUS_KEY, "operator": "In", "values": ["ready"]},
    ]
    gpu = {"name": "big", "spec": {"gpu": {"type": "nvidia.com/gpu", "num": 1, "machine": "DGX-1"}}}
    assert affinity_match_expressions(gpu, "g")[-1] == {"key": NVIDIA_GPU_MACHINE_KEY, "operator": "In",
                                                        "values": ["DGX-1"]}
    no_selector = {"name": "odd", "spec": {"gpu": {"type": "nvidia.com/gpu"}}}
    assert len(affinity_match_expressions(no_selector, "g")) == 2


def test_tolerations() -> None:
    assert tolerations("small", "g") == [
        {"key": "imperator.tenzen-y.io/small", "operator": "Equal", "value": "g", "effect": "NoSchedule"},
        {"key": MACHINE_STATUS_KEY, "operator": "Equal", "value": "ready", "effect": "NoSchedule"},
    ]
