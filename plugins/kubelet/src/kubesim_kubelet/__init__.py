"""kubesim-kubelet: what KWOK does for a real cluster, in simulated time.

Two PreSimulationControllers: `kubelet` (node readiness, the pod lifecycle, graceful
deletion, simSpec resource usage) and `pod-gc` (pods bound to deleted nodes). `usage_at`
and `node_usage` give the simulated resource usage of pods and nodes at any time.
"""

from .kubelet import KubeletController
from .pod_status import node_settled, pod_settled
from .podgc import PodGCController
from .simspec import (
    SIM_SPEC_ANNOTATION,
    USAGE_ANNOTATION,
    SimPhase,
    SimSpec,
    SimSpecError,
    parse_sim_spec,
    sim_spec_of,
    usage_at,
)
from .usage import node_usage

__all__ = [
    "SIM_SPEC_ANNOTATION",
    "USAGE_ANNOTATION",
    "KubeletController",
    "PodGCController",
    "SimPhase",
    "SimSpec",
    "SimSpecError",
    "node_settled",
    "node_usage",
    "parse_sim_spec",
    "pod_settled",
    "sim_spec_of",
    "usage_at",
]
