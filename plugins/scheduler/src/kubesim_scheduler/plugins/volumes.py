"""The volume plugins of the default profile, for clusters where volumes are not modelled.

Each one skips (PreFilter/PreScore Skip) when the pod uses no volume of its kind, as
upstream does, so pods without volumes see exactly upstream's behaviour; pods with such
volumes pass, since kubesim has no PV/PVC/CSI model yet.
"""

# upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go,
# volumerestrictions/volume_restrictions.go, volumezone/volume_zone.go, nodevolumelimits/csi.go

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.interface import (
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
)
from ..framework.node_info import NodeInfo, NodeInfoList
from ..framework.status import Code, Status

__all__ = ["VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"]


def _volumes(pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list((pod.get("spec") or {}).get("volumes") or ())


def _has_pvc(pod: Mapping[str, Any]) -> bool:
    return any("persistentVolumeClaim" in v or "ephemeral" in v for v in _volumes(pod))


class _VolumeFilter(PreFilterPlugin, FilterPlugin):
    def _relevant(self, pod: Mapping[str, Any]) -> bool:
        return _has_pvc(pod)

    def pre_filter(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> tuple[PreFilterResult | None, Status | None]:
        if not self._relevant(pod):
            return None, Status(Code.SKIP)
        return None, None

    def filter(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> Status | None:
        return None


class VolumeRestrictions(_VolumeFilter):
    name = "VolumeRestrictions"

    def _relevant(self, pod: Mapping[str, Any]) -> bool:
        kinds = ("persistentVolumeClaim", "gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
        return any(k in v for v in _volumes(pod) for k in kinds)


class NodeVolumeLimits(_VolumeFilter):
    name = "NodeVolumeLimits"


class VolumeZone(_VolumeFilter):
    name = "VolumeZone"


class VolumeBinding(_VolumeFilter, PreScorePlugin, ScorePlugin, ReservePlugin, PreBindPlugin):
    name = "VolumeBinding"

    def pre_score(self, state: CycleState, pod: Mapping[str, Any], nodes: NodeInfoList) -> Status | None:
        return Status(Code.SKIP)

    def score(self, state: CycleState, pod: Mapping[str, Any], node_info: NodeInfo) -> int:
        return 0

    def reserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Mapping[str, Any], node_name: str) -> Status | None:
        return None
