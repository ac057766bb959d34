"""kubesim hook implementations of the imperator-nodepool plugin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesim import Controller, hookimpl

from .controller import MachineNodePoolController
from .crd import MACHINE_NODE_POOL_CRD


@hookimpl
def kubesim_custom_resources() -> Sequence[Mapping[str, Any]]:
    """The MachineNodePool CRD (imperator.tenzen-y.io/v1alpha1)."""
    return [MACHINE_NODE_POOL_CRD]


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The MachineNodePool controller."""
    return [MachineNodePoolController]
