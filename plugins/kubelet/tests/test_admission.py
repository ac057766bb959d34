"""The kubelet's resource admission: OutOf<resource> rejections, as the real kubelet words them."""

from __future__ import annotations

from typing import Any

from kubesim_kubelet.admission import rejection

NODE = {"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "2"}}}


def _pod(cpu: str, memory: str = "1Gi", phase: str = "Running") -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
            "status": {"phase": phase}}


def test_a_pod_that_fits_is_admitted() -> None:
    assert rejection(_pod("2"), NODE, [_pod("2")]) is None


def test_cpu_beyond_allocatable_is_out_of_cpu_in_millicores() -> None:
    assert rejection(_pod("2500m"), NODE, [_pod("2")]) == (
        "OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 2500, used: 2000, "
                    "capacity: 4000")


def test_memory_in_bytes_and_finished_pods_do_not_count() -> None:
    assert rejection(_pod("1", "5Gi"), NODE, [_pod("1", "4Gi"), _pod("3", "8Gi", phase="Succeeded")]) == (
        "OutOfmemory", "Pod was rejected: Node didn't have enough resource: memory, requested: 5368709120, "
                       "used: 4294967296, capacity: 8589934592")


def test_the_pod_count_is_checked_first() -> None:
    reason, message = rejection(_pod("100m"), NODE, [_pod("100m"), _pod("100m")]) or ("", "")
    assert (reason, message) == ("OutOfpods", "Pod was rejected: Node didn't have enough resource: pods, "
                                              "requested: 1, used: 2, capacity: 2")
