"""The StatefulSet controller as a kubesim PreSimulationController named "statefulset".

Event handling follows pkg/controller/statefulset/stateful_set.go (addPod, updatePod,
deletePod, resolveControllerRef, getStatefulSetsForPod): a pod wakes the set that controls
it, an orphan pod wakes the sets whose selector matches it (so they can adopt it).

Its waiter ("can do nothing more") holds when nothing is queued and, for every StatefulSet,
a sync of the current state would write nothing: `settled()` runs the sync in dry-run. The
README spells out what that means in terms of the set's status and pods.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta
from typing import Any, cast

from kubesim import ReconcileController, Runtime
from kubesim.cluster import LabelSelector, WatchEvent
from kubesim.errors import ApiError, NotFound

from .control import SetWriter, WouldWrite, sync_statefulset
from .identity import controller_of

__all__ = ["StatefulSetController"]

_RETRY_AFTER = timedelta(microseconds=1)  # the next step: simulated time stands still within one


class StatefulSetController(ReconcileController):
    """apps/v1 StatefulSet: ordered pods with stable names and storage, revisions, rolling updates."""

    name = "statefulset"
    watches = (("apps/v1", "StatefulSet"), ("v1", "Pod"), ("apps/v1", "ControllerRevision"))

    def __init__(self, runtime: Runtime) -> None:
        self._versions: dict[Hashable, int] = {}
        self._failed: dict[Hashable, int] = {}
        self._verified: dict[Hashable, tuple[int, datetime]] = {}
        self._replaced: dict[tuple[str, int], datetime] = {}
        self.last_blocker = ""
        """Why the waiter last said no: the write a sync would still make (for debugging)."""
        super().__init__(runtime)

    # --- events -------------------------------------------------------------------

    def _bump(self, keys: list[Hashable]) -> list[Hashable]:
        for key in keys:
            self._versions[key] = self._versions.get(key, 0) + 1
        return keys

    def initial_keys(self, obj: dict[str, Any]) -> Iterable[Hashable]:
        return self._bump(self._keys(obj, None, "ADDED"))

    def keys_for(self, event: WatchEvent) -> Iterable[Hashable]:
        if event.actor == self.name and event.subresource == "status" and _counters_only(event):
            return []  # our own status write changed nothing a sync reads
        return self._bump(self._keys(event.object, event.old_object, event.type))

    def _keys(self, obj: dict[str, Any], old: dict[str, Any] | None, kind_of_event: str) -> list[Hashable]:
        meta = obj.get("metadata") or {}
        namespace = meta.get("namespace", "default")
        kind = obj.get("kind")
        if kind == "StatefulSet":
            return [(namespace, meta.get("name", ""))]
        ref = controller_of(obj)
        keys: list[Hashable] = []
        old_ref = controller_of(old) if old is not None else None
        if old_ref is not None and old_ref != ref and old_ref.get("kind") == "StatefulSet":
            keys.append((namespace, old_ref.get("name", "")))
        if ref is not None:
            if ref.get("kind") == "StatefulSet" and (
                kind != "Pod" or kind_of_event != "MODIFIED" or old is None or _pod_changed(old, obj)
            ):
                keys.append((namespace, ref.get("name", "")))
            return keys
        if kind != "Pod" or kind_of_event == "DELETED":
            return keys
        if kind_of_event == "MODIFIED" and old is not None:
            old_labels = (old.get("metadata") or {}).get("labels")
            if old_labels == meta.get("labels") and old_ref == ref:
                return keys
        for sts in self.reader.list("apps/v1", "StatefulSet", namespace):
            try:
                selector = LabelSelector.from_dict((sts.get("spec") or {}).get("selector"))
            except ApiError:
                continue
            if not selector.empty and selector.matches(meta.get("labels")):
                keys.append((namespace, sts["metadata"]["name"]))
        return keys

    # --- reconcile ----------------------------------------------------------------

    def reconcile(self, key: Hashable) -> None:
        namespace, name = cast(tuple[str, str], key)
        try:
            sts = self.client.get("apps/v1", "StatefulSet", name, namespace)
        except NotFound:
            for table in (self._versions, self._failed, self._verified):
                table.pop(key, None)
            return
        now = self.runtime.clock.now()
        self._replaced = {k: t for k, t in self._replaced.items() if t >= now}  # only this moment's matter
        version = self._versions.get(key, 0)
        writer = SetWriter(self.client, replaced=self._replaced)
        try:
            result = sync_statefulset(writer, self.reader, sts, now)
        except ApiError as exc:
            self.log.warning("statefulset sync failed", statefulset=f"{namespace}/{name}", error=exc.message)
            self._failed[key] = self._versions.get(key, 0)
            self.queue.add_after(key, now + _RETRY_AFTER)
            return
        self._failed.pop(key, None)
        if writer.writes == writer.status_writes and self._versions.get(key, 0) == version:
            # nothing a sync reads has changed: a dry run of this state would write nothing either
            self._verified[key] = (version, now)
        if result.requeue_at is not None:
            self.queue.add_after(key, result.requeue_at)

    # --- waiter -------------------------------------------------------------------

    def settled(self) -> bool:
        """For every StatefulSet, a sync now would write nothing (or failed just now on this state)."""
        now = self.runtime.clock.now()
        for sts in self.reader.list("apps/v1", "StatefulSet"):
            meta = sts["metadata"]
            key = (meta.get("namespace", "default"), meta["name"])
            version = self._versions.get(key, 0)
            if self._verified.get(key) == (version, now) or self._failed.get(key) == version:
                continue
            writer = SetWriter(self.client, dry_run=True, replaced=dict(self._replaced))
            try:
                sync_statefulset(writer, self.reader, sts, now)
            except WouldWrite as exc:
                self.last_blocker = f"{key[0]}/{key[1]}: would {exc}"
                return False
            except ApiError:
                pass  # a read failed; the real sync reports it
            self._verified[key] = (version, now)
        return True


def _sync_view(pod: dict[str, Any]) -> tuple[Any, ...]:
    """What a sync reads from a pod: a change elsewhere (binding, annotations, container
    statuses) cannot change what the controller does, so it does not wake the set."""
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    ready = next((c for c in status.get("conditions") or () if isinstance(c, dict) and c.get("type") == "Ready"), None)
    return (
        meta.get("labels"), meta.get("ownerReferences"), meta.get("deletionTimestamp"), meta.get("uid"),
        (pod.get("spec") or {}).get("volumes"), status.get("phase"),
        None if ready is None else (ready.get("status"), ready.get("lastTransitionTime")),
    )


def _pod_changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return _sync_view(old) != _sync_view(new)


_COUNTERS = frozenset({"observedGeneration", "replicas", "readyReplicas", "availableReplicas", "updatedReplicas"})


def _counters_only(event: WatchEvent) -> bool:
    """A StatefulSet status change limited to counters no sync decision reads (it reads the
    revisions, collisionCount and currentReplicas from the status)."""
    if event.type != "MODIFIED" or event.old_object is None:
        return False
    old, new = event.old_object.get("status") or {}, event.object.get("status") or {}
    return all(old.get(k) == new.get(k) for k in old.keys() | new.keys() if k not in _COUNTERS)
