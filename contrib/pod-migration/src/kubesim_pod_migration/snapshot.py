"""Node and pod memory from one metrics record (k8s-cluster-simulator's JSON shape).

The fork pushes each iteration's node and pod metrics into its client; here the record is
the `Tick.metrics` of kubesim.simtime (Nodes: Allocatable, TotalResourceUsage; Pods:
ResourceUsage, Node, ExecutedSeconds, Status), with quantities as strings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from kubesim.k8s.quantity import parse_quantity

from kubesim_pod_migration.client import NodeMemory, PodMemory

__all__ = ["memory_bytes", "node_memory", "pod_memory"]


@lru_cache(maxsize=65536)
def _bytes(text: str) -> int:
    return math.ceil(parse_quantity(text))


def memory_bytes(resources: Any) -> int:
    """The memory of a ResourceList as bytes (rounded up); 0 when absent or not a quantity."""
    if not isinstance(resources, Mapping):
        return 0
    text = resources.get("memory")
    if text is None:
        return 0
    try:
        return _bytes(str(text))
    except (ValueError, ArithmeticError):
        return 0


def node_memory(record: Mapping[str, Any]) -> dict[str, NodeMemory]:
    """Allocatable and used memory of every node in the record."""
    nodes = record.get("Nodes") or {}
    return {name: NodeMemory(memory_bytes(m.get("Allocatable")), memory_bytes(m.get("TotalResourceUsage")))
            for name, m in sorted(nodes.items()) if isinstance(m, Mapping)}


def pod_memory(record: Mapping[str, Any], runtimes: Mapping[str, int]) -> dict[str, PodMemory]:
    """Usage, node and seconds of every running pod in the record ("ns/name" keys); `runtimes` by pod name.

    The fork's client also lists terminating and failed pods; here they cannot be chosen for a
    migration (a deleted job would come back on the target). Their memory still counts in the
    node's usage."""
    pods = record.get("Pods") or {}
    out: dict[str, PodMemory] = {}
    for key, m in sorted(pods.items()):
        if not isinstance(m, Mapping) or not m.get("Node") or m.get("Status", "Ok") != "Ok":
            continue  # terminating (Deleted) and failed (OverCapacity) pods are no candidates
        name = key.split("/", 1)[-1]
        runtime = m.get("Runtime")
        out[key] = PodMemory(str(m["Node"]), memory_bytes(m.get("ResourceUsage")),
                             runtime if isinstance(runtime, int) else runtimes.get(name, 0),
                             int(m.get("ExecutedSeconds") or 0))
    return out
