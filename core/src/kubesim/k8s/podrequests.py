"""A pod's effective resource requests, as Kubernetes' resource helpers compute them.

PodRequests: the larger of the containers' sum and every init step (restartable init
containers, i.e. sidecars, add to the sum and to every later step), pod-level requests in
place of the aggregate for cpu, memory and hugepages (PodLevelResources, beta and on by
default in v1.34), plus the pod overhead. Amounts are exact integer nano-units (see
`kubesim.k8s.quantity`), summed before any rounding as upstream sums Quantity values.
"""

# upstream: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests,
# AggregateContainerRequests, IsPodLevelRequestsSet, applyNonMissing), release-1.34;
# pkg/scheduler/util/pod_resources.go (DefaultMilliCPURequest, DefaultMemoryRequest);
# pkg/scheduler/framework/types.go (CalculateResource, getNonMissingContainerRequests)

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .quantity import NANO, QuantityError, parse_nano
from .values import json_kind

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "NON_ZERO_DEFAULTS",
    "is_pod_level_requests_set",
    "is_supported_pod_level_resource",
    "non_zero_pod_requests",
    "pod_requests",
    "resource_list",
]

DEFAULT_MILLI_CPU_REQUEST = 100
"""The scheduler's cpu request for a container that asks for none (0.1 core), in milli-units."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""The scheduler's memory request for a container that asks for none (200 MiB), in bytes."""
NON_ZERO_DEFAULTS: Mapping[str, int] = {
    "cpu": DEFAULT_MILLI_CPU_REQUEST * 10**6,
    "memory": DEFAULT_MEMORY_REQUEST * NANO,
}
"""The non-zero defaults in nano-units (NonMissingContainerRequests)."""

_POD_LEVEL = ("cpu", "memory")


def resource_list(rl: Mapping[str, Any] | None, path: str = "") -> dict[str, int]:
    """A ResourceList (name -> quantity) in nano-units; QuantityError on a bad quantity or a
    value that is not an object, naming the field as `path[name]`."""
    if not rl:
        return {}
    if not isinstance(rl, Mapping):
        raise QuantityError(f"{path}: must be an object of resource names to quantities, not {json_kind(rl)}")
    try:
        return {k: parse_nano(v) for k, v in rl.items()}
    except QuantityError:
        for k, v in rl.items():  # the first bad one, named (off the hot path)
            try:
                parse_nano(v)
            except QuantityError as exc:
                raise QuantityError(f"{path}[{k}]: {exc}") from None
        raise


def _container_requests(c: Mapping[str, Any], path: str, i: int) -> dict[str, int]:
    """A container's resources.requests; the error names spec.<path>[i].resources.requests."""
    try:
        return resource_list((c.get("resources") or {}).get("requests"))
    except QuantityError as exc:
        raise QuantityError(f"spec.{path}[{i}].resources.requests{exc}") from None


def _add(dst: dict[str, int], src: Mapping[str, int]) -> None:
    for k, v in src.items():
        dst[k] = dst.get(k, 0) + v


def _max_into(dst: dict[str, int], src: Mapping[str, int]) -> None:
    for k, v in src.items():
        if k not in dst or v > dst[k]:
            dst[k] = v


def _apply_non_missing(reqs: Mapping[str, int], non_missing: Mapping[str, int]) -> dict[str, int]:
    out = dict(reqs)
    for k, v in non_missing.items():
        if k not in reqs:
            out[k] = out.get(k, 0) + v
    return out


def is_supported_pod_level_resource(name: str) -> bool:
    """cpu, memory and hugepages-* can be requested at pod level (IsSupportedPodLevelResource)."""
    return name in _POD_LEVEL or name.startswith("hugepages-")


def is_pod_level_requests_set(pod: Mapping[str, Any]) -> bool:
    """Pod-level requests (spec.resources.requests) name a supported resource."""
    res = (pod.get("spec") or {}).get("resources") or {}
    return any(is_supported_pod_level_resource(k) for k in (res.get("requests") or {}))


