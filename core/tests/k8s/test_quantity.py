"""Resource quantities. Tables ported from k8s.io/apimachinery pkg/api/resource/quantity_test.go
(TestQuantityParse, its invalid list, TestQuantityParseEmit, TestQuantityString,
TestMilliNewSet/TestNewSet round trips) plus kubesim's bounds and object-field rules."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from kubesim.cluster import cpu_milli, parse_quantity, to_int
from kubesim.k8s.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    NANO,
    QuantityError,
    canonical,
    milli_value,
    parse,
    parse_nano,
    parse_text,
    value,
)

MAX_INT64 = 2**63 - 1


def dec(i: int, exponent: int) -> int:
    """decQuantity(i, exponent): i * 10**exponent in nano-units."""
    return i * 10 ** (exponent + 9) if exponent >= -9 else i // 10 ** (-exponent - 9)


# TestQuantityParse: (input, expected nano-units, format)
PARSE_TABLE = [
    ("0", 0, DECIMAL_SI), ("0n", 0, DECIMAL_SI), ("0u", 0, DECIMAL_SI), ("0m", 0, DECIMAL_SI),
    ("0Ki", 0, BINARY_SI), ("0k", 0, DECIMAL_SI), ("0Mi", 0, BINARY_SI), ("0M", 0, DECIMAL_SI),
    ("0Gi", 0, BINARY_SI), ("0G", 0, DECIMAL_SI), ("0Ti", 0, BINARY_SI), ("0T", 0, DECIMAL_SI),
    # Quantity less numbers are allowed
    ("1", dec(1, 0), DECIMAL_SI),
    # Binary suffixes
    ("1Ki", dec(1024, 0), BINARY_SI), ("8Ki", dec(8 * 1024, 0), BINARY_SI),
    ("7Mi", dec(7 * 1024**2, 0), BINARY_SI), ("6Gi", dec(6 * 1024**3, 0), BINARY_SI),
    ("5Ti", dec(5 * 1024**4, 0), BINARY_SI), ("4Pi", dec(4 * 1024**5, 0), BINARY_SI),
    ("3Ei", dec(3 * 1024**6, 0), BINARY_SI), ("10Ti", dec(10 * 1024**4, 0), BINARY_SI),
    ("100Ti", dec(100 * 1024**4, 0), BINARY_SI),
    # Decimal suffixes
    ("5n", dec(5, -9), DECIMAL_SI), ("4u", dec(4, -6), DECIMAL_SI), ("3m", dec(3, -3), DECIMAL_SI),
    ("9", dec(9, 0), DECIMAL_SI), ("8k", dec(8, 3), DECIMAL_SI), ("50k", dec(5, 4), DECIMAL_SI),
    ("7M", dec(7, 6), DECIMAL_SI), ("6G", dec(6, 9), DECIMAL_SI), ("5T", dec(5, 12), DECIMAL_SI),
    ("40T", dec(4, 13), DECIMAL_SI), ("300T", dec(3, 14), DECIMAL_SI), ("2P", dec(2, 15), DECIMAL_SI),
    ("1E", dec(1, 18), DECIMAL_SI),
    # Decimal exponents
    ("1E-3", dec(1, -3), DECIMAL_EXPONENT), ("1e3", dec(1, 3), DECIMAL_EXPONENT),
    ("1E6", dec(1, 6), DECIMAL_EXPONENT), ("1e9", dec(1, 9), DECIMAL_EXPONENT),
    ("1E12", dec(1, 12), DECIMAL_EXPONENT), ("1e15", dec(1, 15), DECIMAL_EXPONENT),
    ("1E18", dec(1, 18), DECIMAL_EXPONENT),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14), DECIMAL_EXPONENT), ("1e13", dec(1, 13), DECIMAL_EXPONENT),
    ("100.035k", dec(100035, 0), DECIMAL_SI),
    # Things that look like floating point
    ("0.001", dec(1, -3), DECIMAL_SI), ("0.0005k", dec(5, -1), DECIMAL_SI),
    ("0.005", dec(5, -3), DECIMAL_SI), ("0.05", dec(5, -2), DECIMAL_SI), ("0.5", dec(5, -1), DECIMAL_SI),
    ("0.00050k", dec(5, -1), DECIMAL_SI), ("0.00500", dec(5, -3), DECIMAL_SI),
    ("0.05000", dec(5, -2), DECIMAL_SI), ("0.50000", dec(5, -1), DECIMAL_SI),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT), ("0.5e-1", dec(5, -2), DECIMAL_EXPONENT),
    ("0.5e-2", dec(5, -3), DECIMAL_EXPONENT), ("10.035M", dec(10035, 3), DECIMAL_SI),
    ("1.2e3", dec(12, 2), DECIMAL_EXPONENT), ("1.3E+6", dec(13, 5), DECIMAL_EXPONENT),
    ("1.40e9", dec(14, 8), DECIMAL_EXPONENT), ("1.53E12", dec(153, 10), DECIMAL_EXPONENT),
    ("1.6e15", dec(16, 14), DECIMAL_EXPONENT), ("1.7E18", dec(17, 17), DECIMAL_EXPONENT),
    ("9.01", dec(901, -2), DECIMAL_SI), ("8.1k", dec(81, 2), DECIMAL_SI),
    ("7.123456M", dec(7123456, 0), DECIMAL_SI), ("6.987654321G", dec(6987654321, 0), DECIMAL_SI),
    ("5.444T", dec(5444, 9), DECIMAL_SI), ("40.1T", dec(401, 11), DECIMAL_SI),
    ("300.2T", dec(3002, 11), DECIMAL_SI), ("2.5P", dec(25, 14), DECIMAL_SI), ("1.01E", dec(101, 16), DECIMAL_SI),
    # Things that saturate/round
    ("3.001n", dec(4, -9), DECIMAL_SI), ("1.1E-9", dec(2, -9), DECIMAL_EXPONENT),
    ("0.0000000001", dec(1, -9), DECIMAL_SI), ("0.0000000005", dec(1, -9), DECIMAL_SI),
    ("0.00000000050", dec(1, -9), DECIMAL_SI), ("0.5e-9", dec(1, -9), DECIMAL_EXPONENT),
    ("0.9n", dec(1, -9), DECIMAL_SI), ("0.00000012345", dec(124, -9), DECIMAL_SI),
    ("0.00000012354", dec(124, -9), DECIMAL_SI),
    ("9Ei", MAX_INT64 * NANO, BINARY_SI), ("9223372036854775807Ki", MAX_INT64 * NANO, BINARY_SI),
    ("12E", dec(12, 18), DECIMAL_SI),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2), BINARY_SI), ("0.5Mi", dec(512 * 1024, 0), BINARY_SI),
    ("0.05Gi", dec(536870912, -1), BINARY_SI), ("0.025Ti", dec(274877906944, -1), BINARY_SI),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9), DECIMAL_SI),  # rounds up, changes format
    (".001", dec(1, -3), DECIMAL_SI), (".0001k", dec(100, -3), DECIMAL_SI),
    ("1.", dec(1, 0), DECIMAL_SI), ("1.G", dec(1, 9), DECIMAL_SI),
]


@pytest.mark.parametrize(("text", "nano", "fmt"), PARSE_TABLE)
def test_parse_table(text: str, nano: int, fmt: str) -> None:
    assert parse_text(text) == (nano, fmt)
    # the negative and the explicitly positive spelling of everything
    assert parse_text("-" + text) == (-nano, fmt)
    assert parse_text("+" + text) == (nano, fmt)


@pytest.mark.parametrize(
    "text", ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "]
)
def test_invalid_quantities(text: str) -> None:
    with pytest.raises(QuantityError, match="invalid quantity"):
        parse_text(text)


@pytest.mark.parametrize(
    ("text", "printed"),
    [("1Ki", "1Ki"), ("1Mi", "1Mi"), ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1000M", "1G"), (".001Ki", "1024m"),
     (".000001Ki", "1024u"), (".000000001Ki", "1024n"), (".000000000001Ki", "2n")],
)
def test_parse_emit(text: str, printed: str) -> None:
    """TestQuantityParseEmit, for the value and its negation."""
    assert canonical(text) == printed
    assert canonical("-" + text) == "-" + printed


@pytest.mark.parametrize(
    ("canonical_form", "alternate"),
    [("1Gi", "1024Mi"), ("300Mi", "307200Ki"), ("6Ki", ""), ("1001Gi", "1025024Mi"), ("1Ti", "1024Gi"),
     ("1G", "1000M"), ("1G", ""), ("1m", ""), ("80m", ""), ("1080m", "1.08"), ("300M", ""), ("1T", ""),
     ("1234567M", ""), ("3k", ""), ("1025", ""), ("0", ""), ("1e9", ".001e12"), ("1e-3", "0.001e0"),
     ("1e-9", "1000e-12"), ("80e-3", ""), ("300e6", ""), ("1e12", ""), ("1e3", ""), ("3e3", ""),
     ("0", "00"), ("1n", ""), ("80n", ""), ("1080n", ""), ("1u", ""), ("80u", ""), ("1080u", "")],
)
def test_canonical_strings(canonical_form: str, alternate: str) -> None:
    """TestQuantityString: the canonical form prints as itself, an alternate spelling as it."""
    assert canonical(canonical_form) == canonical_form
    if alternate:
        assert canonical(alternate) == canonical_form


@pytest.mark.parametrize(
    ("written", "printed"),
    [(4, "4"), (1000, "1k"), (1234000, "1234k"), (0.5, "500m"), (2.0, "2"), ("5000m", "5"), ("1.5Gi", "1536Mi"),
     ("0.5Ki", "512"), ("1000E", "1e21")],
)
def test_canonical_of_numbers_and_beyond_exa(written: object, printed: str) -> None:
    assert canonical(written) == printed


@pytest.mark.parametrize(
    ("text", "milli", "units"),
    [("1m", 1, 1), ("1", 1000, 1), ("1234", 1234000, 1234), ("1.5", 1500, 2), ("1u", 1, 1), ("1n", 1, 1),
     ("1.0001", 1001, 2), ("-1.5", -1500, -2), ("-0.5", -500, -1), ("-1n", -1, -1), ("0", 0, 0),
     ("1Gi", 1024**3 * 1000, 1024**3)],
)
def test_milli_value_and_value_round_away_from_zero(text: str, milli: int, units: int) -> None:
    """MilliValue/Value of a parsed quantity (int64Amount rounds away from zero)."""
    assert milli_value(text) == milli
    assert value(text) == units


def test_huge_exponents_are_refused_quickly() -> None:
    start = time.process_time()
    for text in ("1e999999999", "1E999999999", "9" * 40, "1e30", "1000000000000E", "1e9223372036854775807"):
        with pytest.raises(QuantityError, match="too large"):
            parse_text(text)
    with pytest.raises(QuantityError, match="suffix"):
        parse_text("1e9223372036854775808")  # strconv.ParseInt overflows
    with pytest.raises(QuantityError, match="too large"):
        parse(10**30)
    assert parse_text("999999999999999999999999999999")[0] == (10**30 - 1) * NANO
    # a vanishing value rounds up to one nano-unit without computing the power
    assert parse_text("1e-999999999") == (1, DECIMAL_EXPONENT)
    assert parse_text("-1e-999999999") == (-1, DECIMAL_EXPONENT)
    assert time.process_time() - start < 1.0


def test_object_fields_are_read_like_json() -> None:
    """UnmarshalJSON trims a string and reads a number as its literal."""
    assert parse_nano(" 1 ") == NANO
    assert parse_nano(0.1) == NANO // 10  # the literal "0.1", not the binary float
    assert parse_nano(1e-07) == 100
    assert parse_nano(Decimal("1.5")) == 15 * NANO // 10
    assert parse_nano(7) == 7 * NANO


@pytest.mark.parametrize("bad", ["abc", "1Zi", "1ki", "", "nan", True, None, [1], float("nan"), float("inf"), {}])
def test_bad_quantities_name_themselves(bad: object) -> None:
    with pytest.raises(QuantityError, match="invalid quantity"):
        parse_nano(bad)
    with pytest.raises(ValueError, match="invalid quantity"):
        parse_quantity(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "exact"),
    [("100m", Decimal("0.1")), ("1", Decimal(1)), ("1.5", Decimal("1.5")), ("1Gi", Decimal(2**30)),
     ("128Mi", Decimal(128 * 2**20)), ("1k", Decimal(1000)), ("1e3", Decimal(1000)), (2, Decimal(2)),
     (0.5, Decimal("0.5")), ("500u", Decimal("0.0005")), ("0.0000000001", Decimal("1E-9"))],
)
def test_parse_quantity_is_exact(text: str | float, exact: Decimal) -> None:
    assert parse_quantity(text) == exact


def test_cluster_reexports() -> None:
    """kubesim.cluster keeps its names for the same functions."""
    assert cpu_milli("100m") == 100 and to_int("1.5") == 2 and to_int(3) == 3


@pytest.mark.parametrize(("text", "printed"), [
    ("9Ei", "9223372036854775807"), ("-5019761017Ei", "-9223372036854775807"), ("1025Ki", "1025Ki"),
])
def test_binary_quantities_capped_at_int64_print_without_a_suffix(text: str, printed: str) -> None:
    # ParseQuantity caps BinarySI at the largest int64, which is no multiple of 1024
    assert canonical(text) == printed
