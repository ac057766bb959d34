"""Kubernetes resource quantities ("100m", "1Gi", 2): parsed exactly, cached, printed canonically.

A parsed quantity is an integer count of nano-units: ParseQuantity rounds anything finer up
(away from zero) to the nano scale, so every value it keeps is an exact integer there. Strings
are parsed once and cached, because the same few ("100m", "128Mi") recur across thousands of
pods; MilliValue/Value round away from zero as int64Amount does.
"""

# upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (parseQuantityString,
# ParseQuantity, CanonicalizeBytes, MilliValue, Value), suffix.go, amount.go (AsCanonicalBytes,
# AsCanonicalBase1024Bytes)

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from kubesim.k8s.values import show_value

__all__ = [
    "BINARY_SI",
    "DECIMAL_EXPONENT",
    "DECIMAL_SI",
    "MAX_MAGNITUDE",
    "NANO",
    "Quantity",
    "QuantityError",
    "canonical",
    "format_nano",
    "milli_value",
    "nano_to_milli",
    "nano_to_value",
    "parse",
    "parse_nano",
    "parse_quantity",
    "value",
]

NANO = 10**9
"""Nano-units in one unit."""

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"

Quantity = str | int | float | Decimal
"""A quantity as written in an object: a string such as "250m" or a plain number."""

