"""Migration policies: which pods of a node to migrate to satisfy a request.

Port of k8s-migration-controller v1 `pkg/monitoring/migration_policy.go` and
`slope_migrator.go`. Pods are visited in name order (Go visits a map, so its ties fall at
random). `optimal` is the 0/1 knapsack of the Go brute force (weights int(GB), capacity
int(request), value 0.5^migrations x GB), solved exactly by dynamic programming so that a node
with a hundred pods stays fast.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from kubesim_pod_migration.client import ClientError, MemoryClient
from kubesim_pod_migration.requests import Cluster, MigrationCmd, NodeFreeGbRequest

__all__ = [
    "BigEnoughMigrator",
    "MaxMigrator",
    "MigrationPolicy",
    "MigrationPolicyError",
    "OptimalMigrator",
    "SlopeMigrator",
    "count_migrations",
    "make_migration_policy",
]


class MigrationPolicyError(Exception):
    """No pod (set) satisfies the request; the controller gives up for this tick."""


class MigrationPolicy(Protocol):
    """Picks the pods to migrate off `request.node`."""

    def commands(self, request: NodeFreeGbRequest) -> list[MigrationCmd]:
        """Commands without a target node; MigrationPolicyError when the request cannot be met."""
        ...


def count_migrations(name: str) -> int:
    """How often a job migrated: the "m"s before the first "o" of its name (`CountMigrations`)."""
    return name.split("o", 1)[0].count("m")


@attrs.define
class MaxMigrator:
    """The node's largest pod; an error when even it is smaller than the request."""

    cluster: Cluster
    client: MemoryClient

    def commands(self, request: NodeFreeGbRequest) -> list[MigrationCmd]:
        pods = self.client.pod_memories(request.node)
        pod, best = "", -1.0
        for name in sorted(pods):
            if pods[name] > best:
                pod, best = name, pods[name]
        if pods.get(pod, 0.0) < request.amount:
            raise MigrationPolicyError(
                f"migration of pod ({pods.get(pod, 0.0)}) on node {request.node} does not fulfil request ({request.amount})")
        return [MigrationCmd(pod, pods[pod])]


@attrs.define
class BigEnoughMigrator:
    """The node's smallest pod at least as large as the request; an error when there is none."""

    cluster: Cluster
    client: MemoryClient

    def commands(self, request: NodeFreeGbRequest) -> list[MigrationCmd]:
        pods = self.client.pod_memories(request.node)
        pod, smallest = "", 9999.0
        for name in sorted(pods):
            if request.amount <= pods[name] < smallest:
                pod, smallest = name, pods[name]
        if not pod:
            raise MigrationPolicyError(f"no pod on node {request.node} is big enough for request ({request.amount})")
        return [MigrationCmd(pod, pods[pod])]


@attrs.define
class OptimalMigrator:
    """The pods of the most value whose GB (as integers) sum to at most the request (0/1 knapsack).

    Only pods above `min_size` GB count; each migration a pod had halves its value, so pods
    that moved before move again last.
    """

    cluster: Cluster
    client: MemoryClient
    min_size: float = 5.0

    def commands(self, request: NodeFreeGbRequest) -> list[MigrationCmd]:
        pods = self.client.pod_memories(request.node)
        items = [(name, int(gb), 0.5 ** count_migrations(name) * gb)
                 for name, gb in sorted(pods.items()) if gb > self.min_size]
        capacity = int(request.amount)
        if capacity < 0 or not items:
            return []
        best = [0.0] * (capacity + 1)
        taken: list[list[bool]] = []
        for _, weight, value in items:
            row = [False] * (capacity + 1)
            for c in range(capacity, weight - 1, -1):
                if best[c - weight] + value > best[c]:
                    best[c] = best[c - weight] + value
                    row[c] = True
            taken.append(row)
        chosen: list[MigrationCmd] = []
        c = capacity
        for (name, weight, _), row in zip(reversed(items), reversed(taken)):
            if row[c]:
                chosen.append(MigrationCmd(name, pods[name]))
                c -= weight
        return sorted(chosen, key=lambda cmd: cmd.pod)


@attrs.define
class SlopeMigrator:
    """Migrate the fastest-growing pods until the growth predicted `time_ahead` ahead fits the free GB.

    The Go code pushes onto its heap without heapifying, so its order follows Go's map order;
    this port pops the highest slope first, as the code intends (ties: pod name).
    """

    cluster: Cluster
    client: MemoryClient
    time_ahead: float = 5.0

    def commands(self, request: NodeFreeGbRequest) -> list[MigrationCmd]:
        try:
            buffer = self.cluster.gb(self.client.free_memory_node(request.node))
        except ClientError:
            buffer = 0.0
        try:
            pods = self.client.pod_memories(request.node)
        except ClientError:
            pods = {}
        growing: list[tuple[float, str]] = []
        predicted = 0.0
        for name in sorted(pods):
            try:
                slope = self.client.pod_memory_slope(request.node, name)
            except ClientError:
                continue
            if slope > 0:
                growing.append((slope, name))
                predicted += slope * self.time_ahead
        growing.sort(key=lambda item: (-item[0], item[1]))
        chosen: list[MigrationCmd] = []
        for slope, name in growing:
            if not predicted > buffer:
                break
            predicted -= slope * self.time_ahead
            chosen.append(MigrationCmd(name, pods[name]))
        return chosen


def make_migration_policy(kind: str, cluster: Cluster, client: MemoryClient, min_size: float = 5.0,
                          time_ahead: float = 5.0) -> MigrationPolicy:
    """"optimal", "max", "big-enough" or "slope" (anything else is a ValueError naming the choices)."""
    if kind == "optimal":
        return OptimalMigrator(cluster, client, min_size)
    if kind == "max":
        return MaxMigrator(cluster, client)
    if kind == "big-enough":
        return BigEnoughMigrator(cluster, client)
    if kind == "slope":
        return SlopeMigrator(cluster, client, time_ahead)
    raise ValueError(f"unknown migration policy {kind!r} (expected optimal, max, big-enough or slope)")
