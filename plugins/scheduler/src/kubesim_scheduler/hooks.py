"""kubesim hook implementations of the scheduler plugin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import click
from kubesim import Runtime, hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse, admission_rules

from .controller import SchedulerController
from .dra_admission import ADMITTED_KINDS, admit_device_selectors
from .framework.interface import Plugin
from .options import run_options
from .resourceclaim_controller import ResourceClaimController
from .plugins.registry import in_tree_registry
from .whatif import WhatIfScheduler


@hookimpl
def kubesim_scheduler_plugins() -> Mapping[str, type[Plugin]]:
    """kube-scheduler's in-tree plugins, under their upstream names."""
    return in_tree_registry()


@hookimpl
def kubesim_controllers() -> Sequence[type[SchedulerController] | type[ResourceClaimController]]:
    """The scheduler, to be named in a scenario's simulationControllers, and the resource-claim
    controller (kube-controller-manager's, a PreSimulationController by default)."""
    return [SchedulerController, ResourceClaimController]


@hookimpl
@admission_rules(kinds=ADMITTED_KINDS, operations=["CREATE", "UPDATE"], phases=["validating"], subresources=[None])
def kubesim_admission(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """CEL device selectors compile (DeviceClass, ResourceClaim, ResourceClaimTemplate)."""
    return admit_device_selectors(request)


@hookimpl
def kubesim_run_options() -> Sequence[click.Option]:
    """--scheduler-config, --detail and --annotations for `kubesim run`."""
    return run_options()


@hookimpl
def kubesim_scheduling_simulator(objects: Sequence[Mapping[str, Any]], options: Mapping[str, Any],
                                 plugins: Mapping[str, type[Plugin]], extenders: Sequence[Any],
                                 seed: int) -> WhatIfScheduler:
    """The scheduler `kubesim capacity` asks: the same profiles and plugins as `kubesim run`."""
    return WhatIfScheduler(objects, options, plugins or in_tree_registry(), extenders, seed)
