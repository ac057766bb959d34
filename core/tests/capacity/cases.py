"""Builders for capacity tests: nodes, pods and the files the command reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["node", "pod", "write_list", "write"]


def node(name: str, cpu: str = "2", memory: str = "8Gi", pods: str = "110", zone: str = "a",
         taints: list[dict[str, str]] | None = None, **labels: str) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                              "topology.kubernetes.io/zone": zone, **labels}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                   "capacity": {"cpu": cpu, "memory": memory, "pods": pods}},
    }
    if taints:
        obj["spec"] = {"taints": taints}
    return obj


def pod(name: str, cpu: str = "500m", memory: str = "1Gi", node_name: str | None = None,
        labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}], **spec},
    }
    if node_name:
        obj["spec"]["nodeName"] = node_name
    return obj


def write(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj, indent=1))
    return path


def write_list(path: Path, items: list[dict[str, Any]]) -> Path:
    return write(path, {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
