"""Names and labels of the objects the Machine controller makes (upstream pkg/controllers/util/{name,label}.go).

The reservation StatefulSet and Service are named `<machine group>-<machine type>`
(GenerateReservationResourceName); the design document's `<machine type>-<machine group>`
is not what the implementation does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from kubesim_imperator_nodepool import (
    MACHINE_GROUP_KEY,
    MACHINE_TYPE_KEY,
    POD_ROLE_KEY,
    POD_ROLE_RESERVATION,
)

__all__ = [
    "DEFAULT_CORE_NAMESPACE",
    "NAMESPACE_ENV",
    "core_namespace",
    "machine_group_of",
    "reservation_labels",
    "reservation_name",
]

NAMESPACE_ENV = "IMPERATOR_CORE_NAMESPACE"
DEFAULT_CORE_NAMESPACE = "imperator-system"


def core_namespace() -> str:
    """Where reservation StatefulSets and Services go: $IMPERATOR_CORE_NAMESPACE or imperator-system."""
    return os.environ.get(NAMESPACE_ENV, DEFAULT_CORE_NAMESPACE)


def machine_group_of(labels: Mapping[str, str] | None) -> str:
    """A Machine's group: its machine-group label, "" without one (util.GetMachineGroup)."""
    return (labels or {}).get(MACHINE_GROUP_KEY, "")


def reservation_name(machine_group: str, machine_type: str) -> str:
    """`<machine group>-<machine type>` (util.GenerateReservationResourceName)."""
    return f"{machine_group}-{machine_type}"


def reservation_labels(machine_group: str, machine_type: str) -> dict[str, str]:
    """Labels of reservation StatefulSets, Services and pods (util.GenerateReservationResourceLabel)."""
    return {MACHINE_GROUP_KEY: machine_group, MACHINE_TYPE_KEY: machine_type, POD_ROLE_KEY: POD_ROLE_RESERVATION}
