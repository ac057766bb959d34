"""kubesim hook implementations of the pv-controller plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl

from .controller import PersistentVolumeController
from .ephemeral import EphemeralVolumeController


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """persistentvolume-binder (binds claims to volumes, provisions volumes for them) and
    ephemeral-volume (creates the claims of generic ephemeral volumes)."""
    return [PersistentVolumeController, EphemeralVolumeController]