MAX_MAGNITUDE = 10**30
"""Quantities must be smaller than this in absolute value.

Upstream keeps any decimal magnitude as an inf.Dec and only caps BinarySI at 2^63-1, so
"1e999999999" would make it (and a naive port) build a billion-digit number on first use;
kubesim refuses such values instead. The bound is far above int64 (9.2e18), the largest value
Kubernetes' Value() can return.
"""

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE}'"
_SUFFIX = "unable to parse quantity's suffix"
# parseQuantityString: sign, digits, optional fraction, then suffix letters, a sign, digits.
_SCAN = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
_DECIMAL = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")
_MAX_INT64 = 2**63 - 1
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {0: "", **{v // 10: k for k, v in _BINARY.items()}}


class QuantityError(ValueError):
    """A value that is not a quantity ParseQuantity accepts; the message names the value."""


def _ceil_div_away(n: int, d: int) -> int:
    """n / d rounded away from zero (d > 0)."""
    return -(-n // d) if n >= 0 else n // d


def _scaled(digits: int, exponent: int) -> int:
    """digits * 10**exponent in nano-units, rounded up to one nano-unit (digits >= 0)."""
    shift = exponent + 9
    if shift >= 0:
        return int(digits * 10**shift)
    if digits == 0:
        return 0
    if -shift > len(str(digits)):  # smaller than one nano-unit: ParseQuantity rounds it up
        return 1
    return int(-(-digits // 10**-shift))


@lru_cache(maxsize=65536)
def _parse_text(text: str) -> tuple[int, str]:
    """ParseQuantity on a string: (nano-units, format); QuantityError when invalid."""
    if not text:
        raise QuantityError(f"invalid quantity {text!r}: {_FORMAT_WRONG}")
    m = _SCAN.fullmatch(text)
    if m is None:
        raise QuantityError(f"invalid quantity {text!r}: {_FORMAT_WRONG}")
    sign, whole, frac, suffix = m.groups()
    frac = frac or ""
    digits = int(whole + frac) if whole or frac else 0
    if suffix in _DECIMAL:
        nano, fmt = _decimal(text, digits, _DECIMAL[suffix] - len(frac)), DECIMAL_SI
    elif suffix in _BINARY:
        fmt = BINARY_SI
        nano = -(-(digits * 2 ** _BINARY[suffix] * NANO) // 10 ** len(frac))
        if nano > _MAX_INT64 * NANO:  # ParseQuantity caps BinarySI at the largest int64
            nano = _MAX_INT64 * NANO
        if 0 < nano < NANO:  # fractions of one print as DecimalSI
            fmt = DECIMAL_SI
    else:
        e = _EXPONENT.fullmatch(suffix)
        if e is None or not -(2**63) <= int(e.group(1)) < 2**63:  # strconv.ParseInt(_, 10, 64)
            raise QuantityError(f"invalid quantity {text!r}: {_SUFFIX}")
        nano, fmt = _decimal(text, digits, int(e.group(1)) - len(frac)), DECIMAL_EXPONENT
    return (-nano if sign == "-" else nano), fmt


def _decimal(text: str, digits: int, exponent: int) -> int:
    """digits * 10**exponent in nano-units, refusing magnitudes of MAX_MAGNITUDE and above."""
    if digits and len(str(digits)) + exponent > 31:
        raise QuantityError(f"invalid quantity {text!r}: too large (kubesim accepts magnitudes below 1e30)")
    nano = _scaled(digits, exponent)
    if nano >= MAX_MAGNITUDE * NANO:
        raise QuantityError(f"invalid quantity {text!r}: too large (kubesim accepts magnitudes below 1e30)")
    return nano


def _text_of(q: object) -> str:
    """The text Go's UnmarshalJSON hands to ParseQuantity: a trimmed string or a number literal."""
    if isinstance(q, str):
        return q.strip()
    if isinstance(q, bool) or not isinstance(q, (int, float, Decimal)):
        raise QuantityError(f"invalid quantity {show_value(q)}: expected a string or a number")
    if isinstance(q, float) and not (q == q and abs(q) != float("inf")):
        raise QuantityError(f"invalid quantity {show_value(q)}: not a finite number")
    return str(q)


def parse(q: object) -> tuple[int, str]:
    """A quantity from an object field: (nano-units, format); QuantityError when invalid.

    Strings are trimmed of surrounding spaces and numbers read as their JSON literal, as
    Quantity.UnmarshalJSON does; ParseQuantity itself (`parse_text`) refuses spaces.
    """
    if type(q) is int:
        if abs(q) >= MAX_MAGNITUDE:
            raise QuantityError(f"invalid quantity {show_value(q)}: too large (kubesim accepts magnitudes below 1e30)")
        return q * NANO, DECIMAL_SI
    return _parse_text(_text_of(q))


def parse_text(text: str) -> tuple[int, str]:
    """resource.ParseQuantity(text) exactly (no trimming): (nano-units, format)."""
    return _parse_text(text)


def parse_nano(q: object) -> int:
    """The value of a quantity in integer nano-units (the hot path: cached per string)."""
    if type(q) is str:
        return _parse_text(q.strip())[0]
    return parse(q)[0]


def nano_to_milli(nano: int) -> int:
    """Quantity.MilliValue of a nano-unit amount: milli-units, rounded away from zero."""
    return -(-nano // 1_000_000) if nano >= 0 else nano // 1_000_000


def nano_to_value(nano: int) -> int:
    """Quantity.Value of a nano-unit amount: whole units, rounded away from zero."""
    return -(-nano // NANO) if nano >= 0 else nano // NANO


def milli_value(q: object) -> int:
    """Quantity.MilliValue: milli-units of a quantity, rounded away from zero (cpu)."""
    return nano_to_milli(parse_nano(q))


def value(q: object) -> int:
    """Quantity.Value: whole units of a quantity, rounded away from zero (memory, pods)."""
    if type(q) is int:
        return parse(q)[0] // NANO
    return nano_to_value(parse_nano(q))


def parse_quantity(q: object) -> Decimal:
    """The exact value of a quantity as a Decimal; QuantityError (a ValueError) when invalid."""
    return Decimal(parse_nano(q)).scaleb(-9)


@lru_cache(maxsize=4096)
def _canonical(nano: int, fmt: str) -> str:
    if nano == 0:
        return "0"
    sign = "-" if nano < 0 else ""
    magnitude = abs(nano)
    if fmt == BINARY_SI and (magnitude < 1024 * NANO or magnitude % NANO):
        fmt = DECIMAL_SI  # small or fractional binary quantities print as decimal ones
    if fmt == BINARY_SI:
        number, exponent = magnitude // NANO, 0
        while number % 1024 == 0 and exponent < 6:
            number //= 1024
            exponent += 1
        return f"{sign}{number}{_BINARY_SUFFIX[exponent]}"
    # mantissa * 10^exponent without trailing zeros, then the exponent down to a multiple of 3
    mantissa, exponent = magnitude, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" if exponent == 0 else f"{sign}{mantissa}e{exponent}"
    suffix = _DECIMAL_SUFFIX.get(exponent)
    if suffix is None:
        return f"{sign}{mantissa}e{exponent}"  # beyond exa: the exponent form
    return f"{sign}{mantissa}{suffix}"


def format_nano(nano: int, fmt: str) -> str:
    """The string Go marshals a Quantity of `nano` nano-units in format `fmt` to (sums keep a format)."""
    return _canonical(nano, fmt)


def canonical(q: object) -> str:
    """The string Go marshals a Quantity parsed from `q` to ("6000m" -> "6", "1.5Gi" -> "1536Mi")."""
    return _canonical(*parse(q))
