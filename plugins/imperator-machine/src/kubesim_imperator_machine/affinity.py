"""Node affinity, tolerations and resources of a machine type (upstream pkg/api/v1alpha1/affinity.go,
pod_resource_injector.go's convertToResourceQuantity, controllers/util/resource.go).

Reservation pods and guest pods of a machine type get the same three things: a required node
affinity term for `imperator.tenzen-y.io/<type>=<group>`, `imperator.tenzen-y.io/node-pool=ready`
and the GPU selector label; NoSchedule tolerations for the type's and the node-pool taints;
and requests = limits = the machine type's cpu, memory and GPUs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesim.k8s.quantity import canonical as canonical_quantity
from kubesim_imperator_nodepool import (
    MACHINE_STATUS_KEY,
    MODE_READY,
    NVIDIA_GPU_FAMILY_KEY,
    NVIDIA_GPU_MACHINE_KEY,
    NVIDIA_GPU_PRODUCT_KEY,
    machine_type_key,
)


__all__ = [
    "affinity_match_expressions",
    "gpu_selector",
    "machine_type_resources",
    "tolerations",
]


def gpu_selector(gpu: Mapping[str, Any]) -> list[str]:
    """[label key, value] of the GPU's family, else product, else machine; [] with none (getGPUSelector)."""
    if gpu.get("family"):
        return [NVIDIA_GPU_FAMILY_KEY, str(gpu["family"])]
    if gpu.get("product"):
        return [NVIDIA_GPU_PRODUCT_KEY, str(gpu["product"])]
    if gpu.get("machine"):
        return [NVIDIA_GPU_MACHINE_KEY, str(gpu["machine"])]
    return []


def affinity_match_expressions(machine_type: Mapping[str, Any], machine_group: str) -> list[dict[str, Any]]:
    """The required node selector requirements of a machine type (GenerateAffinityMatchExpression)."""
    exprs: list[dict[str, Any]] = [
        {"key": machine_type_key(str(machine_type.get("name", ""))), "operator": "In", "values": [machine_group]},
        {"key": MACHINE_STATUS_KEY, "operator": "In", "values": [MODE_READY]},
    ]
    gpu = (machine_type.get("spec") or {}).get("gpu")
    if gpu is not None:
        selector = gpu_selector(gpu)
        if len(selector) == 2:
            exprs.append({"key": selector[0], "operator": "In", "values": [selector[1]]})
    return exprs


def tolerations(machine_type_name: str, machine_group: str) -> list[dict[str, Any]]:
    """Tolerations of the machine type's taint and of node-pool=ready (GenerateToleration)."""
    return [
        {"key": machine_type_key(machine_type_name), "operator": "Equal", "value": machine_group,
         "effect": "NoSchedule"},
        {"key": MACHINE_STATUS_KEY, "operator": "Equal", "value": MODE_READY, "effect": "NoSchedule"},
    ]


def machine_type_resources(machine_type: Mapping[str, Any]) -> dict[str, str]:
    """cpu, memory and (with a GPU) `<gpu.type>: <gpu.num>`, in canonical form (convertToResourceQuantity).

    A missing quantity is Go's zero Quantity, "0".
    """
    spec = machine_type.get("spec") or {}
    resources = {
        "cpu": canonical_quantity(spec.get("cpu", 0)),
        "memory": canonical_quantity(spec.get("memory", 0)),
    }
    gpu = spec.get("gpu")
    if gpu is not None:
        resources[str(gpu.get("type", ""))] = canonical_quantity(gpu.get("num", 0))
    return resources
