"""A scripted MemoryClient like the Go tests' mockClient: pods named `<pod>_<node>`."""

from __future__ import annotations

import attrs

from kubesim_pod_migration.client import ClientError

__all__ = ["FakeClient", "fake_client"]


@attrs.define
class FakeClient:
    """Pod memories per node, free % per node, and optional slopes / runtimes per pod."""

    pods: dict[str, dict[str, float]]
    free: dict[str, float]
    slopes: dict[tuple[str, str], float] = attrs.field(factory=dict)
    node_free: dict[str, float] = attrs.field(factory=dict)
    percent: dict[str, float] = attrs.field(factory=dict)
    executed: dict[str, int] = attrs.field(factory=dict)
    runtimes: dict[str, int] = attrs.field(factory=dict)

    def pod_memories(self, node: str) -> dict[str, float]:
        return dict(self.pods[node])

    def free_memory_node(self, node: str) -> float:
        return self.node_free.get(node, self.free[node])

    def free_memory_of_nodes(self) -> dict[str, float]:
        return dict(self.free)

    def pod_memory_slope(self, node: str, pod: str) -> float:
        if (node, pod) not in self.slopes:
            raise ClientError(pod)
        return self.slopes[(node, pod)]

    def runtime_percentage(self, pod: str) -> float:
        return self.percent.get(pod, 0.0)

    def execution_time(self, pod: str) -> int:
        return self.executed.get(pod, 0)

    def runtime(self, pod: str) -> int:
        return self.runtimes.get(pod, 10_000)


def fake_client(node_gb: float, *node_pods: dict[str, float]) -> FakeClient:
    """Like the Go `setupMockClient`: the node is the name's part after "_"; free % from the sum."""
    pods: dict[str, dict[str, float]] = {}
    free: dict[str, float] = {}
    for group in node_pods:
        node = next(iter(group)).split("_")[1]
        pods[node] = dict(group)
        free[node] = (node_gb - sum(group.values())) / node_gb * 100.0
    return FakeClient(pods, free)
