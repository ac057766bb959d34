"""Writes of a reconcile, or (dry run) the question whether it would write anything at all.

The controllers' waiters run a reconcile in dry run: every write is compared with what is
stored and raises `WouldWrite` when it would change something, so "settled" means "a
reconcile now would leave the cluster as it is".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesim.controllers import Client

__all__ = ["WouldWrite", "Writer"]

_VOLATILE = ("resourceVersion", "generation", "managedFields")

Normalizer = Callable[[dict[str, Any]], dict[str, Any]]


class WouldWrite(Exception):
    """A dry-run reconcile reached a write that would change the cluster."""


def _comparable(obj: dict[str, Any]) -> dict[str, Any]:
    out = dict(obj)
    out["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _VOLATILE}
    return out


def _describe(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{obj.get('kind')} {where}{meta.get('name')}"


class Writer:
    """Creates and updates through `client`, or in dry run only checks whether they would change anything.

    `normalize` maps an object about to be updated to what the API server would store (its
    defaulting), so that an update the API server would find unchanged is no write.
    """

    def __init__(self, client: Client, *, dry_run: bool = False,
                 normalize: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.client = client
        self.dry_run = dry_run
        self._normalize = normalize

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        """POST the object; in dry run every create is a write."""
        if self.dry_run:
            raise WouldWrite(f"create {_describe(obj)}")
        return self.client.create(obj)

    def update(self, obj: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """PUT the object; returns the stored object and whether it changed."""
        if self.dry_run:
            stored = self.client.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"],
                                     obj["metadata"].get("namespace"))
            prospective = self._normalize(obj) if self._normalize is not None else obj
            if _comparable(prospective) != _comparable(stored):
                raise WouldWrite(f"update {_describe(obj)}")
            return obj, False
        before = obj["metadata"].get("resourceVersion")
        stored = self.client.update(obj)
        return stored, stored["metadata"].get("resourceVersion") != before

    def update_status(self, obj: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """PUT the object's status subresource; returns the stored object and whether it changed."""
        if self.dry_run:
            stored = self.client.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"],
                                     obj["metadata"].get("namespace"))
            if (obj.get("status") or {}) != (stored.get("status") or {}):
                raise WouldWrite(f"update the status of {_describe(obj)}")
            return obj, False
        before = obj["metadata"].get("resourceVersion")
        stored = self.client.update_status(obj)
        return stored, stored["metadata"].get("resourceVersion") != before
