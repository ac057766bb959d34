"""`kubesim import`: a cluster's objects (live, or from files) as a Scenario that recreates
its scheduling state: the cluster at step 0, pending pods at step 1."""

from __future__ import annotations

from .cleaning import OWNER_ANNOTATION, PAUSED_ANNOTATION, clean_object, owner_of
from .files import IMPORT_LIMITS, objects_from_files, read_objects
from .kinds import IMPORTED_KINDS
from .live import KubeconfigError, LiveImportError, objects_from_cluster, read_cluster
from .scenario import WORKLOAD_POD_MODES, scenario_from_objects
from .selection import Selection, select_objects

__all__ = [
    "IMPORTED_KINDS",
    "IMPORT_LIMITS",
    "OWNER_ANNOTATION",
    "PAUSED_ANNOTATION",
    "WORKLOAD_POD_MODES",
    "KubeconfigError",
    "LiveImportError",
    "Selection",
    "clean_object",
    "objects_from_cluster",
    "objects_from_files",
    "owner_of",
    "read_cluster",
    "read_objects",
    "scenario_from_objects",
    "select_objects",
]
