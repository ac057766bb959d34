"""Submitters: plugins that submit, update, delete and freeze pods as simulated time passes.

The model of k8s-cluster-simulator's `pkg/submitter/submitter.go` (pfnet-research, with the
pod-migration fork's FreezeUsageEvent): every tick each submitter gets the clock, the nodes, the
pods and the last metrics record, and answers with events. Plugins provide submitters through
the `kubesim_submitters(runtime)` hook; the engine calls them every tick in the order of their
names, after the scenario's operations of that step and before the scheduler runs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import attrs

from kubesim.simtime.simspec import FROZEN_AT_ANNOTATION

__all__ = [
    "FROZEN_AT_ANNOTATION",
    "DeleteEvent",
    "FreezeUsageEvent",
    "SubmitEvent",
    "Submitter",
    "SubmitterEvent",
    "TerminateSubmitterEvent",
    "Tick",
    "UpdateEvent",
]

@attrs.frozen
class Tick:
    """What a submitter sees at one tick. Everything in it is read-only."""

    clock: datetime
    """The simulated time of this tick."""
    step: int
    """The MajorStep of this tick."""
    nodes: Sequence[Mapping[str, Any]]
    """The cluster's Node objects, sorted by name."""
    pods: Sequence[Mapping[str, Any]]
    """Every Pod (pending ones too), sorted by namespace and name."""
    metrics: Mapping[str, Any] | None
    """The last metrics record (the shape of one JSON line of the metrics output); None before the first."""
    rng: random.Random
    """Random numbers seeded from --seed and the submitter's name."""


@attrs.frozen
class SubmitEvent:
    """Create a pod (written as actor `submitter:<name>`; namespace defaults to "default")."""

    pod: Mapping[str, Any]


@attrs.frozen
class DeleteEvent:
    """Delete a pod: a pending one is removed, a bound one terminates with its grace period."""

    name: str
    namespace: str = "default"


@attrs.frozen
class UpdateEvent:
    """Replace a pending pod by `new_pod` (bound pods cannot be updated: an error)."""

    name: str
    namespace: str
    new_pod: Mapping[str, Any]


@attrs.frozen
class FreezeUsageEvent:
    """Freeze a pod's usage at its current executed-second (annotation FROZEN_AT_ANNOTATION)."""

    name: str
    namespace: str = "default"


@attrs.frozen
class TerminateSubmitterEvent:
    """The submitter is done: it is not called again."""


SubmitterEvent = SubmitEvent | DeleteEvent | UpdateEvent | FreezeUsageEvent | TerminateSubmitterEvent
"""Any event a submitter may return."""


@runtime_checkable
class Submitter(Protocol):
    """A source of pods over simulated time. `submit` must not block and must be deterministic
    given the tick (use `tick.rng` for randomness)."""

    @property
    def name(self) -> str:
        """Unique name; submitters are called in the order of their names."""
        ...

    def submit(self, tick: Tick) -> Sequence[SubmitterEvent]:
        """The events of this tick (an empty sequence for none)."""
        ...
