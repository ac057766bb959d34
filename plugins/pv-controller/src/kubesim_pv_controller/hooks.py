"""kubesim hook implementations of the pv-controller plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl

from .controller import PersistentVolumeController


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """persistentvolume-binder: binds claims to volumes and provisions volumes for them."""
    return [PersistentVolumeController]
