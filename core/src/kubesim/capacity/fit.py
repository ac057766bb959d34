"""`--pod`: how many more copies of a pod fit, one after another, as cluster-capacity counts them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from kubesim.capacity.copies import pod_copies, pod_key
from kubesim.capacity.simulator import SchedulingSimulator

__all__ = ["LIMIT_REACHED", "MAX_COPIES", "UNSCHEDULABLE", "FitReport", "count_copies"]

MAX_COPIES = 100_000
"""Copies tried when --max is not given (the answer then says LimitReached at this number)."""
UNSCHEDULABLE = "Unschedulable"
LIMIT_REACHED = "LimitReached"


@attrs.frozen
class FitReport:
    """How many copies of `pod` were bound, where, and why the simulation stopped."""

    pod: str
    replicas: int
    limit: int
    fail_type: str
    fail_message: str
    replicas_on_nodes: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        """cluster-capacity's report fields (pkg/framework/report.go), one pod template."""
        return {
            "podName": self.pod,
            "replicas": self.replicas,
            "limit": self.limit,
            "failReason": {"failType": self.fail_type, "failMessage": self.fail_message},
            "replicasOnNodes": [{"nodeName": n, "replicas": c} for n, c in self.replicas_on_nodes],
        }


def count_copies(sim: SchedulingSimulator, template: Mapping[str, Any], taken: Sequence[str],
                 limit: int = MAX_COPIES) -> FitReport:
    """Schedule copies of `template` until one fails (Unschedulable: the scheduler's FitError
    text) or `limit` are bound (LimitReached: Maximum number of pods simulated: N)."""
    # upstream: kubernetes-sigs/cluster-capacity pkg/framework/simulator.go (postBindHook,
    # Update: stop on PodScheduled=False/Unschedulable; the stop reason "Reason: message")
    per_node: Counter[str] = Counter()
    bound = 0
    fail_type, fail_message = LIMIT_REACHED, f"Maximum number of pods simulated: {limit}"
    for pod in pod_copies(template, set(taken)):
        if bound >= limit:
            break
        placement = sim.schedule(pod)
        if placement.node is None:
            fail_type, fail_message = UNSCHEDULABLE, placement.message
            break
        bound += 1
        per_node[placement.node] += 1
    return FitReport(pod=pod_key(template), replicas=bound, limit=limit, fail_type=fail_type,
                     fail_message=fail_message, replicas_on_nodes=tuple(sorted(per_node.items())))
