"""Object keys: "namespace/name" as client-go's cache keys objects, and the scheduler's pod key."""

# upstream: staging/src/k8s.io/client-go/tools/cache/store.go (MetaNamespaceKeyFunc,
# SplitMetaNamespaceKey); pkg/scheduler/framework/types.go (GetPodKey: the pod's UID)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["namespaced_name", "object_key", "pod_key", "split_key"]


def object_key(obj: Mapping[str, Any]) -> str:
    """MetaNamespaceKeyFunc: "namespace/name", or "name" for a cluster-scoped object."""
    md = obj.get("metadata") or {}
    namespace = md.get("namespace") or ""
    name = md.get("name") or ""
    return f"{namespace}/{name}" if namespace else str(name)


def split_key(key: str) -> tuple[str, str]:
    """SplitMetaNamespaceKey: (namespace, name); the namespace is "" for "name" alone."""
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise ValueError(f"unexpected key format: {key!r} (expected namespace/name or name)")


def namespaced_name(namespace: str | None, name: str) -> str:
    """"namespace/name" for a pod-like object, an unset namespace read as "default"."""
    return f"{namespace or 'default'}/{name}"


def pod_key(pod: Mapping[str, Any]) -> str:
    """The scheduler cache's key of a pod: its uid, or namespace/name when it has none yet."""
    md = pod.get("metadata") or {}
    uid = md.get("uid")
    if uid:
        return str(uid)
    return namespaced_name(md.get("namespace"), md.get("name", ""))
