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
_MAX_NS = 1 << 63  # Go's Duration is an int64 of nanoseconds


def parse_duration(text: str) -> float:
    """Parse a Go duration string into seconds; raise ValueError with Go's message.

    A port of time.ParseDuration: ASCII digits only, and anything past Go's int64
    nanoseconds (about 2562047h) is `time: invalid duration "..."`, as Go reports it.
    """
    bad = ValueError(f"time: invalid duration {_quote(text)}")
    rest = text
    neg = False
    if rest[:1] in ("-", "+"):
        neg = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise bad
    total = 0
    while rest:
        if not (rest[0] == "." or rest[0] in _DIGITS):
            raise bad
        whole, rest = _leading(_DIGIT_RUN, rest)
        if len(whole.lstrip("0")) > 19:
            raise bad  # leadingInt overflows: more than int64 nanoseconds
        frac = ""
        if rest[:1] == ".":
            frac, rest = _leading(_DIGIT_RUN, rest[1:])
        if not whole and not frac:
            raise bad
        unit, rest = _leading(_UNIT_RUN, rest)
        if not unit:
            raise ValueError(f"time: missing unit in duration {_quote(text)}")
        scale = _UNITS_NS.get(unit)
        if scale is None:
            raise ValueError(f"time: unknown unit {_quote(unit)} in duration {_quote(text)}")
        value = int(whole or "0")
        if value > _MAX_NS // scale:
            raise bad
        value *= scale
        if frac:
            # leadingFraction keeps the digits that fit; 19 are more than nanoseconds need
            digits = frac[:19]
            value += int(digits) * scale // 10 ** len(digits)
            if value > _MAX_NS:
                raise bad
        total += value
        if total > _MAX_NS:
            raise bad
    if not neg and total > _MAX_NS - 1:
        raise bad
    return (-total if neg else total) / 1e9


_DIGITS = frozenset("0123456789")
_DIGIT_RUN = re.compile(r"[0-9]*")
_UNIT_RUN = re.compile(r"[^0-9.]*")


def _leading(run: re.Pattern[str], text: str) -> tuple[str, str]:
    """The leading match of `run` in `text` and the rest."""
    end = run.match(text).end()  # type: ignore[union-attr]  # `*` always matches
    return text[:end], text[end:]


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
    """Go's time.quote: `"` and `\\` escaped, control and non-ASCII bytes as \\xNN."""
    out: list[str] = []
    for ch in text:
        if ch < " " or ch >= "\x80":
            out.extend(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogatepass"))
        elif ch in '"\\':
            out.append("\\" + ch)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
