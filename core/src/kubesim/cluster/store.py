"""The object store: one bucket per kind, plus the uid and owner indexes garbage collection needs.

Stored dicts are never changed in place: a write stores a new dict (which may share unchanged
subtrees with the old one). That is what lets `list` and watch events hand out stored dicts
without copying them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterator
from typing import Any

from .registry import ResourceType

__all__ = ["Bucket", "ObjectStore", "node_name_of"]

Key = tuple[str, str]
"""(namespace, name) inside a bucket; namespace is "" for cluster-scoped kinds."""

_HIGHEST = "\U0010ffff"


def node_name_of(obj: dict[str, Any]) -> str:
    """A pod's spec.nodeName as the field selector `spec.nodeName=` compares it ("" when unset)."""
    spec = obj.get("spec")
    value = spec.get("nodeName") if type(spec) is dict else None
    if value is None:
        return ""
    if type(value) is str:
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Bucket:
    """All objects of one kind, with their keys kept sorted for deterministic listing.

    The core Pod bucket also indexes its keys by spec.nodeName (`on_node`), as kube-apiserver's
    pod storage indexes that field (pkg/registry/core/pod/storage: NodeNameTriggerFunc), so
    that the kubelet's and pod-gc's "pods on this node" lists do not walk every pod.
    """

    __slots__ = ("_by_node", "_keys", "namespaces", "objects", "rt")

    def __init__(self, rt: ResourceType) -> None:
        self.rt = rt
        self.objects: dict[Key, dict[str, Any]] = {}
        self.namespaces: dict[str, int] = {}
        """How many objects each namespace holds (namespace deletion waits for zero)."""
        self._keys: list[Key] = []
        self._by_node: dict[str, dict[Key, None]] | None = (
            {} if rt.group == "" and rt.kind == "Pod" else None
        )

    @property
    def indexes_nodes(self) -> bool:
        """Whether `on_node` answers (the core Pod bucket)."""
        return self._by_node is not None

    def on_node(self, node_name: str) -> list[Key]:
        """The keys of the objects whose spec.nodeName is `node_name` ("" unbound), sorted."""
        assert self._by_node is not None
        return sorted(self._by_node.get(node_name, ()))

    def _index(self, key: Key, obj: dict[str, Any]) -> None:
        if self._by_node is not None:
            self._by_node.setdefault(node_name_of(obj), {})[key] = None

    def _unindex(self, key: Key, obj: dict[str, Any]) -> None:
        if self._by_node is not None:
            node = node_name_of(obj)
            keys = self._by_node.get(node)
            if keys is not None:
                keys.pop(key, None)
                if not keys:
                    del self._by_node[node]

    def replace(self, key: Key, obj: dict[str, Any]) -> None:
        """Store a new version of an existing object."""
        if self._by_node is not None:
            old = self.objects[key]
            if old.get("spec") is not obj.get("spec") and node_name_of(old) != node_name_of(obj):
                self._unindex(key, old)
                self._index(key, obj)
        self.objects[key] = obj

    def keys(self) -> list[Key]:
        """The keys in (namespace, name) order."""
        return self._keys

    def add(self, key: Key, obj: dict[str, Any]) -> None:
        """Store a new object."""
        self.objects[key] = obj
        self._index(key, obj)
        self.namespaces[key[0]] = self.namespaces.get(key[0], 0) + 1
        keys = self._keys
        if not keys or keys[-1] < key:
            keys.append(key)
        else:
            insort(keys, key)

    def discard(self, key: Key) -> None:
        """Forget an object."""
        self._unindex(key, self.objects.pop(key))
        left = self.namespaces[key[0]] - 1
        if left:
            self.namespaces[key[0]] = left
        else:
            del self.namespaces[key[0]]
        del self._keys[bisect_left(self._keys, key)]

    def values(self, namespace: str | None = None) -> list[dict[str, Any]]:
        """The stored objects in key order, optionally those of one namespace only."""
        keys = self.keys()
        objects = self.objects
        if namespace is None:
            return [objects[k] for k in keys]
        lo = bisect_left(keys, (namespace, ""))
        hi = bisect_right(keys, (namespace, _HIGHEST), lo)
        return [objects[k] for k in keys[lo:hi]]


Ref = tuple[ResourceType, Key]


