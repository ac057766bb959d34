"""Quantities beyond int64 (a node's cpu of 2**70, which decodes fine) saturate in the scheduler's
int64 tables instead of overflowing them (upstream's Value() is undefined there: big.Int.Int64 wraps)."""

from __future__ import annotations

from kubesim.k8s.quantity import parse_nano
from kubesim_scheduler.resources import nano_to_milli, nano_to_value, resource_from_list

INT64_MAX = 2**63 - 1


def test_values_beyond_int64_saturate() -> None:
    huge = parse_nano(2**70)
    assert nano_to_milli(huge) == INT64_MAX
    assert nano_to_value(huge) == INT64_MAX
    assert nano_to_value(parse_nano(-(2**70))) == -(2**63)
    assert nano_to_milli(parse_nano("1500m")) == 1500  # in range: exact
    r = resource_from_list({"cpu": huge, "memory": huge, "pods": parse_nano("110"), "example.com/gpu": huge})
    assert (r.milli_cpu, r.memory, r.allowed_pod_number) == (INT64_MAX, INT64_MAX, 110)
    assert r.scalar_resources == {"example.com/gpu": INT64_MAX}
