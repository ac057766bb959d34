"""The MachineNodePool CustomResourceDefinition and the schema parts the Machine CRD shares.

Transcribed from upstream config/crd/bases/imperator.tenzen-y.io_machinenodepools.yaml
(controller-gen v0.6.1 output of pkg/api/v1alpha1/machinenodepool_types.go), without the
descriptions: cluster-scoped, served and stored as v1alpha1, with the status subresource.
"""

from __future__ import annotations

from typing import Any

from .keys import GROUP

__all__ = ["CONDITIONS_SCHEMA", "MACHINE_NODE_POOL_CRD", "NODE_POOL_SCHEMA", "QUANTITY_PATTERN"]

QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)"
    r"|(\.[0-9]+))))?$"
)

NODE_POOL_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["machineType", "mode", "name"],
        "properties": {
            "machineType": {
                "type": "array",
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            },
            "mode": {"type": "string", "enum": ["ready", "maintenance"]},
            "name": {"type": "string"},
            "taint": {"type": "boolean"},
        },
    },
}
"""spec.nodePool of both Machine and MachineNodePool (type NodePool)."""

CONDITIONS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["lastTransitionTime", "message", "reason", "status", "type"],
        "properties": {
            "lastTransitionTime": {"type": "string", "format": "date-time"},
            "message": {"type": "string", "maxLength": 32768},
            "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
            "reason": {
                "type": "string",
                "maxLength": 1024,
                "minLength": 1,
                "pattern": r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            },
            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
            "type": {
                "type": "string",
                "maxLength": 316,
                "pattern": (
                    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
                ),
            },
        },
    },
}
"""status.conditions (metav1.Condition)."""

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["machineGroupName", "machineTypeStock", "nodePool"],
            "properties": {
                "machineGroupName": {"type": "string"},
                "machineTypeStock": {
                    "type": "array",
                    "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                },
                "nodePool": NODE_POOL_SCHEMA,
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "conditions": CONDITIONS_SCHEMA,
                "nodePool": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "condition": {"type": "string", "enum": ["Healthy", "Maintenance", "Unhealthy"]},
                            "name": {"type": "string"},
                        },
                    },
                },
            },
        },
    },
}

MACHINE_NODE_POOL_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"machinenodepools.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {
            "kind": "MachineNodePool",
            "listKind": "MachineNodePoolList",
            "plural": "machinenodepools",
            "singular": "machinenodepool",
        },
        "scope": "Cluster",
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": _SCHEMA},
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"jsonPath": ".spec.machineGroupName", "name": "Group", "type": "string"},
                    {"jsonPath": ".status.conditions[?(@.type=='Ready')].status", "name": "Ready", "type": "string"},
                ],
            }
        ],
    },
}

