"""Admission of Machine writes: the API server's schema handling, then the validating webhook.

Mutating phase: unknown fields are pruned (the API server's decoding). Validating phase:
schema validation (a 422 `Machine.imperator.tenzen-y.io "x" is invalid: ...`), then, for
creates and updates of the Machine itself, `validator.machine.imperator.tenzen-y.io`,
whose denial reads `admission webhook "validator.machine.imperator.tenzen-y.io" denied the
request: <upstream's message>`. The webhook reads the cluster (Machines of the same group,
Nodes) while the Machine controller runs; see `kubesim_imperator_nodepool.WebhookServer`.
"""

from __future__ import annotations

from typing import Any

from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim_imperator_nodepool import API_VERSION, MACHINE_GROUP_KEY, WebhookServer, admit_structural

from .crd import MACHINE_CRD
from .webhook import VALIDATOR, validate_machine

__all__ = ["MACHINE_WEBHOOKS", "admit_machine"]

MACHINE_WEBHOOKS = WebhookServer("imperator-machine")
"""The cluster the Machine webhooks read (bound by the Machine controller)."""


def admit_machine(request: AdmissionRequest) -> AdmissionResponse | None:
    """Schema pruning and validation of Machines, then upstream's validating webhook."""
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
    cluster = MACHINE_WEBHOOKS.cluster
    if cluster is None:
        return None
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
