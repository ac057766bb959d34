"""kubesim-statefulset: the apps/v1 StatefulSet controller.

`StatefulSetController` (PreSimulationController "statefulset") ports upstream's
pkg/controller/statefulset. Defaulting and validation of StatefulSets are the API server's, in
the core (kubesim.cluster.workload_defaults and kubesim.cluster.validation.apps).
"""

from .control import SetWriter, WouldWrite, compute_status, sync_statefulset
from .controller import StatefulSetController
from .identity import POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL
from .revisions import HASH_LABEL, hash_revision, revision_name

__all__ = [
    "HASH_LABEL",
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "SetWriter",
    "StatefulSetController",
    "WouldWrite",
    "compute_status",
    "hash_revision",
    "revision_name",
    "sync_statefulset",
]
