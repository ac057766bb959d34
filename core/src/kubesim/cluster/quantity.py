"""Kubernetes resource quantities ("100m", "1Gi", 2) as exact numbers.

Parsing follows `kubernetes.utils.quantity.parse_quantity` (imported lazily: importing the
client package costs a few hundred milliseconds). Results are cached because the same few
strings ("100m", "128Mi") recur across thousands of pods.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache

__all__ = ["Quantity", "cpu_milli", "parse_quantity", "to_int"]

Quantity = str | int | float | Decimal
"""A quantity as written in an object: a string such as "250m" or a plain number."""

_parser: Callable[[object], Decimal] | None = None


def _upstream_parser() -> Callable[[object], Decimal]:
    """kubernetes.utils.quantity.parse_quantity, loaded without importing the whole client.

    `import kubernetes.utils` runs kubernetes/__init__.py, which imports the generated API
    client (about 0.3 s); the quantity module itself only needs `decimal`, so we load its
    file directly and fall back to the normal import if the package layout ever changes.
    """
    global _parser
    if _parser is None:
        try:
            spec = importlib.util.find_spec("kubernetes")
            origin = spec.origin if spec is not None else None
            if origin is None:
                raise ImportError("kubernetes is not installed")
            path = os.path.join(os.path.dirname(origin), "utils", "quantity.py")
            file_spec = importlib.util.spec_from_file_location("kubesim.cluster._kubernetes_quantity", path)
            if file_spec is None or file_spec.loader is None:
                raise ImportError(path)
            module = importlib.util.module_from_spec(file_spec)
            file_spec.loader.exec_module(module)
            _parser = module.parse_quantity
        except (ImportError, OSError, AttributeError):
            from kubernetes.utils.quantity import parse_quantity as upstream

            _parser = upstream
    assert _parser is not None
    return _parser


@lru_cache(maxsize=4096, typed=True)
def _parse(q: Quantity) -> Decimal:
    if isinstance(q, bool) or not isinstance(q, (str, int, float, Decimal)):
        raise ValueError(f"invalid quantity {q!r}: expected a string or a number")  # noqa: TRY004
    try:
        value = _upstream_parser()(q)
    except (ValueError, ArithmeticError) as exc:
        raise ValueError(f"invalid quantity {q!r}: {exc}") from None
    if not value.is_finite():
        raise ValueError(f"invalid quantity {q!r}: not a finite number")
    return value


def parse_quantity(q: Quantity) -> Decimal:
    """The exact value of a quantity; ValueError names the bad quantity."""
    try:
        return _parse(q)
    except TypeError:  # unhashable input, e.g. a list
        raise ValueError(f"invalid quantity {q!r}: expected a string or a number") from None


@lru_cache(maxsize=4096, typed=True)
def _ceil(q: Quantity, scale: int) -> int:
    return int((_parse(q) * scale).to_integral_value(rounding=ROUND_CEILING))


def cpu_milli(q: Quantity) -> int:
    """The value in thousandths, rounded up, like resource.Quantity.MilliValue()."""
    try:
        return _ceil(q, 1000)
    except TypeError:
        raise ValueError(f"invalid quantity {q!r}: expected a string or a number") from None


def to_int(q: Quantity) -> int:
    """The value rounded up to an integer, like resource.Quantity.Value()."""
    if type(q) is int:
        return q
    if type(q) is float and q.is_integer():
        return int(q)
    try:
        return _ceil(q, 1)
    except TypeError:
        raise ValueError(f"invalid quantity {q!r}: expected a string or a number") from None
