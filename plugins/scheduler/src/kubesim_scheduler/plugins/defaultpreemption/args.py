"""DefaultPreemptionArgs with v1 defaults and validation."""

# upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_DefaultPreemptionArgs),
# pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateDefaultPreemptionArgs)

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DefaultPreemptionArgs"]

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100


@dataclass(frozen=True)
class DefaultPreemptionArgs:
    """How many candidate nodes the dry run looks for: max(absolute, percentage of nodes)."""

    min_candidate_nodes_percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    min_candidate_nodes_absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> DefaultPreemptionArgs:
        """Parse (and default) a pluginConfig args object; raise ValueError when invalid."""
        raw = raw or {}
        pct = raw.get("minCandidateNodesPercentage")
        absolute = raw.get("minCandidateNodesAbsolute")
        args = cls(
            DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE if pct is None else int(pct),
            DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE if absolute is None else int(absolute),
        )
        problems = args.validate()
        if problems:
            raise ValueError("; ".join(problems))
        return args

    def validate(self) -> list[str]:
        pct, absolute = self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute
        out = []
        if not 0 <= pct <= 100:
            out.append(f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range [0, 100]")
        if absolute < 0:
            out.append(f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)")
        if pct == 0 and absolute == 0:
            out.append("minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute")
            out.append("minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage")
        return out

    def num_candidates(self, num_nodes: int) -> int:
        """calculateNumCandidates: max(percentage of nodes, absolute), at most num_nodes."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)
