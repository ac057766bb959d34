"""Cluster events that may make a rejected pod schedulable, and how they are matched."""

# upstream: staging/src/k8s.io/kube-scheduler/framework/types.go (ActionType, ClusterEvent,
# QueueingHint), pkg/scheduler/framework/types.go (MatchClusterEvents),
# pkg/scheduler/framework/events.go (NodeSchedulingPropertiesChange)

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from kubesim.k8s.podrequests import pod_requests
from kubesim.k8s.quantity import nano_to_milli

from .pod_info import status_requests_view

__all__ = [
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "QueueingHint",
    "QueueingHintFn",
    "match_cluster_events",
    "node_scheduling_properties_change",
    "pod_scheduling_properties_change",
    "POD", "NODE", "ASSIGNED_POD", "UNSCHEDULED_POD", "WILDCARD",
]


class ActionType(enum.IntFlag):
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATION = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    ALL = (1 << 12) - 1
    UPDATE = ALL & ~(ADD | DELETE)
    NONE = 0


POD = "Pod"
NODE = "Node"
ASSIGNED_POD = "AssignedPod"
UNSCHEDULED_POD = "UnschedulablePod"
WILDCARD = "*"


class QueueingHint(enum.IntEnum):
    QUEUE_SKIP = 0
    QUEUE = 1


# hint(pod_dict, old_obj, new_obj) -> QueueingHint
QueueingHintFn = Callable[[Mapping[str, Any], Any, Any], QueueingHint]


@attrs.frozen(slots=True)
class ClusterEvent:
    resource: str
    action_type: ActionType
    custom_label: str = ""

    def label(self) -> str:
        if self.custom_label:
            return self.custom_label
        return f"{self.resource}{_action_name(self.action_type)}"

    def is_wildcard(self) -> bool:
        return self.resource == WILDCARD and self.action_type == ActionType.ALL


@attrs.frozen(slots=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: QueueingHintFn | None = None


def _action_name(a: ActionType) -> str:
    names = {
        ActionType.ADD: "Add", ActionType.DELETE: "Delete", ActionType.ALL: "All", ActionType.UPDATE: "Update",
    }
    if a in names:
        return names[a]
    return "".join(
        "".join(w.capitalize() for w in (m.name or "").lower().split("_")) for m in ActionType if m in a and m.value and (m.value & (m.value - 1)) == 0
    )


def _match_resource(registered: str, incoming: str) -> bool:
    return (
        registered == WILDCARD
        or registered == incoming
        or (registered == POD and incoming in (ASSIGNED_POD, UNSCHEDULED_POD))
    )


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """True when `incoming` is the same as or more specific than `registered`."""
    return registered.is_wildcard() or (
        _match_resource(registered.resource, incoming.resource)
        and bool(registered.action_type & incoming.action_type)
        and incoming.action_type <= registered.action_type
    )


def node_scheduling_properties_change(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[ClusterEvent]:
    """The specific Node update events between two versions of a node, in upstream order."""
    out = []
    ns, os_ = new.get("status") or {}, old.get("status") or {}
    nsp, osp = new.get("spec") or {}, old.get("spec") or {}
    nm, om = new.get("metadata") or {}, old.get("metadata") or {}
    if bool(nsp.get("unschedulable")) != bool(osp.get("unschedulable")) and not nsp.get("unschedulable"):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT))
    if (ns.get("allocatable") or {}) != (os_.get("allocatable") or {}):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_ALLOCATABLE))
    if (nm.get("labels") or {}) != (om.get("labels") or {}):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL))
    if (nsp.get("taints") or []) != (osp.get("taints") or []):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT))

    def strip(cs: Any) -> dict[Any, Any]:
        return {c.get("type"): c.get("status") for c in cs or ()}

    if strip(ns.get("conditions")) != strip(os_.get("conditions")):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_CONDITION))
    if (nm.get("annotations") or {}) != (om.get("annotations") or {}):
        out.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_ANNOTATION))
    return out


def pod_scheduling_properties_change(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[ClusterEvent]:
    """The specific Pod update events (labels, scale-down, gates removed, tolerations added)."""
    resource = ASSIGNED_POD if (new.get("spec") or {}).get("nodeName") else UNSCHEDULED_POD
    out = []
    if ((new.get("metadata") or {}).get("labels") or {}) != ((old.get("metadata") or {}).get("labels") or {}):
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_LABEL))
    # equal specs and status resources give equal requests: no scale-down to look for
    if (new.get("spec") or {}) != (old.get("spec") or {}) or status_requests_view(new) != status_requests_view(old):
        nr, orq = pod_requests(new, use_status=True), pod_requests(old, use_status=True)
        if any(k not in nr or nano_to_milli(v) > nano_to_milli(nr[k]) for k, v in orq.items()):
            out.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN))
    ng = (new.get("spec") or {}).get("schedulingGates") or []
    og = (old.get("spec") or {}).get("schedulingGates") or []
    if not ng and og:
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))
    if len((new.get("spec") or {}).get("tolerations") or []) != len((old.get("spec") or {}).get("tolerations") or []):
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATION))
    if ((new.get("status") or {}).get("resourceClaimStatuses") or []) != ((old.get("status") or {}).get("resourceClaimStatuses") or []):
        out.append(ClusterEvent(resource, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM))
    if not out:
        out.append(ClusterEvent(resource, ActionType.UPDATE))
    return out
