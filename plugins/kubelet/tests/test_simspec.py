"""The simSpec annotation: parsing, phases over time, usage_at and node_usage."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from kubesim.clock import DEFAULT_EPOCH, format_time
from kubesim_kubelet import SimSpecError, node_usage, parse_sim_spec, usage_at
from kubesim_kubelet.simspec import usage_annotation

SPEC = """
- seconds: 5
  resourceUsage: {cpu: 1, memory: 2Gi, nvidia.com/gpu: 0}
- seconds: 10
  resourceUsage: {cpu: 1500m, memory: 4Gi}
"""

T0 = DEFAULT_EPOCH


def started_pod(spec: str = SPEC, start: int = 0, node: str = "n1", phase: str = "Running") -> dict:
    return {
        "metadata": {"name": "p", "annotations": {"simSpec": spec}},
        "spec": {"nodeName": node},
        "status": {"phase": phase, "startTime": format_time(T0 + timedelta(seconds=start))},
    }


def test_parse_phases_keep_written_quantities_and_exact_values():
    spec = parse_sim_spec(SPEC)
    assert [p.duration for p in spec.phases] == [timedelta(seconds=5), timedelta(seconds=10)]
    assert spec.duration == timedelta(seconds=15)
    assert dict(spec.phases[0].usage) == {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "0"}
    assert spec.phases[1].values["cpu"] == Decimal("1.5")
    assert spec.phases[1].values["memory"] == 4 * 2**30


@pytest.mark.parametrize(("elapsed", "index"), [
    (-1, None), (0, 0), (4.999, 0), (5, 1), (14, 1), (15, None), (100, None),
])
def test_phase_index_covers_half_open_intervals(elapsed, index):
    assert parse_sim_spec(SPEC).phase_index(timedelta(seconds=elapsed)) == index


def test_zero_length_phase_is_never_current():
    spec = parse_sim_spec("- {seconds: 0, resourceUsage: {cpu: 9}}\n- {seconds: 3, resourceUsage: {cpu: 1}}")
    assert spec.phase_index(timedelta(0)) == 1
    assert spec.next_boundary(timedelta(0)) == timedelta(seconds=3)


@pytest.mark.parametrize(("text", "message"), [
    ("{seconds: 5}", "must be a YAML list of phases, not a mapping"),
    ("just text", "must be a YAML list of phases, not a string"),
    ("", "must be a YAML list of phases, not an empty value"),
    ("- seconds: -5", "[0].seconds: must be a non-negative number of seconds, not -5"),
    ("- seconds: five", "[0].seconds: must be a number of seconds, not 'five'"),
    ("- seconds: true", "[0].seconds: must be a number of seconds, not True"),
    ("- resourceUsage: {cpu: 1}", "[0].seconds: required"),
    ("- {seconds: 1}\n- 7", "[1]: a phase must be a mapping with seconds and resourceUsage, not a number"),
    ("- {seconds: 1, resourceUsage: {cpu: lots}}", "[0].resourceUsage[cpu]: invalid quantity 'lots'"),
    ("- {seconds: 1, resourceUsage: {cpu: -1}}", "[0].resourceUsage[cpu]: must not be negative, got -1"),
    ("- {seconds: 1, resourceUsage: [cpu]}", "[0].resourceUsage: must be a mapping of resource names to quantities"),
    ("- {seconds: 1, usage: {cpu: 1}}", "[0]: unknown field 'usage' (expected seconds, resourceUsage)"),
    ("- seconds: [1", "not valid YAML at line 1, column 14"),
    ("- seconds: 1\n  seconds: 2", "[0].seconds: duplicate key (lines 1 and 2)"),
])
def test_invalid_sim_specs_say_where_and_why(text, message):
    with pytest.raises(SimSpecError) as err:
        parse_sim_spec(text)
    assert str(err.value).startswith(message)


@pytest.mark.parametrize(("at", "expected"), [
    (-1, {}),
    (0, {"cpu": Decimal(1), "memory": Decimal(2 * 2**30), "nvidia.com/gpu": Decimal(0)}),
    (7, {"cpu": Decimal("1.5"), "memory": Decimal(4 * 2**30)}),
    (15, {}),
])
def test_usage_at_follows_the_phases_from_the_start_time(at, expected):
    assert usage_at(started_pod(start=0), T0 + timedelta(seconds=at)) == expected


def test_usage_at_is_empty_without_start_spec_or_when_failed():
    not_started = started_pod()
    del not_started["status"]["startTime"]
    assert usage_at(not_started, T0) == {}
    assert usage_at({"metadata": {"name": "plain"}, "status": {"startTime": format_time(T0)}}, T0) == {}
    assert usage_at(started_pod(phase="Failed"), T0) == {}
    assert usage_at(started_pod(spec="- seconds: -1"), T0) == {}


def test_node_usage_sums_the_pods_bound_to_the_node():
    pods = [started_pod(start=0), started_pod(start=3), started_pod(start=0, node="n2")]
    assert node_usage(pods, "n1", T0 + timedelta(seconds=6)) == {
        "cpu": Decimal("2.5"), "memory": Decimal(6 * 2**30), "nvidia.com/gpu": Decimal(0),
    }
    assert node_usage(pods, "n3", T0) == {}


def test_usage_annotation_is_compact_sorted_json():
    spec = parse_sim_spec(SPEC)
    assert usage_annotation(spec, 0) == '{"cpu":"1","memory":"2Gi","nvidia.com/gpu":"0"}'
    assert usage_annotation(spec, None) == "{}"
