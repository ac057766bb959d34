"""The MutatingWebhookConfiguration entry `mutator.pod.imperator.tenzen-y.io`, as a kubesim admitter.

Upstream registers the injector for pod CREATE and UPDATE (not for subresources such as
pods/status or pods/binding) with failurePolicy Fail and a namespaceSelector
`imperator.tenzen.io/inject-resource In (enabled)` (config/webhook/manifests.yaml and
patches/pod_injector_patch.yaml). The handler reads the cluster through the controller
manager's cached client, here through the scenario's runtime (`runtime.reader`). Its answer comes back as a JSON patch (AdmissionResponse(patch=[...])),
a denial, or a failed call.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
from kubesim.cluster import AdmissionRequest, AdmissionResponse
from kubesim.controllers import ClusterReader, Runtime
from kubesim.errors import ApiError, NotFound
from kubesim_imperator_nodepool import (
    API_VERSION,
    INJECTION_ENABLED,
    INJECTION_KEY,
    MACHINE_GROUP_KEY,
)

from .injector import Denied, WebhookCallFailed, inject_to_pod, requires_injection

__all__ = ["WEBHOOK_NAME", "WEBHOOK_URL", "admit_pod"]

WEBHOOK_NAME = "mutator.pod.imperator.tenzen-y.io"
WEBHOOK_URL = "https://imperator-webhook-service.imperator-system.svc:443/mutate-core-v1-pod?timeout=10s"
_MAX_GENERATED_BASE = 63 - 5  # names.SimpleNameGenerator truncates the base to leave room for 5 characters


def _name_seen_by_webhook(pod: dict[str, Any], operation: str) -> str:
    """The pod's name as the webhook gets it: "" on a create with generateName.

    The real API server generates the name after mutating admission; kubesim's cluster has
    done so already, so a generated name (generateName plus five characters) is hidden again.
    """
    meta = pod.get("metadata") or {}
    name, prefix = str(meta.get("name") or ""), meta.get("generateName")
    if operation == "CREATE" and prefix:
        base = str(prefix)[:_MAX_GENERATED_BASE]
        if name.startswith(base) and len(name) == len(base) + 5:
            return ""
    return name


def _exists(cluster: ClusterReader, name: str, namespace: str | None) -> bool:
    """Whether the cached client's Get finds the pod (an update, or a create of a taken name)."""
    try:
        cluster.get("v1", "Pod", name, namespace, copy=False)
    except NotFound:
        return False
    return True


def admit_pod(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Inject a guest pod's resources, node affinity and tolerations, or deny it."""
    rt = request.resource
    if (
        request.phase != "mutating"
        or (rt.group, rt.kind) != ("", "Pod")
        or request.subresource is not None
        or request.operation not in ("CREATE", "UPDATE")
        or not isinstance(request.object, dict)
    ):
        return None
    if runtime is None:
        return None
    cluster = runtime.reader
    try:
        ns = cluster.get("v1", "Namespace", request.namespace or "default", copy=False)  # read-only
    except NotFound:
        return None
    if (ns["metadata"].get("labels") or {}).get(INJECTION_KEY) != INJECTION_ENABLED:
        return None  # the namespaceSelector does not match: the webhook is not called
    pod: dict[str, Any] = request.object
    if not requires_injection(pod):
        return None
    name = _name_seen_by_webhook(pod, request.operation)
    try:
        if name and _exists(cluster, name, request.namespace):  # replacePods
            raise Denied("it is forbidden to update the Pod")
        group = pod["metadata"]["labels"][MACHINE_GROUP_KEY]
        machines = cluster.list(API_VERSION, "Machine", label_selector={"matchLabels": {MACHINE_GROUP_KEY: group}})
        mutated = inject_to_pod(pod, name, machines)
    except Denied as exc:
        return AdmissionResponse(allowed=False, message=str(exc), name=WEBHOOK_NAME)
    except WebhookCallFailed:
        raise ApiError(f'Internal error occurred: failed calling webhook "{WEBHOOK_NAME}": failed to call webhook: '
                       f'Post "{WEBHOOK_URL}": EOF') from None
    patch = jsonpatch.make_patch(pod, mutated).patch
    return AdmissionResponse(patch=patch, name=WEBHOOK_NAME) if patch else None
