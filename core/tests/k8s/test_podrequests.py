"""PodRequests. Cases ported from k8s.io/component-helpers resource/helpers_test.go
(TestPodRequestsAndLimits, TestPodRequestsAndLimitsWithoutOverhead, TestPodResourceRequests:
init containers, restartable init containers, overhead, resized containers, pod-level
resources) and the scheduler's non-zero requests (framework/types_test.go CalculateResource)."""

from __future__ import annotations

from typing import Any

import pytest
from kubesim.k8s.podrequests import (
    resource_list,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    is_pod_level_requests_set,
    non_zero_pod_requests,
    pod_requests,
)
from kubesim.k8s.quantity import NANO, QuantityError, parse_nano

ALWAYS = "Always"


def c(requests: dict[str, Any] | None = None, *, name: str = "", restart: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "resources": {"requests": requests} if requests is not None else {}}
    if restart:
        out["restartPolicy"] = restart
    return out


def pod(containers: list[dict[str, Any]], init: list[dict[str, Any]] | None = None, **spec: Any) -> dict[str, Any]:
    return {"spec": {"containers": containers, "initContainers": init or [], **spec}}


def q(rl: dict[str, str]) -> dict[str, int]:
    return {k: parse_nano(v) for k, v in rl.items()}


CASES = [
    ("just-overhead", pod([c()], overhead={"cpu": "5", "memory": "5"}), {}, {"cpu": "5", "memory": "5"}),
    ("req-and-overhead", pod([c({"cpu": "1", "memory": "10"})], overhead={"cpu": "5", "memory": "5"}), {},
     {"cpu": "6", "memory": "15"}),
    ("two containers, overhead excluded",
     pod([c({"cpu": "1", "memory": "5"}), c({"cpu": "4", "memory": "12"})], overhead={"cpu": "3", "memory": "8"}),
     {"exclude_overhead": True}, {"cpu": "5", "memory": "17"}),
    ("massive init wins, overhead excluded",
     pod([c({"cpu": "1", "memory": "5"}), c({"cpu": "4", "memory": "12"})],
         [c({"cpu": "1", "memory": "5"}), c({"cpu": "40", "memory": "120"})], overhead={"cpu": "3", "memory": "8"}),
     {"exclude_overhead": True}, {"cpu": "40", "memory": "120"}),
    ("larger init container", pod([c({"cpu": "1"})], [c({"cpu": "4"})]), {}, {"cpu": "4"}),
    ("larger containers", pod([c({"cpu": "2"}), c({"cpu": "3"})], [c({"cpu": "2"})]), {}, {"cpu": "5"}),
    ("pod overhead included", pod([c({"cpu": "2"}), c({"cpu": "3"})], [c({"cpu": "2"})],
                                  overhead={"cpu": "1", "memory": "1Gi"}), {}, {"cpu": "6", "memory": "1Gi"}),
    # restartable init containers (sidecars) run beside the containers and every later init step
    ("restartable init container", pod([c({"cpu": "1"})], [c({"cpu": "1"}, restart=ALWAYS)]), {}, {"cpu": "2"}),
    ("multiple restartable and regular init containers",
     pod([c({"cpu": "1"})], [c({"cpu": "1"}, restart=ALWAYS), c({"cpu": "2"}, restart=ALWAYS), c({"cpu": "5"})]),
     {}, {"cpu": "8"}),
    ("regular init before the sidecar does not add it",
     pod([c({"cpu": "1"})], [c({"cpu": "5"}), c({"cpu": "1"}, restart=ALWAYS)]), {}, {"cpu": "5"}),
    ("sidecar and containers exceed every init step",
     pod([c({"cpu": "3"})], [c({"cpu": "2"}, restart=ALWAYS), c({"cpu": "1"})]), {}, {"cpu": "5"}),
    # resized containers (UseStatusResources)
    ("resized, infeasible",
     {"spec": {"containers": [c({"cpu": "4"}, name="c1")]},
      "status": {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
                 "containerStatuses": [{"name": "c1", "resources": {"requests": {"cpu": "2"}}}]}},
     {"use_status": True}, {"cpu": "2"}),
    ("resized, infeasible & in-progress",
     {"spec": {"containers": [c({"cpu": "6"}, name="c1")]},
      "status": {"conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
                 "containerStatuses": [{"name": "c1", "allocatedResources": {"cpu": "4"},
                                        "resources": {"requests": {"cpu": "2"}}}]}},
     {"use_status": True}, {"cpu": "4"}),
    ("resized, no resize status",
     {"spec": {"containers": [c({"cpu": "4"}, name="c1")]},
      "status": {"containerStatuses": [{"name": "c1", "resources": {"requests": {"cpu": "2"}}}]}},
     {"use_status": True}, {"cpu": "4"}),
    # pod-level resources replace the aggregate for cpu, memory and hugepages; overhead still adds
    ("pod-level requests", pod([c({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"})],
                               resources={"requests": {"cpu": "3"}}), {},
     {"cpu": "3", "memory": "1Gi", "nvidia.com/gpu": "1"}),
    ("pod-level requests and overhead", pod([c({"cpu": "1"})], resources={"requests": {"cpu": "3", "hugepages-2Mi": "4Mi"}},
                                            overhead={"cpu": "500m"}), {},
     {"cpu": "3500m", "hugepages-2Mi": "4Mi"}),
    ("pod-level requests skipped", pod([c({"cpu": "1"})], resources={"requests": {"cpu": "3"}}),
     {"skip_pod_level": True}, {"cpu": "1"}),
    ("pod-level requests of unsupported resources only", pod([c({"cpu": "1"})], resources={"requests": {"nvidia.com/gpu": "3"}}),
     {}, {"cpu": "1"}),
]


@pytest.mark.parametrize(("name", "the_pod", "options", "expected"), CASES, ids=[x[0] for x in CASES])
def test_pod_requests(name: str, the_pod: dict[str, Any], options: dict[str, Any], expected: dict[str, str]) -> None:
    assert pod_requests(the_pod, **options) == q(expected)


def test_pod_level_requests_set() -> None:
    assert is_pod_level_requests_set(pod([], resources={"requests": {"memory": "1"}}))
    assert is_pod_level_requests_set(pod([], resources={"requests": {"hugepages-1Gi": "1Gi"}}))
    assert not is_pod_level_requests_set(pod([], resources={"requests": {"example.com/x": "1"}}))
    assert not is_pod_level_requests_set(pod([], resources={"limits": {"cpu": "1"}}))


def test_non_missing_requests_only_fill_gaps() -> None:
    """applyNonMissing: an explicit zero stays zero; a missing request gets the default."""
    defaults = {"cpu": 100 * 10**6, "memory": 200 * 2**20 * NANO}
    p = pod([c({"cpu": "0"}), c()])
    assert pod_requests(p, non_missing=defaults) == {"cpu": 100 * 10**6, "memory": 2 * 200 * 2**20 * NANO}


@pytest.mark.parametrize(
    ("the_pod", "cpu_milli", "memory"),
    [
        (pod([c()]), DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
        (pod([c({"cpu": "1"}), c({"memory": "1Gi"})]), 1000 + DEFAULT_MILLI_CPU_REQUEST, 2**30 + DEFAULT_MEMORY_REQUEST),
        (pod([c({"cpu": "0", "memory": "0"})]), 0, 0),
        # pod-level requests: only what the pod leaves out gets a default, once
        (pod([c(), c()], resources={"requests": {"cpu": "2"}}), 2000, 2 * DEFAULT_MEMORY_REQUEST),
        (pod([c()], resources={"requests": {"cpu": "2", "memory": "1Gi"}}), 2000, 2**30),
    ],
)
def test_non_zero_pod_requests(the_pod: dict[str, Any], cpu_milli: int, memory: int) -> None:
    reqs = non_zero_pod_requests(the_pod)
    assert reqs.get("cpu", 0) == cpu_milli * 10**6
    assert reqs.get("memory", 0) == memory * NANO


def test_bad_quantity_is_named() -> None:
    with pytest.raises(QuantityError, match="invalid quantity 'lots'"):
        pod_requests(pod([c({"cpu": "lots"})]))


@pytest.mark.parametrize(("pod", "message"), [
    ({"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "x"}}}]}},
     "spec.containers[1].resources.requests[cpu]: invalid quantity 'x'"),
    ({"spec": {"initContainers": [{"resources": {"requests": "lots"}}]}},
     "spec.initContainers[0].resources.requests: must be an object of resource names to quantities, not a string"),
    ({"spec": {"overhead": {"memory": [1]}}}, "spec.overhead[memory]: invalid quantity [1]: expected a string or a number"),
])
def test_bad_quantities_name_their_field(pod: dict, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        pod_requests(pod)
    assert str(info.value).startswith(message)


def test_resource_list_names_the_field() -> None:
    with pytest.raises(QuantityError, match=r"^status\.allocatable\[cpu\]: invalid quantity 'abc'"):
        resource_list({"pods": "1", "cpu": "abc"}, "status.allocatable")
    with pytest.raises(QuantityError, match="^status.allocatable: must be an object of resource names"):
        resource_list(["cpu"], "status.allocatable")  # type: ignore[arg-type]
