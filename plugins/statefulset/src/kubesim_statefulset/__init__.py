"""kubesim-statefulset: the apps/v1 StatefulSet controller and the API server's StatefulSet rules.

`StatefulSetController` (PreSimulationController "statefulset") ports upstream's
pkg/controller/statefulset; `admit_statefulset` (registered through kubesim_admission)
defaults and validates StatefulSets with the real API server's messages.
"""

from .admission import admit_statefulset
from .control import SetWriter, WouldWrite, compute_status, sync_statefulset
from .controller import StatefulSetController
from .defaults import default_statefulset
from .identity import POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL
from .revisions import HASH_LABEL, hash_revision, revision_name
from .validation import validate_statefulset, validate_statefulset_update

__all__ = [
    "HASH_LABEL",
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "SetWriter",
    "StatefulSetController",
    "WouldWrite",
    "admit_statefulset",
    "compute_status",
    "default_statefulset",
    "hash_revision",
    "revision_name",
    "sync_statefulset",
    "validate_statefulset",
    "validate_statefulset_update",
]
