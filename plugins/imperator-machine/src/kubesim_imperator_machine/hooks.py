"""kubesim hook implementations of the imperator-machine plugin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesim import Controller, Runtime, hookimpl
from kubesim.cluster import AdmissionRequest, AdmissionResponse, admission_rules

from .admission import admit_machine
from .controller import MachineController
from .crd import MACHINE_CRD


@hookimpl
def kubesim_custom_resources() -> Sequence[Mapping[str, Any]]:
    """The Machine CRD (imperator.tenzen-y.io/v1alpha1)."""
    return [MACHINE_CRD]


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The Machine controller."""
    return [MachineController]


@hookimpl
@admission_rules(kinds=[(MACHINE_CRD["spec"]["group"], "Machine")], operations=["CREATE", "UPDATE"],
                 phases=["validating"], subresources=[None])
def kubesim_admission(request: AdmissionRequest, runtime: Runtime | None) -> AdmissionResponse | None:
    """Upstream's validating webhook for Machines (the cluster applies the schema)."""
    return admit_machine(request, runtime)
