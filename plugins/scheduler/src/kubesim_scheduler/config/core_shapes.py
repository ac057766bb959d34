"""Typed mirrors of the core v1 objects that appear inside plugin args.

They exist only to check the shape of those dicts at decode time (unknown fields, wrong
types) and to give the validators typed access; args keep the dicts themselves.
Upstream: k8s.io/api/core/v1 TopologySpreadConstraint, NodeAffinity, LabelSelector.
"""

from __future__ import annotations

import attrs

from kubesim_scheduler.config.field_kinds import int32

__all__ = [
    "LabelSelector",
    "LabelSelectorRequirement",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PreferredSchedulingTerm",
    "TopologySpreadConstraint",
]


@attrs.frozen
class LabelSelectorRequirement:
    """metav1.LabelSelectorRequirement."""

    key: str = ""
    operator: str = ""
    values: tuple[str, ...] = ()


@attrs.frozen
class LabelSelector:
    """metav1.LabelSelector."""

    match_labels: dict[str, str] = attrs.Factory(dict)
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()


@attrs.frozen
class TopologySpreadConstraint:
    """v1.TopologySpreadConstraint."""

    max_skew: int = int32(0)
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: LabelSelector | None = None
    min_domains: int | None = int32(None)
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@attrs.frozen
class NodeSelectorRequirement:
    """v1.NodeSelectorRequirement."""

    key: str = ""
    operator: str = ""
    values: tuple[str, ...] = ()


@attrs.frozen
class NodeSelectorTerm:
    """v1.NodeSelectorTerm (the requirements are ANDed)."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


@attrs.frozen
class NodeSelector:
    """v1.NodeSelector (the terms are ORed)."""

    node_selector_terms: tuple[NodeSelectorTerm, ...] = ()


@attrs.frozen
class PreferredSchedulingTerm:
    """v1.PreferredSchedulingTerm."""

    weight: int = int32(0)
    preference: NodeSelectorTerm = NodeSelectorTerm()


@attrs.frozen
class NodeAffinity:
    """v1.NodeAffinity."""

    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: tuple[PreferredSchedulingTerm, ...] = ()
