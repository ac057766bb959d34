"""kubesim hook implementations of the pod-migration plugin."""

from __future__ import annotations

__all__: list[str] = []
