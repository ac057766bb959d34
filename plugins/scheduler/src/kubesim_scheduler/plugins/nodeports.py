"""NodePorts: reject nodes where a requested host port (ip, protocol, port) is already in use."""

# upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, NODE, POD, QueueingHint
from ..framework.interface import BatchFilterPlugin, BatchFilterResult, EnqueueExtensions, PreFilterPlugin, PreFilterResult
from ..framework.node_info import HostPortInfo, NodeInfoList
from ..framework.pod_info import HostPort, PodInfo
from ..framework.status import Code, Status

__all__ = ["NodePorts", "ERR_REASON", "fits_ports"]

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_STATE_KEY = "PreFilterNodePorts"


def fits_ports(want: list[HostPort], used: HostPortInfo) -> bool:
    return not any(used.check_conflict(ip, proto, port) for ip, proto, port in want)


class NodePorts(PreFilterPlugin, BatchFilterPlugin, EnqueueExtensions):
    name = "NodePorts"

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        pi = state.pod_info or self.handle.pod_info(pod)
        if not pi.host_ports:
            return None, Status(Code.SKIP)
        state.write(_STATE_KEY, pi.host_ports)
        return None, None

    def filter_batch(self, state: CycleState, pod_info: PodInfo, rows: np.ndarray) -> BatchFilterResult:
        want = state.get(_STATE_KEY)
        if want is None:
            return BatchFilterResult(np.full(len(rows), int(Code.ERROR), dtype=np.int8),
                                     lambda _r: (f'reading "{_STATE_KEY}" from cycleState: not found',))
        t = self.handle.node_table
        fail = np.zeros(len(rows), dtype=bool)
        for i in np.flatnonzero(t.has_ports[rows]).tolist():
            if not fits_ports(want, t.used_ports[int(rows[i])]):
                fail[i] = True
        return BatchFilterResult.from_mask(fail, Code.UNSCHEDULABLE, ERR_REASON)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(POD, ActionType.DELETE), self._after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD)),
        ]

    def _after_pod_deleted(self, pod: Mapping[str, Any], old: Any, new: Any) -> QueueingHint:
        deleted = self.handle.pod_info(old)
        if not deleted.node_name and not (old.get("status") or {}).get("nominatedNodeName"):
            return QueueingHint.QUEUE_SKIP
        if not deleted.host_ports:
            return QueueingHint.QUEUE_SKIP
        used = HostPortInfo()
        for ip, proto, port in deleted.host_ports:
            used.add(ip, proto, port)
        if fits_ports(self.handle.pod_info(pod).host_ports, used):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
