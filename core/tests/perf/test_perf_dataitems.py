"""kubesim.perf.dataitems: throughput samples, percentiles, placement items and thresholds."""

from __future__ import annotations

import pytest
from kubesim.perf.compile import Collector, Plan
from kubesim.perf.config import TestCase, Workload
from kubesim.perf.dataitems import data_items, percentiles, threshold_failures, throughput_samples
from kubesim.perf.runner import Binding, RunRecord


def test_samples_per_window_with_the_last_one_partial() -> None:
    times = [0.1, 0.2, 0.9, 1.1, 1.5, 2.2]
    assert throughput_samples(times, 0.0, 1.0) == pytest.approx([3.0, 2.0, 1 / 0.2])
    assert throughput_samples([0.5, 0.5], 0.0, 1.0) == [4.0]  # shorter than a window: one sample
    assert throughput_samples([], 0.0, 1.0) == []


def test_percentiles_as_upstream_indexes_them() -> None:
    data = percentiles([float(x) for x in range(1, 11)])
    assert data == {"Average": 5.5, "Perc50": 5.0, "Perc90": 9.0, "Perc95": 10.0, "Perc99": 10.0}
    assert percentiles([]) == {}


def _record() -> RunRecord:
    r = RunRecord(phase="Succeeded", message=None)
    r.bindings = [Binding("ns", "a", {}, 1.5, 1, "n1"), Binding("ns", "b", {}, 2.0, 1, "n1"),
                  Binding("ns", "c", {}, 2.5, 1, "n2"), Binding("other", "x", {}, 2.6, 1, "n2")]
    r.step_start_cpu = {0: 0.0, 1: 1.0}
    r.attempts = [("ns", "d", 1, "unschedulable"), ("ns", "d", 1, "error"), ("ns", "a", 1, "scheduled"),
                  ("ns", "b", 1, "scheduled"), ("ns", "c", 1, "scheduled"), ("other", "x", 1, "scheduled")]
    r.placement = {("ns", "a"): "n1", ("ns", "b"): "n1", ("ns", "c"): "n2", ("ns", "d"): None, ("other", "x"): "n2"}
    r.pod_labels = {k: {} for k in r.placement}
    return r


def _plan() -> Plan:
    collector = Collector("T/w", 1, 1, pods={("ns", "a"), ("ns", "b"), ("ns", "c"), ("ns", "d")})
    return Plan("T/w", {}, [collector], {}, 3, 0)


def test_items_for_one_collector() -> None:
    throughput, attempts, placement = data_items(_plan(), _record(), sample_seconds=10.0)
    assert throughput["unit"] == "pods/s" and throughput["data"]["Average"] == pytest.approx(3 / 1.5)
    assert throughput["labels"] == {"Metric": "SchedulingThroughput", "Name": "T/w", "Clock": "process-cpu"}
    assert attempts["data"] == {"Scheduled": 3, "Unschedulable": 1, "Error": 1}
    assert placement["data"] == {"Bound": 3, "Pending": 1, "NodesUsed": 2, "MaxPodsPerNode": 2, "MinPodsPerNode": 1}
    assert len(placement["labels"]["PlacementDigest"]) == 16
    again = data_items(_plan(), _record(), sample_seconds=10.0)
    assert again[2] == placement


def _case(selector: dict[str, object] | None = None) -> TestCase:
    return TestCase("T", (), (), (), {}, None, None, selector, "f")


def test_threshold_below_and_expect_lower() -> None:
    items = data_items(_plan(), _record(), sample_seconds=10.0)
    w = Workload("w", {}, (), {}, 100.0, None, "[0].workloads[0]")
    (message,) = threshold_failures(_case(), w, items)
    assert "T/w: expected SchedulingThroughput Average to be higher: got 2.00, want 100" == message
    assert threshold_failures(_case(), Workload("w", {}, (), {}, 1.0, None, ""), items) == []
    assert threshold_failures(_case(), Workload("w", {}, (), {}, 0.0, None, ""), items) == []
    lower = {"name": "SchedulingThroughput", "expectLower": True}
    assert threshold_failures(_case(lower), Workload("w", {}, (), {}, 1.0, None, ""), items)
