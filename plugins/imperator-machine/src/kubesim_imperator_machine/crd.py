"""The Machine CustomResourceDefinition (imperator.tenzen-y.io/v1alpha1, cluster-scoped, status subresource).

Transcribed from upstream config/crd/bases/imperator.tenzen-y.io_machines.yaml (controller-gen
v0.6.1 output of pkg/api/v1alpha1/machine_types.go), without the descriptions.
"""

from __future__ import annotations

from typing import Any

from kubesim_imperator_nodepool import CONDITIONS_SCHEMA, GROUP, NODE_POOL_SCHEMA, QUANTITY_PATTERN

__all__ = ["MACHINE_CRD"]

_QUANTITY: dict[str, Any] = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "pattern": QUANTITY_PATTERN,
    "x-kubernetes-int-or-string": True,
}
_COUNT: dict[str, Any] = {"type": "integer", "format": "int32", "minimum": 0}

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["machineTypes", "nodePool"],
            "properties": {
                "machineTypes": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["available", "name", "spec"],
                        "properties": {
                            "available": _COUNT,
                            "name": {"type": "string"},
                            "spec": {
                                "type": "object",
                                "required": ["cpu", "memory"],
                                "properties": {
                                    "cpu": _QUANTITY,
                                    "gpu": {
                                        "type": "object",
                                        "properties": {
                                            "family": {"type": "string"},
                                            "machine": {"type": "string"},
                                            "num": _QUANTITY,
                                            "product": {"type": "string"},
                                            "type": {"type": "string"},
                                        },
                                    },
                                    "memory": _QUANTITY,
                                },
                            },
                        },
                    },
                },
                "nodePool": NODE_POOL_SCHEMA,
            },
        },
        "status": {
            "type": "object",
            "properties": {
                "availableMachines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "usage": {
                                "type": "object",
                                "required": ["maximum", "reserved", "used", "waiting"],
                                "properties": {"maximum": _COUNT, "reserved": _COUNT, "used": _COUNT,
                                               "waiting": _COUNT},
                            },
                        },
                    },
                },
                "conditions": CONDITIONS_SCHEMA,
            },
        },
    },
}

MACHINE_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"machines.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"kind": "Machine", "listKind": "MachineList", "plural": "machines", "singular": "machine"},
        "scope": "Cluster",
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": _SCHEMA},
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"jsonPath": ".metadata.labels['imperator\\.tenzen-y\\.io/machine-group']", "name": "Group",
                     "type": "string"},
                    {"jsonPath": ".status.conditions[?(@.type=='Ready')].status", "name": "Ready", "type": "string"},
                ],
            }
        ],
    },
}
