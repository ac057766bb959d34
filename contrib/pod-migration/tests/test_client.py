"""Port of the fork's pkg/migration/client_test.go and unscheduler_test.go (the sim client, Memorizer)."""

from __future__ import annotations

import pytest

from kubesim_pod_migration.client import ClientError, Memorizer, MetricsClient, NodeMemory, PodMemory, gigabytes

GB = 10**9


def test_client_returns_runtime_and_executed_seconds() -> None:
    sut = MetricsClient()
    sut.update_pod_metrics({"worker": PodMemory("zone3", 50 * GB, runtime=3600, executed=1800)})
    assert sut.runtime("worker") == 3600
    assert sut.execution_time("worker") == 1800
    assert sut.runtime_percentage("worker") == 50.0


def test_memorizer() -> None:
    sut: Memorizer[int] = Memorizer(3)
    sut.update(1)
    assert sut.prior() is None  # no prior yet
    sut.update(2)
    sut.update(3)
    assert (sut.value(), sut.prior()) == (3, 1)
    sut.update(4)
    assert (sut.value(), sut.prior()) == (4, 2)
    sut.update(5)
    sut.update(6)
    assert sut.prior() == 4
    with pytest.raises(ValueError):
        Memorizer(0)


def test_memorizer_keeps_copies_of_pod_maps() -> None:
    pods = {"worker": 1.0}
    sut: Memorizer[dict[str, float]] = Memorizer(3)
    for value in (1.0, 2.0, 3.0):
        pods["worker"] = value
        sut.update(dict(pods))
    assert sut.prior() == {"worker": 1.0}


def test_slope() -> None:
    sut = MetricsClient(memo_interval=3)
    with pytest.raises(ClientError):  # no slope without history
        sut.pod_memory_slope("zone2", "worker2")
    for gb in (50, 75, 80):
        sut.update_pod_metrics({"worker": PodMemory("zone3", gb * GB)})
    for w2, w3 in ((10, 20), (75, 20), (30, 30)):
        sut.update_pod_metrics({"worker2": PodMemory("zone2", w2 * GB), "worker3": PodMemory("zone2", w3 * GB)})
    assert sut.pod_memory_slope("zone2", "worker2") == 20.0
    assert sut.pod_memory_slope("zone2", "worker3") == 10.0
    assert sut.pod_memory_slope("zone3", "worker") == 30.0


def test_free_memory() -> None:
    sut = MetricsClient()
    sut.update_node_metrics({"zone2": NodeMemory(500 * GB, 5 * GB)})
    assert sut.free_memory_node("zone2") == 99.0
    with pytest.raises(ClientError):
        sut.free_memory_node("zone3")
    sut.update_node_metrics({"zone2": NodeMemory(500 * GB, 5 * GB), "zone3": NodeMemory(500 * GB, 10 * GB)})
    assert sut.free_memory_of_nodes() == {"zone2": 99.0, "zone3": 98.0}
    sut.update_node_metrics({"zone3": NodeMemory(400 * GB, 10 * GB)})  # old metrics go
    assert sut.free_memory_of_nodes() == {"zone3": 97.5}


def test_pod_memories() -> None:
    sut = MetricsClient()
    sut.update_pod_metric("worker", PodMemory("zone3", 50 * GB))
    with pytest.raises(ClientError):
        sut.pod_memories("zone1")
    assert sut.pod_memories("zone3") == {"worker": 50.0}
    sut.update_pod_metrics({"z3OLD_worker": PodMemory("zone3", 50 * GB), "z2_worker": PodMemory("zone2", 50 * GB)})
    sut.update_pod_metrics({"z3_worker": PodMemory("zone3", 50 * GB), "z2_worker": PodMemory("zone2", 50 * GB)})
    assert sut.pod_memories("zone3") == {"z3_worker": 50.0}  # not other nodes' pods, not old ones


def test_gigabytes_round_up_like_scaled_value() -> None:
    assert gigabytes(0) == 0
    assert gigabytes(1) == 1
    assert gigabytes(50 * GB) == 50
    assert gigabytes(450 * 2**30) == 484  # 450Gi = 483.18 GB
