"""The scratch one scheduling cycle carries from schedulePod into its binding cycle.

Upstream passes these as arguments between the functions of pkg/scheduler/schedule_one.go
(state, podInfo, fwk, diagnosis, the feasible nodes); here one object holds them.
"""

from __future__ import annotations

import numpy as np

from .attempt import ScheduleAttempt
from .framework.cycle_state import CycleState
from .framework.diagnosis import Diagnosis
from .framework.pod_info import PodInfo
from .framework.runtime import Framework
from .framework.status import Status

__all__ = ["Cycle"]


class Cycle:
    """Scratch of one schedulePod run, kept while the pod waits at Permit."""

    __slots__ = ("state", "pod_info", "fw", "attempt", "diagnosis", "feasible", "error", "nominated_status")

    def __init__(self, state: CycleState, pod_info: PodInfo, fw: Framework, attempt: ScheduleAttempt) -> None:
        self.state = state
        self.pod_info = pod_info
        self.fw = fw
        self.attempt = attempt
        self.diagnosis = Diagnosis()
        self.feasible: np.ndarray = np.empty(0, dtype=np.intp)
        self.error: Status | None = None
        self.nominated_status: tuple[str, Status] | None = None