def owner_uids(obj: dict[str, Any]) -> tuple[str, ...]:
    """The uids in an object's ownerReferences."""
    refs = obj["metadata"].get("ownerReferences")
    if not refs:
        return ()
    return tuple(r["uid"] for r in refs if type(r) is dict and type(r.get("uid")) is str)


class ObjectStore:
    """Buckets by (group, kind), an index by uid and an index of dependents by owner uid."""

    def __init__(self) -> None:
        self.buckets: dict[tuple[str, str], Bucket] = {}
        self._by_uid: dict[str, Ref] = {}
        self._dependents: dict[str, dict[Ref, None]] = {}

    def bucket(self, rt: ResourceType) -> Bucket:
        """The bucket of a kind, created on first use (or re-keyed when a CRD was re-registered)."""
        b = self.buckets.get((rt.group, rt.kind))
        if b is None:
            b = self.buckets[(rt.group, rt.kind)] = Bucket(rt)
        elif b.rt is not rt:
            b.rt = rt
        return b

    def put(self, rt: ResourceType, key: Key, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Store `obj` under `key`, replacing `old` (None when new), and keep the indexes."""
        bucket = self.bucket(rt)
        if old is None:
            bucket.add(key, obj)
            self._by_uid[obj["metadata"]["uid"]] = (rt, key)
            for uid in owner_uids(obj):
                self._dependents.setdefault(uid, {})[(rt, key)] = None
        else:
            bucket.replace(key, obj)
            before, after = owner_uids(old), owner_uids(obj)
            if before != after:
                for uid in before:
                    self._unlink(uid, (rt, key))
                for uid in after:
                    self._dependents.setdefault(uid, {})[(rt, key)] = None

    def remove(self, rt: ResourceType, key: Key, obj: dict[str, Any]) -> None:
        """Forget a stored object."""
        self.bucket(rt).discard(key)
        self._by_uid.pop(obj["metadata"]["uid"], None)
        for uid in owner_uids(obj):
            self._unlink(uid, (rt, key))

    def _unlink(self, owner: str, ref: Ref) -> None:
        deps = self._dependents.get(owner)
        if deps is not None:
            deps.pop(ref, None)
            if not deps:
                del self._dependents[owner]

    def get(self, rt: ResourceType, key: Key) -> dict[str, Any] | None:
        """The stored object under `key`, if any."""
        b = self.buckets.get((rt.group, rt.kind))
        return None if b is None else b.objects.get(key)

    def by_uid(self, uid: str) -> tuple[ResourceType, dict[str, Any]] | None:
        """The live object with this uid, with its type."""
        ref = self._by_uid.get(uid)
        if ref is None:
            return None
        rt, key = ref
        obj = self.get(rt, key)
        return None if obj is None else (rt, obj)

    def has_dependents(self, uid: str) -> bool:
        """Whether any object lists `uid` as an owner."""
        return uid in self._dependents

    def any_dependent(self, uid: str, where: Callable[[dict[str, Any]], bool]) -> bool:
        """Whether some object owned by `uid` satisfies `where` (stops at the first one)."""
        for ref in self._dependents.get(uid, ()):
            obj = self.get(*ref)
            if obj is not None and where(obj):
                return True
        return False

    def dependents(self, uid: str) -> list[Ref]:
        """Objects owned by `uid`, in (group, kind, namespace, name) order."""
        refs = self._dependents.get(uid)
        if not refs:
            return []
        return sorted(refs, key=lambda r: (r[0].group, r[0].kind, r[1]))

    def each(
        self, types: list[ResourceType], namespace: str | None = None
    ) -> Iterator[tuple[ResourceType, dict[str, Any]]]:
        """Every stored object of the given kinds, in that order, then by (namespace, name)."""
        for rt in types:
            b = self.buckets.get((rt.group, rt.kind))
            if b is not None and b.objects:
                for obj in b.values(namespace):
                    yield rt, obj

    def clear(self, keep: Callable[[ResourceType], bool]) -> None:
        """Drop every object except those of kinds `keep` accepts; rebuild the indexes."""
        kept = [b for b in self.buckets.values() if keep(b.rt)]
        self.buckets = {(b.rt.group, b.rt.kind): b for b in kept}
        self._by_uid.clear()
        self._dependents.clear()
        for b in kept:
            for key, obj in b.objects.items():
                self._by_uid[obj["metadata"]["uid"]] = (b.rt, key)
                for uid in owner_uids(obj):
                    self._dependents.setdefault(uid, {})[(b.rt, key)] = None
