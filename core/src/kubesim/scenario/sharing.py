"""One shared copy of the equal parts of a run's objects (a workload's pods share their spec).

A scenario of 10^5 pods from one template holds the same pod spec 10^5 times over: in the
operations as loaded from the file, and again in the objects the cluster stored. Replacing
each equal subtree by one shared instance keeps a pod's own parts only (its metadata), which
is most of what a large run's memory per pod is.

Sharing is safe because every object it touches is already final: the scenario's operations
and the cluster's stored objects are shared read-only with the timeline (see
docs/result-memory.md), and every writer copies before it changes anything. Equality is
exact (`kubesim.k8s.content_memo.content_key`: 1, 1.0 and True differ, member order counts),
so the JSON written is byte for byte the same.
"""

from __future__ import annotations

from typing import Any

from kubesim.k8s.content_memo import content_key

__all__ = ["SubtreeSharer"]

_OWN_METADATA = ("labels", "annotations", "ownerReferences", "finalizers")
"""Members of metadata that workloads repeat (the rest, name and uid, is each object's own)."""

_REPEATED_TEXT = ("namespace", "creationTimestamp")
"""Strings of metadata that many objects repeat (a JSON decoder makes a new one each time)."""


class SubtreeSharer:
    """Replaces subtrees of objects by equal ones seen before; at most `limit` kept (then afresh)."""

    __slots__ = ("_seen", "_text", "limit")

    def __init__(self, limit: int = 200_000) -> None:
        self.limit = limit
        self._seen: dict[bytes, Any] = {}
        self._text: dict[str, str] = {}

    def share_object(self, obj: dict[str, Any]) -> None:
        """Share, in place, every member of a Kubernetes object but its own metadata (name, uid...)."""
        for key, value in obj.items():
            if key == "metadata":
                if type(value) is dict:
                    for member in _OWN_METADATA:
                        if member in value:
                            value[member] = self.share(value[member])
                    for member in _REPEATED_TEXT:
                        if type(value.get(member)) is str:
                            value[member] = self._shared_text(value[member])
            elif type(value) is str:  # apiVersion, kind
                obj[key] = self._shared_text(value)
            else:
                obj[key] = self.share(value)

    def _shared_text(self, text: str) -> str:
        seen = self._text.get(text)
        if seen is None:
            if len(self._text) >= self.limit:
                self._text.clear()
            seen = self._text[text] = text
        return seen

    def share(self, value: Any) -> Any:
        """`value` or an equal subtree seen before (dicts and lists; scalars are returned as given)."""
        if type(value) is not dict and type(value) is not list or not value:
            return value
        key = content_key(value)
        if key is None:
            return value
        seen = self._seen.get(key)
        if seen is not None:
            return seen
        # first of its content: share its parts with the others' (a spec that differs in one container)
        if type(value) is dict:
            for k, v in value.items():
                value[k] = self.share(v)
        else:
            value[:] = [self.share(v) for v in value]
        if len(self._seen) >= self.limit:
            self._seen.clear()
        self._seen[key] = value
        return value
