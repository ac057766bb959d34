"""kubesim-pod-injector: Imperator's pod resource injector, a mutating admission webhook.

Guest pods in namespaces labelled `imperator.tenzen.io/inject-resource: enabled` get the
resources, node affinity and tolerations of their Machine's machine type (upstream
tenzen-y/imperator pkg/api/v1alpha1/pod_resource_injector.go), through the
`kubesim_admission` hook as a JSON patch.
"""

from .admission import WEBHOOK_NAME, WEBHOOK_URL, admit_pod
from .injector import (
    Denied,
    WebhookCallFailed,
    find_machine_type,
    inject_affinity,
    inject_resources,
    inject_to_pod,
    inject_tolerations,
    injecting_container_index,
    requires_injection,
)

__all__ = [
    "WEBHOOK_NAME",
    "WEBHOOK_URL",
    "Denied",
    "WebhookCallFailed",
    "admit_pod",
    "find_machine_type",
    "inject_affinity",
    "inject_resources",
    "inject_to_pod",
    "inject_tolerations",
    "injecting_container_index",
    "requires_injection",
]
