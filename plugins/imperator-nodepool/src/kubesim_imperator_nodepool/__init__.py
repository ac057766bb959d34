"""kubesim-imperator-nodepool: Imperator's MachineNodePool custom resource and controller.

The controller keeps the nodes of a machine group's node pool labelled, annotated and
(optionally) tainted with their machine types and health, and reports the health in the
pool's status (upstream tenzen-y/imperator pkg/controllers/machinenodepool_controller.go).
The API group's keys and the CRDs' shared schema parts are shared with the Machine plugin; the
cluster prunes, defaults and validates both kinds against their schemas (kubesim.apiextensions).
"""

# meta.SetStatusCondition, part of this package's API since before kubesim.k8s held it
from kubesim.k8s.conditions import set_status_condition

from .controller import MachineNodePoolController
from .crd import CONDITIONS_SCHEMA, MACHINE_NODE_POOL_CRD, NODE_POOL_SCHEMA, QUANTITY_PATTERN
from .keys import (
    API_VERSION,
    CANNOT_USE_NODE_TAINTS,
    CONDITION_READY,
    GROUP,
    INJECT_CONTAINER_KEY,
    INJECTION_ENABLED,
    INJECTION_KEY,
    MACHINE_GROUP_KEY,
    MACHINE_STATUS_KEY,
    MACHINE_TYPE_KEY,
    MODE_MAINTENANCE,
    MODE_NOT_READY,
    MODE_READY,
    NODE_HEALTHY,
    NODE_MAINTENANCE,
    NODE_NOT_READY_TAINT,
    NODE_POOL_FINALIZER,
    NODE_UNHEALTHY,
    NVIDIA_GPU_FAMILY_KEY,
    NVIDIA_GPU_MACHINE_KEY,
    NVIDIA_GPU_PRODUCT_KEY,
    POD_ROLE_GUEST,
    POD_ROLE_KEY,
    POD_ROLE_RESERVATION,
    machine_type_key,
    node_pool_name,
)
from .nodes import (
    extract_key_value_from_taints,
    node_condition,
    schedule_machine_type_keys,
    taint_key_index,
)
from .ratelimit import RateLimiter
from .writer import WouldWrite, Writer

__all__ = [
    "API_VERSION",
    "CANNOT_USE_NODE_TAINTS",
    "CONDITIONS_SCHEMA",
    "CONDITION_READY",
    "GROUP",
    "INJECTION_ENABLED",
    "INJECTION_KEY",
    "INJECT_CONTAINER_KEY",
    "MACHINE_GROUP_KEY",
    "MACHINE_NODE_POOL_CRD",
    "MACHINE_STATUS_KEY",
    "MACHINE_TYPE_KEY",
    "MODE_MAINTENANCE",
    "MODE_NOT_READY",
    "MODE_READY",
    "NODE_HEALTHY",
    "NODE_MAINTENANCE",
    "NODE_NOT_READY_TAINT",
    "NODE_POOL_FINALIZER",
    "NODE_POOL_SCHEMA",
    "NODE_UNHEALTHY",
    "NVIDIA_GPU_FAMILY_KEY",
    "NVIDIA_GPU_MACHINE_KEY",
    "NVIDIA_GPU_PRODUCT_KEY",
    "POD_ROLE_GUEST",
    "POD_ROLE_KEY",
    "POD_ROLE_RESERVATION",
    "QUANTITY_PATTERN",
    "MachineNodePoolController",
    "RateLimiter",
    "WouldWrite",
    "Writer",
    "extract_key_value_from_taints",
    "machine_type_key",
    "node_condition",
    "node_pool_name",
    "schedule_machine_type_keys",
    "set_status_condition",
    "taint_key_index",
]
