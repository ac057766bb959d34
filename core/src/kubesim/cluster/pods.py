"""What the API server does to pods on write: defaulting, QoS class, initial status.

Defaults follow k8s.io/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod,
SetDefaults_PodSpec, SetDefaults_ContainerPort); the QoS class follows
pkg/apis/core/v1/helper/qos (ComputePodQOS). Validation is in kubesim.cluster.validation.podspec.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kubesim.k8s.content_memo import ContentMemo, content_key
from kubesim.k8s.quantity import parse_quantity

__all__ = ["default_pod", "initial_pod_status", "pod_qos_class"]

_CONTAINER_LISTS = ("initContainers", "containers")
_QOS_RESOURCES = ("cpu", "memory")


def default_pod(pod: dict[str, Any]) -> None:
    """Fill in the defaults a decoded v1.Pod gets (in place)."""
    spec = pod.get("spec")
    if type(spec) is not dict:
        return
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    for field in _CONTAINER_LISTS:
        containers = spec.get(field)
        for c in containers if type(containers) is list else ():
            if type(c) is not dict:
                continue
            resources = c.get("resources")
            if type(resources) is dict:
                limits = resources.get("limits")
                if limits and type(limits) is dict:
                    requests = resources.get("requests")
                    if type(requests) is not dict:
                        requests = resources["requests"] = {}
                    for name, value in limits.items():
                        if name not in requests:
                            requests[name] = value
            for port in c.get("ports") or ():
                if type(port) is dict and not port.get("protocol"):
                    port["protocol"] = "TCP"


def pod_qos_class(pod: dict[str, Any]) -> str:
    """Guaranteed, Burstable or BestEffort, from the containers' cpu and memory.

    Remembered by the containers' content (ContentMemo): a workload's pods share them.
    """
    spec = pod.get("spec") or {}
    key = content_key((spec.get("containers"), spec.get("initContainers")))
    known = _QOS.get(key)
    if known is None:
        known = _qos_class(spec)
        _QOS.put(key, known)
    return known


_QOS: ContentMemo[str] = ContentMemo(limit=100_000)


def _qos_class(spec: dict[str, Any]) -> str:
    containers = [c for field in ("containers", "initContainers") for c in spec.get(field) or ()]
    if not all(
        _QOS_RESOURCES[0] in limits and _QOS_RESOURCES[1] in limits
        for limits in ((c.get("resources") or {}).get("limits") or {} for c in containers)
    ):
        # cannot be Guaranteed: only "any positive request or limit?" matters (the common, fast case)
        for c in containers:
            resources = c.get("resources") or {}
            for part in ("requests", "limits"):
                for name, q in (resources.get(part) or {}).items():
                    if name in _QOS_RESOURCES and _positive(q) is not None:
                        return "Burstable"
        return "BestEffort"
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    for c in containers:
        resources = c.get("resources") or {}
        for name, q in (resources.get("requests") or {}).items():
            if name in _QOS_RESOURCES and (value := _positive(q)) is not None:
                requests[name] = requests.get(name, Decimal(0)) + value
        found = set()
        for name, q in (resources.get("limits") or {}).items():
            if name in _QOS_RESOURCES and (value := _positive(q)) is not None:
                found.add(name)
                limits[name] = limits.get(name, Decimal(0)) + value
        if not found.issuperset(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and len(requests) == len(limits) and all(limits.get(n) == v for n, v in requests.items()):
        return "Guaranteed"
    return "Burstable"


def _positive(q: Any) -> Decimal | None:
    try:
        value = parse_quantity(q)
    except ValueError:
        return None
    return value if value > 0 else None


def initial_pod_status(pod: dict[str, Any]) -> dict[str, Any]:
    """The status a new pod starts with (podStrategy.PrepareForCreate)."""
    return {"phase": "Pending", "qosClass": pod_qos_class(pod)}
