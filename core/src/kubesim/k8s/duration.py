"""Go duration strings ("10s", "1m30s", "1.5h", "250ms") read as Go's time.ParseDuration does.

Upstream: Go's src/time/format.go ParseDuration, including its bound: a duration is an
int64 of nanoseconds, so anything above 2562047h47m16.854775807s is
`time: invalid duration "..."`, never a Python number without limit.
"""

from __future__ import annotations

import re
from datetime import timedelta

__all__ = ["MAX_DURATION_NS", "parse_go_duration", "to_timedelta"]

MAX_DURATION_NS = 2**63 - 1
"""The largest Go time.Duration (about 292 years)."""

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


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string; ValueError with Go's message when it is not one."""
    bad = ValueError(f"time: invalid duration {_quote(text)}")
    rest, sign = text, 1
    if rest[:1] in ("-", "+"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    if rest == "0":
        return 0
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
        if len(whole) > 20:  # more digits than an int64 holds: Go's leadingInt overflows
            raise bad
        scale = _UNITS_NS[unit]
        total += int(whole or "0") * scale
        if frac:
            frac = frac[:20]  # Go stops reading fraction digits once they no longer change the value
            total += int(frac) * scale // 10 ** len(frac)
        if total > MAX_DURATION_NS + (sign < 0):
            raise bad
        rest = rest[m.end():]
    return sign * total


def to_timedelta(ns: int) -> timedelta:
    """The timedelta of a nanosecond count (microsecond precision, as Python keeps it)."""
    return timedelta(microseconds=ns // 1000)
