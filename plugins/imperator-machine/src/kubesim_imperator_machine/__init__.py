"""kubesim-imperator-machine: Imperator's Machine custom resource, webhooks and controller.

A Machine lists machine types (cpu, memory, GPUs) with how many of each are available, and
the nodes that provide them (node pools). The controller (upstream tenzen-y/imperator
pkg/controllers/machine_controller.go) keeps a MachineNodePool, one reservation
StatefulSet and Service per machine type, and the Machine's status.availableMachines.
"""

from .admission import admit_machine
from .affinity import affinity_match_expressions, gpu_selector, machine_type_resources, tolerations
from .controller import MachineController, desired_replicas, typed_node_pool
from .crd import MACHINE_CRD
from .names import (
    DEFAULT_CORE_NAMESPACE,
    NAMESPACE_ENV,
    core_namespace,
    machine_group_of,
    reservation_labels,
    reservation_name,
)
from .ownership import AlreadyOwned, controller_of, set_controller_reference
from .quantities import QuantityError, canonical_quantity, quantity_value
from .reservation import SLEEPER_IMAGE, generate_service, generate_statefulset, sleeper_container
from .usage import count_reserved, count_unscheduled, count_used_and_waiting, pod_condition_type_map
from .webhook import DEFAULTER, VALIDATOR, default_machine, validate_machine

__all__ = [
    "DEFAULTER",
    "DEFAULT_CORE_NAMESPACE",
    "MACHINE_CRD",
    "NAMESPACE_ENV",
    "SLEEPER_IMAGE",
    "VALIDATOR",
    "AlreadyOwned",
    "MachineController",
    "QuantityError",
    "admit_machine",
    "affinity_match_expressions",
    "canonical_quantity",
    "controller_of",
    "core_namespace",
    "count_reserved",
    "count_unscheduled",
    "count_used_and_waiting",
    "default_machine",
    "desired_replicas",
    "generate_service",
    "generate_statefulset",
    "gpu_selector",
    "machine_group_of",
    "machine_type_resources",
    "pod_condition_type_map",
    "quantity_value",
    "reservation_labels",
    "reservation_name",
    "set_controller_reference",
    "sleeper_container",
    "tolerations",
    "typed_node_pool",
    "validate_machine",
]
