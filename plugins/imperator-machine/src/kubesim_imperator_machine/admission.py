"""Admission of Machine writes: upstream's validating webhook.

The schema is the cluster's part (kubesim.apiextensions prunes, defaults and validates the
Machine against its CRD before admission). For creates and updates of the Machine itself,
`validator.machine.imperator.tenzen-y.io` runs, whose denial reads `admission webhook "validator.machine.imperator.tenzen-y.io" denied the
request: <upstream's message>`. The webhook reads the cluster (Machines of the same group,
Nodes) through the scenario's runtime, as upstream's reads it through the manager's client.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.controllers import Runtime
from kubesim_imperator_nodepool import API_VERSION, MACHINE_GROUP_KEY

from .crd import MACHINE_CRD
from .webhook import VALIDATOR, validate_machine

__all__ = ["admit_machine"]


def admit_machine(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Upstream's validating webhook for Machines; nothing without a runtime (no cluster to read)."""
    rt = request.resource
    if (
        request.phase != "validating"
        or (rt.group, rt.kind) != (MACHINE_CRD["spec"]["group"], "Machine")
        or request.operation not in ("CREATE", "UPDATE")
        or request.subresource is not None
        or not isinstance(request.object, dict)
    ):
        return None
    if runtime is None:
        return None
    cluster = runtime.reader
    machine: dict[str, Any] = request.object
    labels = (machine.get("metadata") or {}).get("labels") or {}
    same_group = []
    if MACHINE_GROUP_KEY in labels:
        same_group = cluster.list(API_VERSION, "Machine",
                                  label_selector={"matchLabels": {MACHINE_GROUP_KEY: labels[MACHINE_GROUP_KEY]}})
    nodes = [n["metadata"]["name"] for n in cluster.list("v1", "Node")]
    message = validate_machine(machine, same_group, nodes)
    if message is not None:
        return AdmissionResponse(allowed=False, message=message, name=VALIDATOR)
    return None
