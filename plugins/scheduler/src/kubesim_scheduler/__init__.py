"""kubesim-scheduler: a port of kube-scheduler v1.34's framework for kubesim.

The public API is the plugin API (`kubesim_scheduler.api`, re-exported here) plus
`Scheduler`, the runtime's entry point; `kubesim_scheduler.helper` holds code shared by
plugins and `kubesim_scheduler.testing` builds frameworks for plugin unit tests (see
docs/scheduler-plugin-api.md). Everything else is the runtime and may change.
"""

from . import api
from .api import *  # noqa: F403 - the package re-exports the plugin API
from .scheduler import Scheduler

# runtime names kept importable from here (not in __all__: they are not the stable API)
from .attempt import PASSED as PASSED, ScheduleAttempt as ScheduleAttempt  # isort: skip
from .framework import FitError as FitError, Framework as Framework, NodeTable as NodeTable  # isort: skip
from .framework import ProfileConfig as ProfileConfig  # isort: skip
from .plugins import in_tree_registry as in_tree_registry  # isort: skip
from .scheduler import default_profile as default_profile  # isort: skip
from .scheduler import num_feasible_nodes_to_find as num_feasible_nodes_to_find  # isort: skip
from .scheduling_queue import SchedulingQueue as SchedulingQueue  # isort: skip

__all__ = [*api.__all__, "Scheduler"]
