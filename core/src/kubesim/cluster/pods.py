"""What the API server does to pods on write: defaulting, QoS class, initial status, validation.

Defaults follow k8s.io/kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod,
SetDefaults_PodSpec, SetDefaults_ContainerPort); the QoS class follows
pkg/apis/core/v1/helper/qos (ComputePodQOS); validation is the part of
pkg/apis/core/validation that the scheduler depends on (containers and their resources).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kubesim.k8s.quantity import parse_quantity
from kubesim.k8s.validation import FieldError, duplicate, invalid, is_dns1123_label, required

__all__ = ["default_pod", "initial_pod_status", "pod_qos_class", "validate_pod"]

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
        for c in spec.get(field) or ():
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
    """Guaranteed, Burstable or BestEffort, from the containers' cpu and memory."""
    spec = pod.get("spec") or {}
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


def validate_pod(pod: dict[str, Any]) -> list[FieldError]:
    """Problems with a pod's spec: containers present, named, unique, valid resources."""
    spec = pod.get("spec")
    if type(spec) is not dict:
        return [required("spec")]
    errs: list[FieldError] = []
    if not spec.get("containers"):
        errs.append(required("spec.containers"))
    names: set[str] = set()
    for field in _CONTAINER_LISTS:
        containers = spec.get(field) or []
        if type(containers) is not list:
            errs.append(invalid(f"spec.{field}", containers, "must be a list of containers"))
            continue
        for i, c in enumerate(containers):
            path = f"spec.{field}[{i}]"
            if type(c) is not dict:
                errs.append(invalid(path, c, "must be a container object"))
                continue
            name = c.get("name")
            if not name:
                errs.append(required(f"{path}.name"))
            elif type(name) is not str:
                errs.append(invalid(f"{path}.name", name, "must be a string"))
            else:
                errs.extend(invalid(f"{path}.name", name, m) for m in is_dns1123_label(name))
                if name in names:
                    errs.append(duplicate(f"{path}.name", name))
                names.add(name)
            errs.extend(_validate_resources(c.get("resources"), f"{path}.resources"))
    return errs


def _validate_resources(resources: Any, path: str) -> list[FieldError]:
    if resources is None:
        return []
    if type(resources) is not dict:
        return [invalid(path, resources, "must be an object")]
    errs: list[FieldError] = []
    parsed: dict[str, dict[str, Decimal]] = {}
    for part in ("limits", "requests"):
        values = resources.get(part) or {}
        if type(values) is not dict:
            errs.append(invalid(f"{path}.{part}", values, "must be a map of resource names to quantities"))
            continue
        parsed[part] = {}
        for name, q in values.items():
            try:
                value = parse_quantity(q)
            except ValueError:
                errs.append(invalid(f"{path}.{part}[{name}]", q, "must be a valid resource quantity"))
                continue
            if value < 0:
                errs.append(invalid(f"{path}.{part}[{name}]", q, "must be greater than or equal to 0"))
            parsed[part][name] = value
    limits, requests = parsed.get("limits", {}), parsed.get("requests", {})
    for name, value in requests.items():
        if name in limits and value > limits[name]:
            errs.append(
                invalid(
                    f"{path}.requests[{name}]",
                    resources["requests"][name],
                    f"must be less than or equal to {name} limit of {resources['limits'][name]}",
                )
            )
    return errs
