"""Node-level usage: the sum of what the pods bound to a node use at a given time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from .simspec import usage_at

__all__ = ["node_usage"]


def node_usage(pods: Iterable[Mapping[str, Any]], node_name: str, t: datetime) -> dict[str, Decimal]:
    """Sum `usage_at(pod, t)` over the pods bound to `node_name`, by resource (sorted by name).

    Pass the pods of a cluster (`cluster.list("v1", "Pod")`) or of an exported state; pods
    that have been deleted are not in such a list, so they use nothing.
    """
    total: dict[str, Decimal] = {}
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName") != node_name:
            continue
        for name, value in usage_at(pod, t).items():
            total[name] = total.get(name, Decimal(0)) + value
    return dict(sorted(total.items()))
