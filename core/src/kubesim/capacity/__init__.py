"""Capacity questions on a cluster, answered by the real scheduler (`kubesim capacity`).

How many more copies of a pod fit (cluster-capacity), how many template nodes to add so that
every pending pod schedules, and which nodes can be drained (cluster compression).
"""

from kubesim.capacity.simulator import Placement, SchedulingSimulator  # isort: skip
from kubesim.capacity.addition import MAX_NODES, AdditionReport, nodes_to_add, template_nodes
from kubesim.capacity.copies import pending_pods, place_all, pod_copies, queue_order
from kubesim.capacity.fit import MAX_COPIES, FitReport, count_copies
from kubesim.capacity.inputs import cluster_objects, load_node_template, load_pod_template, objects_from_files
from kubesim.capacity.removal import RemovalReport, find_removable_nodes, utilization

__all__ = [
    "MAX_COPIES",
    "MAX_NODES",
    "AdditionReport",
    "FitReport",
    "RemovalReport",
    "find_removable_nodes",
    "nodes_to_add",
    "template_nodes",
    "utilization",
    "Placement",
    "SchedulingSimulator",
    "cluster_objects",
    "count_copies",
    "load_node_template",
    "load_pod_template",
    "objects_from_files",
    "pending_pods",
    "place_all",
    "pod_copies",
    "queue_order",
]
