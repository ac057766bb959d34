"""Garbage collection by ownerReferences: orphan, background and foreground propagation.

Follows k8s.io/kubernetes pkg/controller/garbagecollector/garbagecollector.go
(attemptToDeleteItem, orphanDependents, processDeletingDependentsItem), run synchronously
by the write path instead of from watch events, so that a run stays deterministic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog

from kubesim.errors import ApiError

from .jsontree import copy_tree
from .registry import ResourceType
from .store import Key

if TYPE_CHECKING:
    from .writes import GenericStore

__all__ = [
    "BACKGROUND",
    "FOREGROUND",
    "FOREGROUND_FINALIZER",
    "ORPHAN",
    "ORPHAN_BY_DEFAULT",
    "POLICIES",
    "GarbageCollector",
]

log = structlog.get_logger(__name__)

ORPHAN, BACKGROUND, FOREGROUND = "Orphan", "Background", "Foreground"
POLICIES = (ORPHAN, BACKGROUND, FOREGROUND)
ORPHAN_BY_DEFAULT = frozenset((("", "ReplicationController"), ("batch", "Job")))  # v1 back-compat defaults
FOREGROUND_FINALIZER = "foregroundDeletion"
_ORPHAN_FINALIZER = "orphan"
_GC = "garbage-collector"


class GarbageCollector:
    """Deletes or releases the dependents of owners being deleted, through the store's own writes."""

    def __init__(self, writes: GenericStore) -> None:
        self._writes = writes
        self._store = writes.store

    def collect_dependents(self, uid: str) -> None:
        """Collect every dependent of `uid` (its owner went away or waits for it)."""
        store = self._store
        for dep_rt, dep_key in store.dependents(uid):
            dep = store.get(dep_rt, dep_key)
            if dep is not None:
                self.collect(dep_rt, dep_key, dep)

    def collect(self, rt: ResourceType, key: Key, obj: dict[str, Any]) -> None:
        """Garbage-collect one dependent whose owner went away or waits for it (attemptToDeleteItem)."""
        meta = obj["metadata"]
        if meta.get("deletionTimestamp"):
            return
        solid, dangling = [], []
        waiting: list[str] = []
        for ref in meta.get("ownerReferences") or ():
            found = self._store.by_uid(ref.get("uid", ""))
            if found is None:
                dangling.append(ref["uid"])
            elif _deleting_dependents(found[1]):
                waiting.append(ref["uid"])
            else:
                solid.append(ref["uid"])
        try:
            if solid:
                if dangling or waiting:
                    self._drop_owner_references(rt, key, obj, set(dangling + waiting))
                return
            finalizers = meta.get("finalizers") or ()
            if waiting and self._store.has_dependents(meta["uid"]):
                policy = FOREGROUND
            elif _ORPHAN_FINALIZER in finalizers:
                policy = ORPHAN
            elif FOREGROUND_FINALIZER in finalizers:
                policy = FOREGROUND
            else:
                policy = BACKGROUND
            self._writes.delete_request(rt, key, obj, _GC, policy, None)
        except ApiError as exc:  # the real collector would retry; here the object just stays
            log.warning(
                "garbage collection failed", kind=rt.kind, name=key[1], namespace=key[0], error=str(exc)
            )

    def _drop_owner_references(self, rt: ResourceType, key: Key, obj: dict[str, Any], uids: set[str]) -> None:
        new = copy_tree(obj)
        refs = [r for r in new["metadata"].get("ownerReferences") or () if r.get("uid") not in uids]
        if refs:
            new["metadata"]["ownerReferences"] = refs
        else:
            new["metadata"].pop("ownerReferences", None)
        self._writes.update(rt, key, new, _GC, None)

    def orphan_dependents(self, uid: str) -> None:
        """Remove the owner's references from its dependents (propagationPolicy Orphan)."""
        for dep_rt, dep_key in self._store.dependents(uid):
            dep = self._store.get(dep_rt, dep_key)
            if dep is None:
                continue
            try:
                self._drop_owner_references(dep_rt, dep_key, dep, {uid})
            except ApiError as exc:
                log.warning("orphaning failed", kind=dep_rt.kind, name=dep_key[1], error=str(exc))

    def delete_dependents_in_foreground(self, uid: str) -> None:
        """Delete every dependent of an owner being deleted in the foreground, then finish it if free."""
        self.collect_dependents(uid)
        self.finish_foreground_deletion(uid)

    def finish_foreground_deletion(self, uid: str) -> None:
        """Drop the foregroundDeletion finalizer once no dependent blocks the owner any more."""
        found = self._store.by_uid(uid)
        if found is None or not _deleting_dependents(found[1]):
            return
        rt, owner = found

        def blocks(dep: dict[str, Any]) -> bool:
            return any(
                r.get("uid") == uid and r.get("blockOwnerDeletion")
                for r in dep["metadata"].get("ownerReferences") or ()
            )

        if self._store.any_dependent(uid, blocks):
            return
        new = copy_tree(owner)
        finalizers = [f for f in new["metadata"]["finalizers"] if f != FOREGROUND_FINALIZER]
        if finalizers:
            new["metadata"]["finalizers"] = finalizers
        else:
            new["metadata"].pop("finalizers")
        key = self._writes.key(rt, owner["metadata"].get("namespace"), owner["metadata"]["name"])
        try:
            self._writes.update(rt, key, new, _GC, None)
        except ApiError as exc:
            log.warning("removing the foregroundDeletion finalizer failed", kind=rt.kind, error=str(exc))


def _deleting_dependents(obj: dict[str, Any]) -> bool:
    """An owner being deleted in the foreground (deletionTimestamp and the foregroundDeletion finalizer)."""
    meta = obj["metadata"]
    return bool(meta.get("deletionTimestamp")) and FOREGROUND_FINALIZER in (meta.get("finalizers") or ())
