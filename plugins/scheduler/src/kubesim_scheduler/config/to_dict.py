"""A configuration back to its v1 JSON form (what `kube-scheduler --write-config-to` prints)."""

from __future__ import annotations

from typing import Any

from kubesim_scheduler.config.converter import unstructure
from kubesim_scheduler.config.types import API_VERSION, KIND, KubeSchedulerConfiguration

__all__ = ["to_dict"]


def to_dict(config: KubeSchedulerConfiguration) -> dict[str, Any]:
    """The configuration as a JSON-ready dict with apiVersion and kind; typed args carry theirs."""
    body: dict[str, Any] = unstructure(config)
    return {"apiVersion": API_VERSION, "kind": KIND, **body}
