"""Go float64/int64 arithmetic that the scores depend on, reproduced bit for bit.

upstream: src/math/log_amd64.s (math.Log as compiled for amd64), src/math/floor.go (math.Round).
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache

__all__ = ["go_div", "go_log", "go_round"]


def _f(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", bits))[0]
    return value


_HSQRT2 = 7.07106781186547524401e-01
_LN2HI = _f(0x3FE62E42FEE00000)
_LN2LO = _f(0x3DEA39EF35793C76)
_L1 = _f(0x3FE5555555555593)
_L2 = _f(0x3FD999999997FA04)
_L3 = _f(0x3FD2492494229359)
_L4 = _f(0x3FCC71C51D8E78AF)
_L5 = _f(0x3FC7466496CB03DE)
_L6 = _f(0x3FC39A09D078C69F)
_L7 = _f(0x3FC2F112DF3E5244)


@lru_cache(maxsize=65536)
def go_log(x: float) -> float:
    """math.Log with the operation order of Go's amd64 implementation (each step rounded)."""
    if x == 0:
        return -math.inf
    if x < 0 or math.isnan(x):
        return math.nan
    if math.isinf(x):
        return x
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    f1 = _f((bits & 0x000FFFFFFFFFFFFF) | 0x3FE0000000000000)
    k = float(((bits >> 52) & 0x7FF) - 0x3FE)
    if not (_HSQRT2 < f1):
        k -= 1.0
        f1 *= 2.0
    f = f1 - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (((_L7 * s4 + _L5) * s4 + _L3) * s4 + _L1)
    t2 = s4 * ((_L6 * s4 + _L4) * s4 + _L2)
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2HI - ((hfsq - (s * (r + hfsq) + _LN2LO * k)) - f)


def go_round(x: float) -> float:
    """math.Round: half away from zero."""
    if math.isnan(x) or math.isinf(x):
        return x
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return t


def go_div(a: int, b: int) -> int:
    """int64 division truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q
