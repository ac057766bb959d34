"""The reservation StatefulSet and Service of a machine type (upstream pkg/controllers/util/resource.go).

`generate_statefulset` and `generate_service` fill in an object the way upstream's
GenerateStatefulSet / GenerateService do inside CreateOrUpdate: they overwrite the fields
they own (labels, selector, serviceName, replicas, the template's labels, tolerations,
affinity and containers; the Service's labels, selector, ports and type) and leave the rest
as the API server stored it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .affinity import affinity_match_expressions, machine_type_resources, tolerations
from .names import reservation_labels, reservation_name

__all__ = ["SLEEPER_IMAGE", "generate_service", "generate_statefulset", "sleeper_container"]

SLEEPER_IMAGE = "alpine:3.15.0"


def sleeper_container() -> dict[str, Any]:
    """The reservation pod's only container (GenerateSleeperContainer)."""
    return {"name": "sleeper", "image": SLEEPER_IMAGE, "command": ["sleep"], "args": ["infinity"]}


def generate_statefulset(machine_type: Mapping[str, Any], machine_group: str, replicas: int,
                         sts: dict[str, Any]) -> None:
    """Set what the reservation StatefulSet of `machine_type` must have, in place."""
    name = str(machine_type.get("name", ""))
    labels = reservation_labels(machine_group, name)
    sts.setdefault("metadata", {})["labels"] = dict(labels)
    spec = sts.setdefault("spec", {})
    spec["selector"] = {"matchLabels": dict(labels)}
    spec["serviceName"] = reservation_name(machine_group, name)
    spec["replicas"] = replicas
    template = spec.setdefault("template", {})
    template.setdefault("metadata", {})["labels"] = dict(labels)
    pod_spec = template.setdefault("spec", {})
    pod_spec["tolerations"] = tolerations(name, machine_group)
    pod_spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": affinity_match_expressions(machine_type, machine_group)}]}}}
    resources = machine_type_resources(machine_type)
    container = sleeper_container()
    container["resources"] = {"requests": dict(resources), "limits": dict(resources)}
    pod_spec["containers"] = [container]


def generate_service(machine_type_name: str, machine_group: str, svc: dict[str, Any]) -> None:
    """Set what the reservation Service of a machine type must have, in place."""
    labels = reservation_labels(machine_group, machine_type_name)
    svc.setdefault("metadata", {})["labels"] = dict(labels)
    spec = svc.setdefault("spec", {})
    spec["selector"] = dict(labels)
    spec["ports"] = [{"port": 80}]
    spec["type"] = "ClusterIP"
