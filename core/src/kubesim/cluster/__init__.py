"""kubesim.cluster: the embedded in-memory Kubernetes API that simulations run against.

Objects are plain dicts in Kubernetes JSON form. `Cluster` gives them API-server semantics
(uids, resourceVersions, admission, finalizers, garbage collection, watch events);
`LabelSelector`, `FieldSelector` and the quantity helpers are re-exported from
`kubesim.k8s`, where the Kubernetes primitives shared with controllers and the scheduler live.
"""

from kubesim.k8s.quantity import milli_value as cpu_milli
from kubesim.k8s.quantity import parse_quantity
from kubesim.k8s.quantity import value as to_int
from kubesim.k8s.selectors import FieldSelector, LabelSelector, Requirement

from .admission import AdmissionRequest, AdmissionResponse, AdmissionRules, Admitter, admission_rules
from .cluster import DEFAULT_NAMESPACES, Cluster
from .events import WatchEvent, WatchHandler
from .jsontree import copy_tree, load_document
from .patches import UnsupportedMediaType
from .precheck import check_new_object
from .registry import ResourceRegistry, ResourceType
from .strategic import PatchField, PatchSchema, strategic_merge_patch

__all__ = [
    "check_new_object",
    "DEFAULT_NAMESPACES",
    "AdmissionRequest",
    "AdmissionResponse",
    "AdmissionRules",
    "Admitter",
    "Cluster",
    "FieldSelector",
    "LabelSelector",
    "PatchField",
    "PatchSchema",
    "Requirement",
    "ResourceRegistry",
    "ResourceType",
    "UnsupportedMediaType",
    "WatchEvent",
    "WatchHandler",
    "admission_rules",
    "copy_tree",
    "cpu_milli",
    "load_document",
    "parse_quantity",
    "strategic_merge_patch",
    "to_int",
]
