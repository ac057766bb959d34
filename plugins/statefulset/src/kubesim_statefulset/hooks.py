"""kubesim hook implementations of the StatefulSet plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl

from .controller import StatefulSetController


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The StatefulSet controller."""
    return [StatefulSetController]
