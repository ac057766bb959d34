"""kubesim hook implementations of the fake DRA driver."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import hookimpl

from .driver import FakeDraDriver


@hookimpl
def kubesim_controllers() -> Sequence[type[FakeDraDriver]]:
    """The driver's controller (a PreSimulationController by default)."""
    return [FakeDraDriver]
