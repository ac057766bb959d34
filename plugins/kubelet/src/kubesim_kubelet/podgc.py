"""Pod garbage collection of pods bound to nodes that no longer exist.

Upstream: pkg/controller/podgc/gc_controller.go gcOrphaned and
markFailedAndDeletePodWithCondition: the pod is marked Failed with a DisruptionTarget
condition (reason DeletionByPodGC) and force-deleted (grace period 0). Upstream waits a
40 s quarantine before deciding that a node is really gone; here the decision is immediate
in simulated time, since a node that a scenario deletes is gone for certain.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import FieldSelector, WatchEvent
from kubesim.errors import ApiError, Conflict, NotFound

__all__ = ["PodGCController"]


class PodGCController(ReconcileController):
    """Force-deletes pods whose spec.nodeName names a node that does not exist."""

    name = "pod-gc"
    watches = (("v1", "Pod"), ("v1", "Node"))

    def __init__(self, runtime: Runtime) -> None:
        self._to_verify: dict[Hashable, None] = {}
        super().__init__(runtime)

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        if obj.get("kind") == "Pod" and (obj.get("spec") or {}).get("nodeName"):
            return self._note(self.keys_for_object(obj))
        return []

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        obj = event.object
        if obj.get("kind") == "Node":
            if event.type != "DELETED":
                return []
            name = (obj.get("metadata") or {}).get("name", "")
            pods = self.reader.list("v1", "Pod", field_selector=FieldSelector.equals("spec.nodeName", name))
            return self._note([k for pod in pods for k in self.keys_for_object(pod)])
        if event.type == "DELETED" or not (obj.get("spec") or {}).get("nodeName"):
            return []
        return self._note(self.keys_for_object(obj))

    def _note(self, keys: Iterable[Hashable]) -> list[Hashable]:
        out = list(keys)
        self._to_verify.update(dict.fromkeys(out))
        return out

    def _orphaned(self, pod: dict[str, Any]) -> bool:
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return False
        try:
            self.reader.get("v1", "Node", node_name, copy=False)  # only whether it exists
        except NotFound:
            return True
        return False

    def reconcile(self, key: Hashable) -> None:
        namespace, name = cast(tuple[str, str], key)
        try:
            pod = self.client.get("v1", "Pod", name, namespace, copy=False)  # read-only
        except NotFound:
            return
        meta = pod["metadata"]
        if not self._orphaned(pod) or (meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds") == 0):
            return
        try:
            status = pod.get("status") or {}
            if status.get("phase") not in ("Succeeded", "Failed"):
                failed = {**pod, "metadata": dict(meta), "status": _failed_by_gc(status, self.runtime.clock.timestamp())}
                self.client.update_status(failed, copy=False)  # copy on write: a new status only
            self.client.delete("v1", "Pod", name, namespace, grace_period_seconds=0)
        except (Conflict, NotFound):
            self.queue.add(key)
        except ApiError as exc:
            self.log.warning("pod garbage collection failed", pod=f"{namespace}/{name}", error=exc.message)

    def settled(self) -> bool:
        """No pod bound to a missing node is left, unless force-deleted already (finalizers hold it)."""
        for key in list(self._to_verify):
            namespace, name = cast(tuple[str, str], key)
            try:
                pod = self.reader.get("v1", "Pod", name, namespace, copy=False)
            except NotFound:
                del self._to_verify[key]
                continue
            meta = pod["metadata"]
            if self._orphaned(pod) and not (
                meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds") == 0
            ):
                return False
            del self._to_verify[key]
        return True


def _failed_by_gc(status: dict[str, Any], now: str) -> dict[str, Any]:
    """The status podgc patches in before deleting: phase Failed and a DisruptionTarget condition."""
    out = dict(status)
    out["phase"] = "Failed"
    conditions = [c for c in status.get("conditions") or () if isinstance(c, dict) and c.get("type") != "DisruptionTarget"]
    conditions.append({
        "type": "DisruptionTarget", "status": "True", "lastProbeTime": None, "lastTransitionTime": now,
        "reason": "DeletionByPodGC", "message": "PodGC: node no longer exists",
    })
    out["conditions"] = conditions
    return out
