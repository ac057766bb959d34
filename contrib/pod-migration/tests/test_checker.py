"""Port of k8s-migration-controller v1 pkg/monitoring/checker_test.go (and the downtime formula)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kubesim_pod_migration.checker import (
    CODE_SLOPE,
    DEFAULT_BACKOFF,
    README_SLOPE,
    BlockingChecker,
    ConcurrentChecker,
    make_checker,
    migration_seconds,
)

NOW = datetime(2022, 5, 11, 8, 0, tzinfo=timezone.utc)


def test_downtime_is_ceil_of_slope_times_gb() -> None:
    assert migration_seconds(10) == 34  # ceil(33.506)
    assert migration_seconds(20) == 68  # ceil(67.012)
    assert migration_seconds(30, README_SLOPE) == 20  # 1.5 GB/s
    assert migration_seconds(0) == 0
    assert CODE_SLOPE == 3.3506


def test_blocking_checker() -> None:
    sut = BlockingChecker()
    assert sut.is_ready(NOW)
    first = sut.start(NOW, 10, "pod1")
    assert not sut.is_ready(NOW + DEFAULT_BACKOFF)  # not ready during migration
    took = first - NOW
    second = sut.start(NOW, 20, "pod2")  # the second migration starts after the first finishes
    assert second == first + timedelta(seconds=migration_seconds(20))
    assert abs((second - (first + 2 * took)).total_seconds()) <= 1
    assert not sut.is_ready(NOW + DEFAULT_BACKOFF)
    assert not sut.is_ready(NOW + timedelta(seconds=1))  # not before the backoff
    assert not sut.is_ready(second + DEFAULT_BACKOFF - timedelta(seconds=1))
    assert sut.is_ready(second + DEFAULT_BACKOFF)  # ready after the backoff
    assert sut.is_ready(NOW + timedelta(minutes=5) + DEFAULT_BACKOFF)
    assert sut.migrating(NOW) == ["pod1", "pod2"]
    assert sut.migrating(first) == ["pod2"]


def test_concurrent_checker() -> None:
    sut = ConcurrentChecker()
    first = sut.start(NOW, 10, "pod1")
    assert sut.is_ready(NOW + timedelta(seconds=1))
    took = first - NOW
    assert sut.finish_time("pod1") == first
    sut.start(NOW, 20, "pod2")
    assert abs((sut.finish_time("pod2") - (NOW + 3 * took)).total_seconds()) <= 1  # type: ignore[operator]
    later = NOW + timedelta(hours=5)  # a much later migration starts much later
    sut.start(later, 10, "pod3")
    assert sut.finish_time("pod3") == later + took


def test_make_checker() -> None:
    assert isinstance(make_checker("blocking"), BlockingChecker)
    assert type(make_checker("concurrent")) is ConcurrentChecker
    with pytest.raises(ValueError, match="blocking or concurrent"):
        make_checker("eager")
