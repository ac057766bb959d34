"""Request policies: which nodes need memory freed, how much, and where the migrated pods go.

Port of k8s-migration-controller v1 `pkg/monitoring/request_policy.go` and `cluster.go`. A
request asks for `Amount` GB to be freed on `Node`. Both policies validate commands the same
way: the target is the other node with the most free memory, and a command is kept only while
the target stays `threshold + 5` % free. Nodes are visited in name order (Go visits a map).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs

from kubesim_pod_migration.client import ClientError, MemoryClient

__all__ = [
    "Cluster",
    "MigrationCmd",
    "NodeFreeGbRequest",
    "RequestPolicy",
    "SlopeRequester",
    "ThresholdPolicy",
    "make_request_policy",
]


@attrs.define
class Cluster:
    """The controller's picture of the cluster: every node has `node_gb` GB (0: not known yet)."""

    node_gb: float
    nodes: int = 2

    def percent(self, gb: float) -> float:
        """`gb` as a percentage of a node."""
        return gb / self.node_gb * 100.0 if self.node_gb else 0.0

    def gb(self, percent: float) -> float:
        """A percentage of a node in GB."""
        return percent / 100.0 * self.node_gb


@attrs.frozen
class NodeFreeGbRequest:
    """Free `amount` GB on `node`."""

    node: str
    amount: float = 0.0


@attrs.frozen
class MigrationCmd:
    """Migrate `pod` (using `usage` GB) to `new_node` ("" until validated)."""

    pod: str
    usage: float
    new_node: str = ""


class RequestPolicy(Protocol):
    """Finds the nodes that need memory freed and validates migrations away from one."""

    def requests(self) -> list[NodeFreeGbRequest]:
        """The requests of this tick, in node-name order."""
        ...

    def validate(self, from_node: str, cmds: Sequence[MigrationCmd]) -> list[MigrationCmd]:
        """The commands that fit on the target node, with `new_node` set."""
        ...


def _free_gb_amount(threshold: float, free_percent: float, cluster: Cluster) -> float:
    return threshold / 100.0 * cluster.node_gb - cluster.gb(free_percent)


def _least_used_node(free: dict[str, float], origin: str) -> str:
    """The node other than `origin` with the most free memory (> 0 %); "" when none."""
    best, best_node = 0.0, ""
    for node in sorted(free):
        if free[node] > best and node != origin:
            best, best_node = free[node], node
    return best_node


@attrs.define
class _Validating:
    threshold: float
    cluster: Cluster
    client: MemoryClient

    def validate(self, from_node: str, cmds: Sequence[MigrationCmd]) -> list[MigrationCmd]:
        free = self.client.free_memory_of_nodes()
        target = _least_used_node(free, from_node)
        free_gb = self.cluster.gb(free.get(target, 0.0))
        valid: list[MigrationCmd] = []
        for cmd in cmds:
            left = free_gb - cmd.usage
            if self.cluster.percent(left) < self.threshold + 5.0:
                continue  # the target would come too close to the threshold: skip, try the next
            valid.append(attrs.evolve(cmd, new_node=target))
            free_gb = left
        return valid


@attrs.define
class ThresholdPolicy(_Validating):
    """Every node with less than `threshold` % free asks for the GB missing up to the threshold."""

    def requests(self) -> list[NodeFreeGbRequest]:
        free = self.client.free_memory_of_nodes()
        return [NodeFreeGbRequest(node, _free_gb_amount(self.threshold, free[node], self.cluster))
                for node in sorted(free) if free[node] < self.threshold]


@attrs.define
class SlopeRequester(_Validating):
    """Like the threshold policy, on the free memory predicted `prediction_time` slope units ahead."""

    prediction_time: float = 5.0

    def requests(self) -> list[NodeFreeGbRequest]:
        free = self.client.free_memory_of_nodes()
        out: list[NodeFreeGbRequest] = []
        for node in sorted(free):
            try:
                pods = self.client.pod_memories(node)
            except ClientError:
                pods = {}
            slope = 0.0
            for pod in sorted(pods):
                try:
                    slope += self.client.pod_memory_slope(node, pod)
                except ClientError:
                    slope += -1.0  # the Go client answers -1 with its error, and the requester adds it
            predicted_free = free[node] - self.cluster.percent(slope * self.prediction_time)
            if predicted_free < self.threshold:
                out.append(NodeFreeGbRequest(node, _free_gb_amount(self.threshold, predicted_free, self.cluster)))
        return out


def make_request_policy(kind: str, threshold: float, cluster: Cluster, client: MemoryClient) -> RequestPolicy:
    """"threshold" or "slope" (anything else is a ValueError naming the choices)."""
    if kind == "threshold":
        return ThresholdPolicy(threshold, cluster, client)
    if kind == "slope":
        return SlopeRequester(threshold, cluster, client)
    raise ValueError(f"unknown request policy {kind!r} (expected threshold or slope)")
