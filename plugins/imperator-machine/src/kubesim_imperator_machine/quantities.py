"""resource.Quantity as Go prints it: the canonical form of a quantity read from a Machine.

Imperator decodes a Machine's cpu, memory and gpu.num into resource.Quantity and writes them
into reservation pods and guest pods, so they come out in canonical form ("6000m" -> "6",
"1.5Gi" -> "1536Mi", 2 -> "2"). Port of k8s.io/apimachinery pkg/api/resource/quantity.go
(ParseQuantity's rounding up to nano units, CanonicalizeBytes, the int64Amount and
inf.Dec canonical forms, and the suffixer).
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from functools import lru_cache
from typing import Any

__all__ = ["QuantityError", "canonical_quantity", "quantity_value"]

_NUMBER = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_EXPONENT = re.compile(r"^[eE]([+-]?[0-9]+)$")
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY_SUFFIX = {v // 10: k for k, v in _BINARY.items()}
_NANO = Decimal("1e-9")


class QuantityError(ValueError):
    """Not a quantity resource.ParseQuantity accepts."""


def _parse(text: str) -> tuple[Decimal, str]:
    """The exact value and its format (DecimalSI, BinarySI or DecimalExponent)."""
    m = _NUMBER.match(text.strip())
    if not m or (not m.group(2) and not m.group(3)) or text.strip() in ("", "+", "-"):
        raise QuantityError(f"quantities must match the regular expression "
                            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {text!r}")
    sign, whole, frac, suffix = m.groups()
    number = Decimal(f"{sign}{whole or '0'}.{frac or '0'}")
    if suffix in _DECIMAL:
        return number.scaleb(_DECIMAL[suffix]), "DecimalSI"
    if suffix in _BINARY:
        return number * (2 ** _BINARY[suffix]), "BinarySI"
    e = _EXPONENT.match(suffix)
    if e:
        return number.scaleb(int(e.group(1))), "DecimalExponent"
    raise QuantityError(f"unable to parse quantity's suffix: {text!r}")


@lru_cache(maxsize=1024)
def _canonical(text: str) -> str:
    value, fmt = _parse(text)
    # ParseQuantity rounds values finer than nano units up (away from zero)
    if value.as_tuple().exponent < -9:  # type: ignore[operator]
        rounding = ROUND_CEILING if value > 0 else ROUND_FLOOR
        value = value.quantize(_NANO, rounding=rounding)
    if value == 0:
        return "0"
    if fmt == "BinarySI" and (abs(value) < 1024 or value != value.to_integral_value()):
        fmt = "DecimalSI"  # small or fractional binary quantities print as decimal ones
    if fmt == "BinarySI":
        number, exponent = int(value), 0
        while number % 1024 == 0 and exponent < 6:
            number //= 1024
            exponent += 1
        return f"{number}{_BINARY_SUFFIX[exponent]}"
    # mantissa * 10^exponent with no trailing zeros, then exponent down to a multiple of 3
    sign, digits, exp = value.normalize().as_tuple()
    mantissa = int("".join(map(str, digits)))
    exponent = int(exp)
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    text_number = f"{'-' if sign else ''}{mantissa}"
    if fmt == "DecimalExponent":
        return text_number if exponent == 0 else f"{text_number}e{exponent}"
    if exponent in _DECIMAL_SUFFIX:
        return f"{text_number}{_DECIMAL_SUFFIX[exponent]}"
    return f"{text_number}e{exponent}"  # beyond exa: Go falls back to the exponent form


def canonical_quantity(q: Any) -> str:
    """The string Go marshals a resource.Quantity parsed from `q` to ("6000m" -> "6", 4 -> "4").

    A string already in canonical form is kept as written (Go caches it).
    """
    if isinstance(q, bool) or not isinstance(q, (str, int, float)):
        raise QuantityError(f"quantities must be strings or numbers, not {q!r}")
    text = q if isinstance(q, str) else (str(q) if isinstance(q, int) or not q.is_integer() else str(int(q)))
    return _canonical(text.strip())


def quantity_value(q: Any) -> int:
    """Quantity.Value(): the value rounded up, away from zero, to an integer."""
    value, _ = _parse(q if isinstance(q, str) else str(q))
    return int(value.to_integral_value(rounding=ROUND_CEILING if value > 0 else ROUND_FLOOR))
