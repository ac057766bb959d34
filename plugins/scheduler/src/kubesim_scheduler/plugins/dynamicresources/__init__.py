"""DynamicResources (resource.k8s.io/v1 device claims): plugin, structured allocator, CEL selectors."""

from __future__ import annotations

from .allocator import AllocationError, AllocationTimeout, Allocator, gather_pools
from .cel import CelError, compile_selector, device_matches
from .claims import FINALIZER, claim_name, is_for_pod, is_reserved_for_pod
from .plugin import DynamicResources

__all__ = [
    "PLUGIN",
    "AllocationError",
    "AllocationTimeout",
    "Allocator",
    "CelError",
    "DynamicResources",
    "FINALIZER",
    "claim_name",
    "compile_selector",
    "device_matches",
    "gather_pools",
    "is_for_pod",
    "is_reserved_for_pod",
]

PLUGIN = DynamicResources
