"""kubesim.k8s.rfc3339: Go's time.Parse(time.RFC3339, ...) errors, as metav1.Time reports them."""

from __future__ import annotations

import pytest
from kubesim.k8s.rfc3339 import parse_error

LAYOUT = '"2006-01-02T15:04:05Z07:00"'


@pytest.mark.parametrize(
    "value",
    ["2024-01-01T00:00:00Z", "2024-02-29T23:59:59+01:00", "2024-01-01T00:00:00.123456789Z",
     "2024-01-01T5:00:00Z", "2023-12-31T23:59:59-23:30"],
)
def test_accepted(value: str) -> None:
    assert parse_error(value) is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("yesterday", f'parsing time "yesterday" as {LAYOUT}: cannot parse "yesterday" as "2006"'),
        ("2024/01/01", f'parsing time "2024/01/01" as {LAYOUT}: cannot parse "/01/01" as "-"'),
        ("2024-1-01T00:00:00Z", (f'parsing time "2024-1-01T00:00:00Z" as {LAYOUT}: cannot parse '
         '"1-01T00:00:00Z" as "01"')),
        ("2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        ("2024-01-01T24:00:00Z", 'parsing time "2024-01-01T24:00:00Z": hour out of range'),
        ("2024-01-01T00:60:00Z", 'parsing time "2024-01-01T00:60:00Z": minute out of range'),
        ("2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
        ("2024-01-01t00:00:00Z", (f'parsing time "2024-01-01t00:00:00Z" as {LAYOUT}: cannot parse '
         '"t00:00:00Z" as "T"')),
        ("2024-01-01T00:00:00", f'parsing time "2024-01-01T00:00:00" as {LAYOUT}: cannot parse "" as "Z07:00"'),
        ("2024-01-01T00:00:00Zx", 'parsing time "2024-01-01T00:00:00Zx": extra text: "x"'),
        ("2024-01-01T00:00:00+25:00", 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'),
    ],
)
def test_rejected_with_gos_message(value: str, message: str) -> None:
    assert parse_error(value) == message


def test_micro_time_wants_six_fraction_digits() -> None:
    assert parse_error("2024-01-01T00:00:00.000001Z", micro=True) is None
    assert parse_error("2024-01-01T00:00:00Z", micro=True) == (
        'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    )
