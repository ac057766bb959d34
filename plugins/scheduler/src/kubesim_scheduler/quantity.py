"""Kubernetes resource quantities parsed with apimachinery's exact rules, cached as integers.

A quantity is kept as an integer count of nano-units: upstream rounds any finer value up
to the nano scale when parsing, so every parsed quantity is an exact integer there.
"""

# upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (ParseQuantity,
# MilliValue, Value: both round up)

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

__all__ = ["QuantityError", "parse_nano", "milli_value", "value", "nano_to_milli", "nano_to_value"]

NANO = 10**9

_NUMBER = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(.*)$")
_DECIMAL_SUFFIX = {
    "n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}
_BINARY_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_EXPONENT = re.compile(r"^[eE]([+-]?\d+)$")
_MAX_INT64 = 2**63 - 1


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity."""


def _ceil_away(x: Fraction) -> int:
    """Round away from zero to an integer (inf.RoundUp)."""
    n, d = x.numerator, x.denominator
    if n >= 0:
        return -(-n // d)
    return -(-(-n) // d)


@lru_cache(maxsize=65536)
def _parse_str(text: str) -> int:
    m = _NUMBER.match(text)
    if not text or m is None:
        raise QuantityError(f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {text!r}")
    sign, whole, frac, suffix = m.groups()
    frac = frac or ""
    if not whole and not frac:
        raise QuantityError(f"invalid quantity {text!r}")
    digits = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    if suffix in _DECIMAL_SUFFIX:
        amount = digits * Fraction(10) ** _DECIMAL_SUFFIX[suffix]
        binary = False
    elif suffix in _BINARY_SUFFIX:
        amount = digits * (2 ** _BINARY_SUFFIX[suffix])
        binary = True
    else:
        e = _EXPONENT.match(suffix)
        if e is None:
            raise QuantityError(f"unable to parse quantity's suffix in {text!r}")
        amount = digits * Fraction(10) ** int(e.group(1))
        binary = False
    nano = _ceil_away(amount * NANO)
    if binary and nano > _MAX_INT64 * NANO:
        nano = _MAX_INT64 * NANO
    return -nano if sign == "-" else nano


def parse_nano(q: object) -> int:
    """Parse a quantity (string, or a JSON number) into integer nano-units."""
    if isinstance(q, bool):
        raise QuantityError(f"invalid quantity {q!r}")
    if isinstance(q, int):
        return q * NANO
    if isinstance(q, float):
        return _ceil_away(Fraction(q) * NANO)
    if isinstance(q, str):
        return _parse_str(q.strip())
    raise QuantityError(f"invalid quantity {q!r}")


def nano_to_milli(nano: int) -> int:
    """Quantity.MilliValue: round up to milli-units."""
    return -(-nano // 10**6)


def nano_to_value(nano: int) -> int:
    """Quantity.Value: round up to whole units."""
    return -(-nano // NANO)


def milli_value(q: object) -> int:
    """Milli-units of a quantity, rounded up (CPU)."""
    return nano_to_milli(parse_nano(q))


def value(q: object) -> int:
    """Whole units of a quantity, rounded up (memory, pods, extended resources)."""
    return nano_to_value(parse_nano(q))
