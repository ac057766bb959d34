"""Namespace lifecycle: the default namespaces, admission into them, and their deletion.

Admission follows k8s.io/kubernetes plugin/pkg/admission/namespace/lifecycle/admission.go
(no new content in a missing or terminating namespace, the immortal namespaces); deletion
follows pkg/controller/namespace/deletion/namespaced_resources_deleter.go (mark Terminating,
delete the contents, remove the namespace once empty), run synchronously by the write path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog

from kubesim.errors import ApiError, Forbidden, NotFound

from .garbage_collection import BACKGROUND
from .registry import ResourceType
from .store import Key

if TYPE_CHECKING:
    from .writes import GenericStore

__all__ = ["DEFAULT_NAMESPACES", "NamespaceLifecycle"]

log = structlog.get_logger(__name__)

DEFAULT_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")
_UNDELETABLE_NAMESPACES = frozenset(("default", "kube-system", "kube-public"))
_NAMESPACE_CONTROLLER = "namespace-controller"


class NamespaceLifecycle:
    """The NamespaceLifecycle admission plugin and the namespace controller's deletion."""

    def __init__(self, writes: GenericStore) -> None:
        self._writes = writes
        self._store = writes.store
        self.rt = writes.registry.lookup("v1", "Namespace")

    def create_defaults(self) -> None:
        """Create the namespaces every cluster starts with, without watch events."""
        for name in DEFAULT_NAMESPACES:
            self._writes.create(
                self.rt,
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                "system",
                quiet=True,
            )

    def check_accepts(self, rt: ResourceType, namespace: str, name: str) -> None:
        """Admission: the namespace must exist and not be terminating."""
        ns = self._store.get(self.rt, ("", namespace))
        if ns is None:
            raise NotFound(f'namespaces "{namespace}" not found')
        if ns["metadata"].get("deletionTimestamp"):
            raise Forbidden(
                f'{rt.group_resource} "{name}" is forbidden: unable to create new content in '
                f"namespace {namespace} because it is being terminated"
            )

    def check_deletable(self, name: str) -> None:
        """Admission: default, kube-system and kube-public may not be deleted."""
        if name in _UNDELETABLE_NAMESPACES:
            raise Forbidden(f'namespaces "{name}" is forbidden: this namespace may not be deleted')

    def delete(self, key: Key, ns: dict[str, Any], actor: str) -> dict[str, Any] | None:
        """Mark a namespace Terminating, delete its contents (namespace controller), then remove it."""
        writes, store = self._writes, self._store
        if not ns["metadata"].get("deletionTimestamp"):
            marked = writes.marked(ns, list(ns["metadata"].get("finalizers") or ()), writes.now())
            marked["status"] = {**(ns.get("status") or {}), "phase": "Terminating"}
            writes.commit(self.rt, key, marked, ns, actor, None)
        name = key[1]
        for rt in writes.registry.types():
            if not rt.namespaced:
                continue
            bucket = store.buckets.get((rt.group, rt.kind))
            if bucket is None or name not in bucket.namespaces:
                continue
            for obj in bucket.values(name):
                obj_key = (name, obj["metadata"]["name"])
                current = store.get(rt, obj_key)
                if current is None or current["metadata"].get("deletionTimestamp"):
                    continue
                try:
                    writes.delete_request(rt, obj_key, current, _NAMESPACE_CONTROLLER, BACKGROUND, None)
                except ApiError as exc:
                    log.warning("namespace cleanup failed", kind=rt.kind, name=obj_key[1], error=str(exc))
        self.finish(name)
        return store.get(self.rt, key)

    def finish(self, name: str) -> None:
        """Remove a terminating namespace once nothing is left in it."""
        key = ("", name)
        ns = self._store.get(self.rt, key)
        if ns is None or not ns["metadata"].get("deletionTimestamp") or ns["metadata"].get("finalizers"):
            return
        for bucket in self._store.buckets.values():
            if bucket.rt.namespaced and name in bucket.namespaces:
                return
        self._writes.remove(self.rt, key, ns, _NAMESPACE_CONTROLLER)
