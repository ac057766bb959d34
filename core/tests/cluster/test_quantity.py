"""Resource quantities: exact values, MilliValue/Value rounding, and clear errors."""

from __future__ import annotations

from decimal import Decimal

import pytest
from kubesim.cluster import cpu_milli, parse_quantity, to_int


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("100m", Decimal("0.1")),
        ("1", Decimal(1)),
        ("1.5", Decimal("1.5")),
        ("1Gi", Decimal(2**30)),
        ("128Mi", Decimal(128 * 2**20)),
        ("1k", Decimal(1000)),
        ("1e3", Decimal(1000)),
        (2, Decimal(2)),
        (0.5, Decimal("0.5")),
        ("500u", Decimal("0.0005")),
    ],
)
def test_parse_quantity(text: str | float, value: Decimal) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize(
    ("text", "milli"),
    [("100m", 100), ("1", 1000), ("0.1", 100), ("1.0001", 1001), ("1u", 1), ("2", 2000), (1, 1000)],
)
def test_cpu_milli_rounds_up(text: str | int, milli: int) -> None:
    assert cpu_milli(text) == milli


@pytest.mark.parametrize(
    ("text", "value"), [("1Gi", 2**30), ("1.5", 2), ("100m", 1), ("3", 3), (3, 3), (2.0, 2)]
)
def test_to_int_rounds_up(text: str | float, value: int) -> None:
    assert to_int(text) == value


@pytest.mark.parametrize("bad", ["abc", "1Zi", "1ki", "", "nan", True, None, [1]])
def test_bad_quantities_name_themselves(bad: object) -> None:
    with pytest.raises(ValueError, match="invalid quantity"):
        parse_quantity(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid quantity"):
        cpu_milli(bad)  # type: ignore[arg-type]