def _resize_infeasible(pod: Mapping[str, Any]) -> bool:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if c.get("type") == "PodResizePending":
            return bool(c.get("reason") == "Infeasible")
    return False


def _status_requests(pod: Mapping[str, Any], container: Mapping[str, Any], cs: Mapping[str, Any]) -> dict[str, int]:
    """determineContainerReqs: the larger of spec, status and allocated requests."""
    out = resource_list((cs.get("resources") or {}).get("requests"))
    _max_into(out, resource_list(cs.get("allocatedResources")))
    if not _resize_infeasible(pod):
        _max_into(out, resource_list((container.get("resources") or {}).get("requests")))
    return out


def pod_requests(
    pod: Mapping[str, Any],
    *,
    non_missing: Mapping[str, int] | None = None,
    use_status: bool = False,
    skip_pod_level: bool = False,
    exclude_overhead: bool = False,
) -> dict[str, int]:
    """resourcehelper.PodRequests in nano-units (the options are PodResourcesOptions').

    `non_missing` fills in requests a container leaves out (NonMissingContainerRequests);
    `use_status` reads resized containers' status resources (UseStatusResources).
    """
    spec = pod.get("spec") or {}
    statuses: dict[str, Mapping[str, Any]] = {}
    if use_status:
        st = pod.get("status") or {}
        for cs in st.get("containerStatuses") or ():
            statuses[cs.get("name", "")] = cs
        for cs in st.get("initContainerStatuses") or ():
            statuses[cs.get("name", "")] = cs

    reqs: dict[str, int] = {}
    for i, c in enumerate(spec.get("containers") or ()):
        creq = _container_requests(c, "containers", i)
        if use_status:
            cs = statuses.get(c.get("name", ""))
            if cs is not None and cs.get("resources") is not None:
                creq = _status_requests(pod, c, cs)
        if non_missing:
            creq = _apply_non_missing(creq, non_missing)
        _add(reqs, creq)

    restartable: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for i, c in enumerate(spec.get("initContainers") or ()):
        creq = _container_requests(c, "initContainers", i)
        sidecar = c.get("restartPolicy") == "Always"
        if use_status and sidecar:
            cs = statuses.get(c.get("name", ""))
            if cs is not None and cs.get("resources") is not None:
                creq = _status_requests(pod, c, cs)
        if non_missing:
            creq = _apply_non_missing(creq, non_missing)
        if sidecar:
            _add(reqs, creq)
            _add(restartable, creq)
            step = dict(restartable)
        else:
            step = dict(creq)
            _add(step, restartable)
        _max_into(init_max, step)
    _max_into(reqs, init_max)

    if not skip_pod_level and is_pod_level_requests_set(pod):
        for k, v in ((spec.get("resources") or {}).get("requests") or {}).items():
            if is_supported_pod_level_resource(k):
                reqs[k] = parse_nano(v)

    if not exclude_overhead and spec.get("overhead"):
        _add(reqs, resource_list(spec["overhead"], "spec.overhead"))
    return reqs


def non_zero_pod_requests(
    pod: Mapping[str, Any], requests: Mapping[str, int] | None = None, *, use_status: bool = True
) -> dict[str, int]:
    """The scheduler's non-zero requests: PodRequests with 100m cpu / 200Mi memory for
    containers that ask for none, or, when pod-level requests are set, for whichever of the
    two the pod leaves out (CalculateResource). `requests` is PodRequests if already known.
    """
    reqs = pod_requests(pod, use_status=use_status) if requests is None else requests
    if is_pod_level_requests_set(pod):
        non_missing = {k: v for k, v in NON_ZERO_DEFAULTS.items() if k not in reqs}
    else:
        non_missing = dict(NON_ZERO_DEFAULTS)
    if not non_missing:
        return dict(reqs)
    return pod_requests(pod, use_status=use_status, non_missing=non_missing)
