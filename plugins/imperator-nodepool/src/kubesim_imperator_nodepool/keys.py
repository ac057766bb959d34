"""Imperator's API group, label, annotation and taint keys, and the values they take.

The strings are upstream's (tenzen-y/imperator pkg/consts/const.go and
pkg/api/v1alpha1/machinenodepool_types.go). Where the design document differs, the
implementation wins: the node's health key is `imperator.tenzen-y.io/node-pool` (the design
says `nodePool`), and the namespace label that enables injection is
`imperator.tenzen.io/inject-resource` (sic: `tenzen.io`, not `tenzen-y.io`).
"""

from __future__ import annotations

__all__ = [
    "API_VERSION",
    "CANNOT_USE_NODE_TAINTS",
    "CONDITION_READY",
    "GROUP",
    "INJECTION_ENABLED",
    "INJECTION_KEY",
    "INJECT_CONTAINER_KEY",
    "MACHINE_GROUP_KEY",
    "MACHINE_STATUS_KEY",
    "MACHINE_TYPE_KEY",
    "MODE_MAINTENANCE",
    "MODE_NOT_READY",
    "MODE_READY",
    "NODE_HEALTHY",
    "NODE_MAINTENANCE",
    "NODE_NOT_READY_TAINT",
    "NODE_POOL_FINALIZER",
    "NODE_UNHEALTHY",
    "NVIDIA_GPU_FAMILY_KEY",
    "NVIDIA_GPU_MACHINE_KEY",
    "NVIDIA_GPU_PRODUCT_KEY",
    "POD_ROLE_GUEST",
    "POD_ROLE_KEY",
    "POD_ROLE_RESERVATION",
    "machine_type_key",
    "node_pool_name",
]

GROUP = "imperator.tenzen-y.io"
API_VERSION = f"{GROUP}/v1alpha1"

MACHINE_GROUP_KEY = "imperator.tenzen-y.io/machine-group"
MACHINE_STATUS_KEY = "imperator.tenzen-y.io/node-pool"
MACHINE_TYPE_KEY = "imperator.tenzen-y.io/machine-type"
POD_ROLE_KEY = "imperator.tenzen-y.io/pod-role"
POD_ROLE_RESERVATION = "reservation"
POD_ROLE_GUEST = "guest"

INJECTION_KEY = "imperator.tenzen.io/inject-resource"
INJECTION_ENABLED = "enabled"
INJECT_CONTAINER_KEY = "imperator.tenzen-y.io/injecting-container"

NVIDIA_GPU_FAMILY_KEY = "nvidia.com/gpu.family"
NVIDIA_GPU_PRODUCT_KEY = "nvidia.com/gpu.product"
NVIDIA_GPU_MACHINE_KEY = "nvidia.com/gpu.machine"

NODE_POOL_FINALIZER = "imperator-machinenodepool-finalizer"
NODE_NOT_READY_TAINT = "node.kubernetes.io/not-ready"
CANNOT_USE_NODE_TAINTS = (
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/unreachable",
)

# NodePoolMode: spec.nodePool[*].mode is ready or maintenance; not-ready is only ever a label value.
MODE_READY = "ready"
MODE_NOT_READY = "not-ready"
MODE_MAINTENANCE = "maintenance"

# MachineNodeCondition: status.nodePool[*].condition
NODE_HEALTHY = "Healthy"
NODE_MAINTENANCE = "Maintenance"
NODE_UNHEALTHY = "Unhealthy"

CONDITION_READY = "Ready"


def machine_type_key(machine_type: str) -> str:
    """`imperator.tenzen-y.io/<machine type>`: node label and taint key (GenerateMachineTypeLabelTaintKey)."""
    return f"{GROUP}/{machine_type}"


def node_pool_name(machine_group: str) -> str:
    """`<machine group>-node-pool`: the MachineNodePool of a group (GenerateMachineNodePoolName)."""
    return f"{machine_group}-node-pool"
