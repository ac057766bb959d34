"""The field labels a list's fieldSelector may use, per kind, as kube-apiserver converts them.

metadata.name and metadata.namespace work for every kind (runtime.
DefaultMetaV1FieldSelectorConversion); the others are each kind's AddFieldLabelConversionFunc
(pkg/apis/core/v1/conversion.go, pkg/apis/apps/v1/conversion.go, pkg/apis/batch/v1/conversion.go,
pkg/apis/certificates/v1/conversion.go). Anything else is refused with upstream's
"field label not supported: X" (400).
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesim.errors import BadRequest
from kubesim.k8s.selectors import FieldSelector

__all__ = ["checked_field_selector"]

_COMMON = frozenset({"metadata.name", "metadata.namespace"})

_BY_KIND: Mapping[tuple[str, str], frozenset[str]] = {
    ("", "Pod"): frozenset({
        "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}),
    ("", "Node"): frozenset({"spec.unschedulable"}),
    ("", "Event"): frozenset({
        "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
        "reason", "reportingComponent", "source", "type"}),
    ("", "Namespace"): frozenset({"status.phase"}),
    ("", "Secret"): frozenset({"type"}),
    ("", "Service"): frozenset({"spec.clusterIP", "spec.type"}),
    ("", "ReplicationController"): frozenset({"status.replicas"}),
    ("apps", "ReplicaSet"): frozenset({"status.replicas"}),
    ("batch", "Job"): frozenset({"status.successful"}),
    ("certificates.k8s.io", "CertificateSigningRequest"): frozenset({"spec.signerName"}),
}

_PATHS: Mapping[tuple[str, str, str], str] = {("", "Event", "source"): "source.component"}
"""Field labels whose value lives at another path (events' `source` is source.component)."""


def checked_field_selector(group: str, kind: str, text: str) -> FieldSelector:
    """The parsed selector (400 for bad syntax), with every label checked for the kind and
    mapped to the field it selects on."""
    selector = FieldSelector.parse(text)
    allowed = _COMMON | _BY_KIND.get((group, kind), frozenset())
    terms = []
    for path, equal, value in selector.terms:
        label = ".".join(path)
        if label not in allowed:
            raise BadRequest(f"field label not supported: {label}")
        target = _PATHS.get((group, kind, label))
        terms.append((tuple(target.split(".")) if target else path, equal, value))
    return FieldSelector(tuple(terms))
