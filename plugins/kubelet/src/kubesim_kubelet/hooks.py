"""kubesim hook implementations of the kubelet plugin."""

from __future__ import annotations

from collections.abc import Sequence

from kubesim import Controller, hookimpl

from .kubelet import KubeletController
from .podgc import PodGCController


@hookimpl
def kubesim_controllers() -> Sequence[type[Controller]]:
    """The kubelet (nodes and pod lifecycle) and pod-gc (pods of deleted nodes)."""
    return [KubeletController, PodGCController]
