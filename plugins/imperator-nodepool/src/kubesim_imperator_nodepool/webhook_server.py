"""Which cluster an admission webhook reads: the one whose controller serves it right now.

kubesim's `kubesim_admission` hook receives the request only. Imperator's webhooks also
read the cluster (Machines, Nodes, Namespaces, the pod being updated), as upstream's do
through the controller manager's client. A plugin's controller binds the scenario's
cluster when it starts and unbinds it when the scenario ends (`close()`), so the webhook
runs exactly while its server (the controller manager) runs; with none bound, the hook
has no opinion.
"""

from __future__ import annotations

from collections.abc import Callable

from kubesim.cluster import Cluster

__all__ = ["WebhookServer"]


class WebhookServer:
    """The clusters bound to one plugin's webhooks; the latest binding is the one in use."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._clusters: list[Cluster] = []

    def bind(self, cluster: Cluster) -> Callable[[], None]:
        """Serve `cluster`; returns the function that stops serving it."""
        self._clusters.append(cluster)

        def unbind() -> None:
            for i in range(len(self._clusters) - 1, -1, -1):
                if self._clusters[i] is cluster:
                    del self._clusters[i]
                    return

        return unbind

    @property
    def cluster(self) -> Cluster | None:
        """The cluster the webhooks read, None while no controller serves them."""
        return self._clusters[-1] if self._clusters else None
