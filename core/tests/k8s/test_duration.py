"""Go durations as time.ParseDuration reads them, with its int64 bound."""

from __future__ import annotations

import pytest
from kubesim.k8s.duration import MAX_DURATION_NS, parse_go_duration, to_timedelta


@pytest.mark.parametrize(("text", "ns"), [
    ("10s", 10 * 10**9), ("1m30s", 90 * 10**9), ("1.5h", 5400 * 10**9), ("250ms", 250 * 10**6),
    ("1us", 1000), ("1\u00b5s", 1000), ("3ns", 3), ("0", 0), ("-1s", -(10**9)), ("+2m", 120 * 10**9),
    ("2562047h47m16.854775807s", MAX_DURATION_NS), (".5s", 5 * 10**8),
])
def test_valid_durations(text: str, ns: int) -> None:
    assert parse_go_duration(text) == ns


@pytest.mark.parametrize(("text", "message"), [
    ("100000000h", 'time: invalid duration "100000000h"'),
    ("2562048h", 'time: invalid duration "2562048h"'),
    ("2562047h47m16.854775808s", 'time: invalid duration "2562047h47m16.854775808s"'),
    ("9" * 40 + "s", f'time: invalid duration "{"9" * 40}s"'),
    ("", 'time: invalid duration ""'),
    ("soon", 'time: invalid duration "soon"'),
    ("10", 'time: missing unit in duration "10"'),
    ("1e9h", 'time: unknown unit "e" in duration "1e9h"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
])
def test_invalid_durations_have_go_messages(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_go_duration(text)
    assert str(info.value) == message


def test_to_timedelta_keeps_microseconds() -> None:
    assert to_timedelta(1_500_999).total_seconds() == 0.0015
