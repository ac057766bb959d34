"""The in-tree plugin registry: plugin name -> class."""

# upstream: pkg/scheduler/framework/plugins/registry.go

from __future__ import annotations

import importlib
import importlib.util

from ..framework.interface import Plugin
from .defaultbinder import DefaultBinder
from .imagelocality import ImageLocality
from .nodeaffinity import NodeAffinity
from .nodename import NodeName
from .nodeports import NodePorts
from .noderesources import BalancedAllocation, Fit
from .nodeunschedulable import NodeUnschedulable
from .queuesort import PrioritySort
from .schedulinggates import SchedulingGates
from .tainttoleration import TaintToleration
from .volumes import NodeVolumeLimits, VolumeBinding, VolumeRestrictions, VolumeZone

__all__ = ["in_tree_registry"]

_BUILTIN: tuple[type[Plugin], ...] = (
    SchedulingGates, PrioritySort, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
    NodePorts, Fit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
    BalancedAllocation, ImageLocality, DefaultBinder,
)


def in_tree_registry() -> dict[str, type[Plugin]]:
    """All in-tree plugins that are available in this installation."""
    reg: dict[str, type[Plugin]] = {cls.name: cls for cls in _BUILTIN}
    # Plugins written in their own modules (InterPodAffinity, PodTopologySpread,
    # DefaultPreemption) join once their adapter module exists; each exposes PLUGIN.
    for modname in ("interpodaffinity", "podtopologyspread", "defaultpreemption", "dynamicresources"):
        if importlib.util.find_spec(f"{__package__}.{modname}") is None:
            continue
        mod = importlib.import_module(f"{__package__}.{modname}")
        cls = getattr(mod, "PLUGIN", None)
        if cls is not None:
            reg[cls.name] = cls
    return reg
