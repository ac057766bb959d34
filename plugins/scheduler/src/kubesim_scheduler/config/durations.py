"""Go duration strings ("30s", "1m30s", "250ms"), as metav1.Duration reads and writes them.

Upstream: Go's time.ParseDuration and time.Duration.String. kubesim keeps durations as
float seconds.
"""

from __future__ import annotations

import re

__all__ = ["format_duration", "parse_duration"]

_UNITS_NS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")


def parse_duration(text: str) -> float:
    """Parse a Go duration string into seconds; raise ValueError with Go's message."""
    bad = ValueError(f"time: invalid duration {_quote(text)}")
    rest = text
    sign = 1
    if rest[:1] in ("-", "+"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise bad
    total = 0
    while rest:
        m = _PART.match(rest)
        if m is None or m.end() == 0:
            raise bad
        whole, frac, unit = m.group(1), m.group(2), m.group(3)
        if not whole and not frac:
            raise bad
        if not unit:
            raise ValueError(f"time: missing unit in duration {_quote(text)}")
        if unit not in _UNITS_NS:
            raise ValueError(f"time: unknown unit {_quote(unit)} in duration {_quote(text)}")
        scale = _UNITS_NS[unit]
        total += int(whole or "0") * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        rest = rest[m.end() :]
    return sign * total / 1e9


def format_duration(seconds: float) -> str:
    """Format seconds as Go's Duration.String does ("1m30s", "1.5s", "300ms", "0s")."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000_000_000:
        for limit, prec, unit in ((1_000, 0, "ns"), (1_000_000, 3, "\u00b5s"), (10**9, 6, "ms")):
            if u < limit:
                return sign + _frac(u, prec) + unit
    text = _frac(u, 9) + "s"
    minutes = u // 1_000_000_000 // 60
    secs_text = text
    if minutes:
        whole_secs = (u // 1_000_000_000) % 60
        secs_text = _frac(whole_secs * 1_000_000_000 + u % 1_000_000_000, 9) + "s"
        hours = minutes // 60
        text = f"{minutes % 60}m{secs_text}"
        if hours:
            text = f"{hours}h{text}"
    return sign + text


def _frac(value: int, prec: int) -> str:
    """value / 10**prec with trailing zeros (and a bare point) dropped."""
    whole, frac = divmod(value, 10**prec)
    digits = f"{frac:0{prec}d}".rstrip("0") if prec else ""
    return f"{whole}.{digits}" if digits else str(whole)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
