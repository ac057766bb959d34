"""InterPodAffinityArgs with v1 defaults.

upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_InterPodAffinityArgs),
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateInterPodAffinityArgs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["InterPodAffinityArgs"]

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1


@dataclass(frozen=True)
class InterPodAffinityArgs:
    """Plugin arguments: hardPodAffinityWeight (0-100) and ignorePreferredTermsOfExistingPods."""

    hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    ignore_preferred_terms_of_existing_pods: bool = False

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> InterPodAffinityArgs:
        """Parse the args object of a KubeSchedulerConfiguration pluginConfig entry."""
        raw = raw or {}
        w = raw.get("hardPodAffinityWeight")
        weight = DEFAULT_HARD_POD_AFFINITY_WEIGHT if w is None else int(w)
        if not 0 <= weight <= 100:
            raise ValueError(f"hardPodAffinityWeight: Invalid value: {weight}: not in valid range [0-100]")
        return cls(weight, bool(raw.get("ignorePreferredTermsOfExistingPods", False)))
