"""The extension points each in-tree plugin of kube-scheduler v1.34 implements.

Upstream: the `var _ framework.XPlugin = &Y{}` assertions in
pkg/scheduler/framework/plugins/*. Handy as the `resolve` registry in tests, and as a
check for the framework's own plugin classes.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubesim_scheduler.config.types import ExtensionPoint

__all__ = ["IN_TREE_PLUGINS"]

IN_TREE_PLUGINS: Mapping[str, frozenset[ExtensionPoint]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DefaultPreemption": frozenset({"preEnqueue", "postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter", "reserve", "preBind"}),
}
