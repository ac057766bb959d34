"""The Machine webhooks: defaulting and validation (upstream pkg/api/v1alpha1/machine_webhook.go).

The validating webhook `validator.machine.imperator.tenzen-y.io` runs on create and update
and denies with the first problem it finds, in upstream's order and words:

1. ValidateLabel: the machine-group label is set and no other Machine has the same one;
2. ValidateNodeName: every node of spec.nodePool exists;
3. ValidateNodePoolMachineTypeName: machine type names are unique, every node pool entry has
   exactly one machine type, and it is one of spec.machineTypes;
4. ValidateGPUSpec: a GPU has a type, a non-negative number, and exactly one of family,
   product and machine.

The defaulting webhook `defaulter.machine.imperator.tenzen-y.io` (Default) only fills
status.availableMachines, which the API server drops on create and restores on update of a
resource with a status subresource; its net effect is none, and the Machine controller
initialises the list instead.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from kubesim.k8s.quantity import QuantityError
from kubesim.k8s.quantity import value as quantity_value
from kubesim_imperator_nodepool import MACHINE_GROUP_KEY

__all__ = [
    "DEFAULTER",
    "VALIDATOR",
    "default_machine",
    "validate_gpu_spec",
    "validate_label",
    "validate_machine",
    "validate_node_name",
    "validate_node_pool_machine_type_name",
]

DEFAULTER = "defaulter.machine.imperator.tenzen-y.io"
VALIDATOR = "validator.machine.imperator.tenzen-y.io"

Obj = Mapping[str, Any]


def default_machine(machine: Obj) -> dict[str, Any]:
    """A copy with one availableMachines entry per machine type appended (Machine.Default)."""
    out = copy.deepcopy(dict(machine))
    status = out.setdefault("status", {})
    entries = status.setdefault("availableMachines", [])
    for mt in (out.get("spec") or {}).get("machineTypes") or ():
        entries.append({"name": mt.get("name", ""), "usage": {
            "maximum": mt.get("available", 0), "reserved": 0, "used": 0, "waiting": 0}})
    return out


def validate_label(machine: Obj, machines: Iterable[Obj]) -> str | None:
    """ValidateLabel: `machines` are those labelled with the same machine group."""
    labels = (machine.get("metadata") or {}).get("labels") or {}
    if MACHINE_GROUP_KEY not in labels:
        return f"{MACHINE_GROUP_KEY} is must be set in .metadata.labels"
    name = (machine.get("metadata") or {}).get("name")
    for m in machines:
        if m["metadata"]["name"] != name:
            return "machineGroup label is duplicate, machineGroup must be set as unique"
    return None


def validate_node_name(machine: Obj, node_names: Iterable[str]) -> str | None:
    """ValidateNodeName: every node pool entry names an existing node."""
    existing = set(node_names)
    for np in (machine.get("spec") or {}).get("nodePool") or ():
        if np.get("name", "") not in existing:
            return f"failed to find node {np.get('name', '')} in Kubernetes Cluster"
    return None


def validate_node_pool_machine_type_name(machine: Obj) -> str | None:
    """ValidateNodePoolMachineTypeName."""
    spec = machine.get("spec") or {}
    names: set[str] = set()
    for mt in spec.get("machineTypes") or ():
        name = mt.get("name", "")
        if name in names:
            return f"machineType name <{name}> is duplicated"
        names.add(name)
    for np in spec.get("nodePool") or ():
        types = np.get("machineType") or []
        if len(types) != 1:  # only one machine type per node pool entry in v1alpha1
            return f"<{np.get('name', '')}>; can not set multiple machineType in nodePool.machineType"
        for mt in types:
            if mt.get("name", "") not in names:
                return f"{mt.get('name', '')} was not found in spec.machineTypes"
    return None


def validate_gpu_spec(machine: Obj) -> str | None:
    """ValidateGPUSpec."""
    for mt in (machine.get("spec") or {}).get("machineTypes") or ():
        gpu = (mt.get("spec") or {}).get("gpu")
        if gpu is None:
            continue
        if not gpu.get("type"):
            return "gpu.type must be set value"
        try:
            negative = quantity_value(gpu.get("num", 0)) < 0
        except QuantityError:
            negative = False  # the schema's pattern has rejected it already
        if negative:
            return "gpu.num must be set 0 or more value"
        selectors = [s for s in (gpu.get("family"), gpu.get("product"), gpu.get("machine")) if s]
        if not selectors:
            return "you must set a value for either gpu.family, gpu.product or gpu.machine"
        if len(selectors) > 1:
            return "only one GPU family, product or machine cane be set"
    return None


def validate_machine(machine: Obj, same_group: Iterable[Obj], node_names: Iterable[str]) -> str | None:
    """ValidateAllOperation: the first problem, or None when the Machine is admitted."""
    return (
        validate_label(machine, same_group)
        or validate_node_name(machine, node_names)
        or validate_node_pool_machine_type_name(machine)
        or validate_gpu_spec(machine)
    )
