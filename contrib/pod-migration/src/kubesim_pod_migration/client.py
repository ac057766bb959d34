"""What the migration controller knows of the cluster: node and pod memory in GB, slopes, runtimes.

Port of the fork's simulation client (`k8s-cluster-simulator` branch jobruntime_v1,
`pkg/migration/client.go`) and of the controller's `FilteredClient` (k8s-migration-controller
v1, `pkg/monitoring/client.go`). Memory is in decimal GB rounded up to an integer, as
`Quantity.ScaledValue(resource.Giga)` gives it; free memory is in percent of a node's
allocatable memory; a pod's slope is its GB now minus its GB `memo_interval - 1` ticks ago.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar

import attrs

__all__ = [
    "ClientError",
    "FilteredClient",
    "Memorizer",
    "MemoryClient",
    "MetricsClient",
    "NodeMemory",
    "PodMemory",
    "gigabytes",
]

T = TypeVar("T")


class ClientError(LookupError):
    """The client has no data for a node or pod (the Go client's error results)."""


def gigabytes(byte_count: int) -> int:
    """Decimal GB rounded up, like Quantity.ScaledValue(resource.Giga)."""
    return -(-byte_count // 10**9)


class MemoryClient(Protocol):
    """The controller's view of the cluster (the Go `Clienter` interface)."""

    def pod_memories(self, node: str) -> dict[str, float]:
        """GB used by each pod on `node`; ClientError for a node without pods."""
        ...

    def free_memory_node(self, node: str) -> float:
        """Free memory of `node` in percent; ClientError for an unknown node."""
        ...

    def free_memory_of_nodes(self) -> dict[str, float]:
        """Free memory in percent of every node."""
        ...

    def pod_memory_slope(self, node: str, pod: str) -> float:
        """GB the pod grew over the memo interval; ClientError when the history is too short."""
        ...

    def runtime_percentage(self, pod: str) -> float:
        """Executed seconds as a percentage of the pod's total simSpec seconds."""
        ...

    def execution_time(self, pod: str) -> int:
        """Seconds the pod has executed."""
        ...

    def runtime(self, pod: str) -> int:
        """The pod's total simSpec seconds."""
        ...


class Memorizer(Generic[T]):
    """A ring buffer of the last `memo_interval` values (the fork's `Memorizer`)."""

    def __init__(self, memo_interval: int) -> None:
        if memo_interval < 1:
            raise ValueError(f"memo interval must be at least 1, got {memo_interval}")
        self.memo_interval = memo_interval
        self._data: list[T] = []
        self.current = -1

    def update(self, value: T) -> None:
        """Store the newest value, overwriting the oldest once the buffer is full."""
        self.current = (self.current + 1) % self.memo_interval
        if len(self._data) < self.memo_interval:
            self._data.append(value)
        else:
            self._data[self.current] = value

    def value(self) -> T | None:
        """The newest value (None before the first)."""
        return self._data[self.current] if self._data else None

    def prior(self) -> T | None:
        """The oldest value of a full buffer (None until it is full)."""
        if len(self._data) < self.memo_interval:
            return None
        return self._data[(self.current + 1) % self.memo_interval]


@attrs.frozen
class NodeMemory:
    """A node's allocatable and used memory in bytes (used: running and terminating pods)."""

    allocatable: int
    usage: int


@attrs.frozen
class PodMemory:
    """A bound pod's memory usage in bytes, node, total and executed simSpec seconds."""

    node: str
    usage: int
    runtime: int = 0
    executed: int = 0


class MetricsClient:
    """The simulator-side client, fed from each tick's metrics (node and pod records)."""

    def __init__(self, memo_interval: int = 5) -> None:
        self.memo_interval = memo_interval
        self.used_gb: dict[str, int] = {}
        self.total_gb: dict[str, int] = {}
        self.pods_gb: dict[str, dict[str, float]] = {}
        self.pod_runtime: dict[str, int] = {}
        self.pod_executed: dict[str, int] = {}
        self.memorizers: dict[str, Memorizer[dict[str, float]]] = {}

    def update_node_metrics(self, nodes: Mapping[str, NodeMemory]) -> None:
        """Replace the node data (nodes missing from `nodes` are forgotten)."""
        self.used_gb = {name: gigabytes(m.usage) for name, m in nodes.items()}
        self.total_gb = {name: gigabytes(m.allocatable) for name, m in nodes.items()}

    def update_pod_metric(self, pod: str, metric: PodMemory) -> None:
        """Add or replace one pod's data."""
        self.pods_gb.setdefault(metric.node, {})[pod] = float(gigabytes(metric.usage))
        self.pod_runtime[pod] = metric.runtime
        self.pod_executed[pod] = metric.executed

    def update_pod_metrics(self, pods: Mapping[str, PodMemory]) -> None:
        """Replace the pod data and push each node's pod memories into its memorizer."""
        self.pods_gb = {}
        for name in sorted(pods):
            self.update_pod_metric(name, pods[name])
        for node in sorted(self.pods_gb):
            memo = self.memorizers.get(node)
            if memo is None:
                memo = self.memorizers[node] = Memorizer(self.memo_interval)
            memo.update(dict(self.pods_gb[node]))

    def runtime(self, pod: str) -> int:
        return self.pod_runtime.get(pod, 0)

    def execution_time(self, pod: str) -> int:
        return self.pod_executed.get(pod, 0)

    def runtime_percentage(self, pod: str) -> float:
        executed, total = self.execution_time(pod), self.runtime(pod)
        if total == 0:  # Go's float division: +Inf, or NaN for 0/0 (never > 95)
            return math.inf if executed > 0 else 0.0
        return executed / total * 100

    def pod_memory_slope(self, node: str, pod: str) -> float:
        memo = self.memorizers.get(node)
        now, before = (memo.value(), memo.prior()) if memo is not None else (None, None)
        if now is None or before is None or pod not in now or pod not in before:
            raise ClientError(f"no memory history of pod {pod} on node {node}")
        return now[pod] - before[pod]

    def pod_memories(self, node: str) -> dict[str, float]:
        pods = self.pods_gb.get(node)
        if pods is None:
            raise ClientError(f"no pod memory for node {node}")
        return pods

    def free_memory_node(self, node: str) -> float:
        if node not in self.used_gb:
            raise ClientError(f"no free memory for node {node}")
        total = self.total_gb[node]
        return 100.0 - self.used_gb[node] / total * 100.0 if total else 0.0

    def free_memory_of_nodes(self) -> dict[str, float]:
        return {node: self.free_memory_node(node) for node in sorted(self.used_gb)}


class FilteredClient:
    """Hides pods that should not migrate: > 95 % of their runtime done or < 180 s left (short jobs)."""

    def __init__(self, client: MemoryClient, max_percent: float = 95.0, min_remaining: int = 180) -> None:
        self.client = client
        self.max_percent = max_percent
        self.min_remaining = min_remaining

    def pod_memories(self, node: str) -> dict[str, float]:
        pods = self.client.pod_memories(node)
        return {pod: gb for pod, gb in pods.items() if self._migratable(pod)}

    def _migratable(self, pod: str) -> bool:
        if self.client.runtime_percentage(pod) > self.max_percent:
            return False
        return self.client.runtime(pod) - self.client.execution_time(pod) >= self.min_remaining

    def free_memory_node(self, node: str) -> float:
        return self.client.free_memory_node(node)

    def free_memory_of_nodes(self) -> dict[str, float]:
        return self.client.free_memory_of_nodes()

    def pod_memory_slope(self, node: str, pod: str) -> float:
        return self.client.pod_memory_slope(node, pod)

    def runtime_percentage(self, pod: str) -> float:
        return self.client.runtime_percentage(pod)

    def execution_time(self, pod: str) -> int:
        return self.client.execution_time(pod)

    def runtime(self, pod: str) -> int:
        return self.client.runtime(pod)
