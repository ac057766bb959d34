"""A cluster client bound to one actor, so every write says who made it.

Controllers get a Client instead of the Cluster: the scenario engine counts a
SimulationController's writes (MinorStep) and the timeline records their author.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kubesim.cluster import Cluster

__all__ = ["Client"]


class Client:
    """Reads go straight to the cluster; writes carry `actor`."""

    def __init__(self, cluster: Cluster, actor: str) -> None:
        self.cluster = cluster
        self.actor = actor

    def get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None, *, copy: bool = True
    ) -> dict[str, Any]:
        """Get one object (a copy; copy=False: the stored object, read-only)."""
        return self.cluster.get(api_version, kind, name, namespace, copy=copy)

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | dict[str, Any] | None = None,
        field_selector: str | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """List objects sorted by namespace and name (do not mutate them)."""
        return self.cluster.list(
            api_version, kind, namespace, label_selector=label_selector, field_selector=field_selector
        )

    def create(self, obj: dict[str, Any], *, copy: bool = True) -> dict[str, Any]:
        """Create an object.

        copy=False hands `obj` over (stored without a copy, never mutate it afterwards) and
        returns the stored object (read-only), as `Cluster.create(copy=False)` does.
        """
        return self.cluster.create(obj, actor=self.actor, copy=copy)

    def update(self, obj: dict[str, Any], *, subresource: str | None = None, copy: bool = True) -> dict[str, Any]:
        """Replace an object (409 Conflict when its resourceVersion is stale); copy as for create."""
        return self.cluster.update(obj, actor=self.actor, subresource=subresource, copy=copy)

    def update_status(self, obj: dict[str, Any], *, copy: bool = True) -> dict[str, Any]:
        """Replace an object's status through the status subresource; copy as for create.

        With copy=False, `obj` may share every part but its metadata and status with the stored
        object it came from (`get(copy=False)`): `{**stored, "metadata": dict(stored["metadata"]),
        "status": new_status}` writes a status without copying the rest.
        """
        return self.cluster.update(obj, actor=self.actor, subresource="status", copy=copy)

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        patch: str | dict[str, Any] | builtins.list[Any],
        patch_type: str = "application/merge-patch+json",
        *,
        namespace: str | None = None,
        subresource: str | None = None,
    ) -> dict[str, Any]:
        """Patch an object."""
        return self.cluster.patch(
            api_version, kind, name, patch, patch_type,
            namespace=namespace, actor=self.actor, subresource=subresource,
        )

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation_policy: str | None = None,
        grace_period_seconds: int | None = None,
    ) -> dict[str, Any] | None:
        """Delete an object; returns it when it still exists (finalizers, graceful deletion)."""
        return self.cluster.delete(
            api_version, kind, name, namespace, actor=self.actor,
            propagation_policy=propagation_policy, grace_period_seconds=grace_period_seconds,
        )

    def bind(self, namespace: str, name: str, node_name: str, *, copy: bool = True) -> dict[str, Any]:
        """Bind a pod to a node (pods/binding); copy=False returns the stored pod (read-only)."""
        return self.cluster.bind(namespace, name, node_name, actor=self.actor, copy=copy)
