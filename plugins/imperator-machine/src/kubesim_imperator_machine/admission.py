"""Admission of Machine writes: the API server's schema handling, then the validating webhook.

Mutating phase: unknown fields are pruned (the API server's decoding). Validating phase:
schema validation (a 422 `Machine.imperator.tenzen-y.io "x" is invalid: ...`), then, for
creates and updates of the Machine itself, `validator.machine.imperator.tenzen-y.io`,
whose denial reads `admission webhook "validator.machine.imperator.tenzen-y.io" denied the
request: <upstream's message>`. The webhook reads the cluster (Machines of the same group,
Nodes) through the scenario's runtime, as upstream's reads it through the manager's client.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.controllers import Runtime
from kubesim_imperator_nodepool import API_VERSION, MACHINE_GROUP_KEY, admit_structural

from .crd import MACHINE_CRD
from .webhook import VALIDATOR, validate_machine

__all__ = ["admit_machine"]


def admit_machine(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Schema pruning and validation of Machines, then upstream's validating webhook.

    Without a runtime (no cluster to read) only the schema handling runs.
    """
    response = admit_structural(request, MACHINE_CRD)
    rt = request.resource
    if (
        request.phase != "validating"
        or (rt.group, rt.kind) != (MACHINE_CRD["spec"]["group"], "Machine")
        or request.operation not in ("CREATE", "UPDATE")
        or request.subresource is not None
        or not isinstance(request.object, dict)
    ):
        return response
    if runtime is None:
        return response
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
