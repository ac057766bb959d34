"""Simulated time: ticks, simSpec usage, metrics every metricsTick and submitters (issue 14).

The model of pfnet-research/k8s-cluster-simulator and its pod-migration fork; see
docs/simulated-time.md.
"""

from kubesim.simtime.metrics import collect
from kubesim.simtime.options import MetricsSink, SimTimeOptions, Until
from kubesim.simtime.submitters import (
    FROZEN_AT_ANNOTATION,
    DeleteEvent,
    FreezeUsageEvent,
    SubmitEvent,
    Submitter,
    SubmitterEvent,
    TerminateSubmitterEvent,
    Tick,
    UpdateEvent,
)

__all__ = [
    "FROZEN_AT_ANNOTATION",
    "DeleteEvent",
    "FreezeUsageEvent",
    "MetricsSink",
    "SimTimeOptions",
    "SubmitEvent",
    "Submitter",
    "SubmitterEvent",
    "TerminateSubmitterEvent",
    "Tick",
    "Until",
    "UpdateEvent",
    "collect",
]
