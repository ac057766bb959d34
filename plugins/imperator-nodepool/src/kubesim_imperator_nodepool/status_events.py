"""Status writes of imperator's custom resources, recorded in the timeline by the controllers.

The engine's timeline leaves status-subresource writes out. A Machine's and a
MachineNodePool's status is what a user of Imperator looks at (available machines, node
health), so the controllers record each status write that changed something as a `patch`
event themselves: a JSON merge patch of the status (`{"status": {...}}`) with the object
after the write as its result.
"""

from __future__ import annotations

import json
from typing import Any

import json_merge_patch
from kubesim.api import ObjectMeta, PatchOperation, PatchOperationResult, TypeMeta
from kubesim.controllers import ControllerContext

__all__ = ["record_status_write"]


def record_status_write(ctx: ControllerContext, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Record a status write of `before` -> `after` as the controller's patch event (no-op without a timeline)."""
    if ctx.timeline is None:
        return
    patch = json_merge_patch.create_patch({"status": before.get("status") or {}}, {"status": after.get("status") or {}})
    meta = after.get("metadata") or {}
    op = PatchOperation(
        TypeMeta(after.get("apiVersion", ""), after.get("kind", "")),
        ObjectMeta(meta.get("name", ""), meta.get("namespace"), meta.get("uid")),
        patch=json.dumps(patch, separators=(",", ":"), sort_keys=True),
        patch_type="application/merge-patch+json",
    )
    ctx.timeline.record(actor=ctx.name, patch=PatchOperationResult(op, after))
