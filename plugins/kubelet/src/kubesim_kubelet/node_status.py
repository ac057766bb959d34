"""Node status as a healthy kubelet posts it (KWOK's node-initialize stage).

Source of the shapes: kubernetes-sigs/kwok kustomize/stage/node/fast/node-initialize.yaml
and its NodeConditions (the kubelet's standard conditions with their reasons and messages).
The scenario's own Ready=False/Unknown is kept: such a node's kubelet counts as down.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["NODE_CONDITIONS", "internal_ip", "node_ready_state", "node_status_update"]

NODE_CONDITIONS: tuple[tuple[str, str, str, str], ...] = (
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route"),
)
"""(type, status, reason, message) of every condition a healthy kubelet reports."""

KUBELET_PORT = 10250
_NODE_INFO_DEFAULTS = (
    ("architecture", "amd64"),
    ("bootID", ""),
    ("containerRuntimeVersion", "kubesim"),
    ("kernelVersion", "kubesim"),
    ("kubeProxyVersion", "kubesim"),
    ("kubeletVersion", "kubesim"),
    ("machineID", ""),
    ("operatingSystem", "linux"),
    ("osImage", ""),
    ("systemUUID", ""),
)


def node_ready_state(node: Mapping[str, Any]) -> str | None:
    """The status of the node's Ready condition ("True", "False", "Unknown"), None when absent."""
    for c in (node.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return str(c.get("status"))
    return None


def internal_ip(node: Mapping[str, Any]) -> str | None:
    """The node's first InternalIP address, if it has one."""
    for a in (node.get("status") or {}).get("addresses") or ():
        if isinstance(a, dict) and a.get("type") == "InternalIP" and a.get("address"):
            return str(a["address"])
    return None


def node_status_update(node: Mapping[str, Any], now: str, new_ip: str | None) -> dict[str, Any] | None:
    """The status a healthy kubelet would post for `node`, or None when nothing is missing.

    Missing standard conditions are added (heartbeat `now`, transition at the node's
    creation); existing ones keep their status and only get missing reason, message and
    times. Addresses (InternalIP `new_ip` when none is given, Hostname), daemonEndpoints and
    nodeInfo are filled in where absent; capacity and allocatable stay the scenario's.
    Nodes whose Ready condition is False or Unknown are left alone (None).
    """
    if node_ready_state(node) in ("False", "Unknown"):
        return None
    status = dict(node.get("status") or {})
    created = (node.get("metadata") or {}).get("creationTimestamp") or now
    conditions = [dict(c) for c in status.get("conditions") or () if isinstance(c, dict)]
    by_type = {c.get("type"): c for c in conditions}
    for kind, value, reason, message in NODE_CONDITIONS:
        c = by_type.get(kind)
        if c is None:
            conditions.append({
                "type": kind, "status": value, "reason": reason, "message": message,
                "lastHeartbeatTime": now, "lastTransitionTime": created,
            })
            continue
        if c.get("status") == value:
            c.setdefault("reason", reason)
            c.setdefault("message", message)
        c.setdefault("lastHeartbeatTime", now)
        c.setdefault("lastTransitionTime", created)
    status["conditions"] = conditions
    addresses = [dict(a) for a in status.get("addresses") or () if isinstance(a, dict)]
    types = {a.get("type") for a in addresses}
    if "InternalIP" not in types and new_ip is not None:
        addresses.append({"type": "InternalIP", "address": new_ip})
    if "Hostname" not in types:
        addresses.append({"type": "Hostname", "address": (node.get("metadata") or {}).get("name", "")})
    status["addresses"] = addresses
    endpoints = dict(status.get("daemonEndpoints") or {})
    endpoints.setdefault("kubeletEndpoint", {"Port": KUBELET_PORT})
    status["daemonEndpoints"] = endpoints
    info = dict(status.get("nodeInfo") or {})
    for key, default in _NODE_INFO_DEFAULTS:
        info.setdefault(key, default)
    status["nodeInfo"] = info
    status.setdefault("phase", "Running")
    if status == node.get("status"):
        return None
    return status
