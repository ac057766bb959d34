"""Hooks of the hello plugin: one CRD and one admission rule."""

from __future__ import annotations

from typing import Any

from kubesim import hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse

GREETING_SCHEMA: dict[str, Any] = {
    "openAPIV3Schema": {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"text": {"type": "string"}}}},
    }
}

GREETING_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "greetings.hello.example.com"},
    "spec": {
        "group": "hello.example.com",
        "names": {"kind": "Greeting", "plural": "greetings"},
        "scope": "Namespaced",
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": GREETING_SCHEMA}],
    },
}


@hookimpl
def kubesim_custom_resources() -> list[dict[str, Any]]:
    return [GREETING_CRD]


@hookimpl
def kubesim_admission(request: AdmissionRequest) -> AdmissionResponse | None:
    """Deny Greetings whose spec.text is not polite."""
    if request.phase != "validating" or request.resource.kind != "Greeting" or request.object is None:
        return None
    text = str(request.object.get("spec", {}).get("text", ""))
    if "please" not in text:
        return AdmissionResponse(allowed=False, message=f"greeting {text!r} must say please")
    return None
