"""time.Parse(time.RFC3339, s) as Go reports it: metav1.Time and MicroTime's UnmarshalJSON.

Go's generic layout parser accepts a little more than RFC 3339 (a one-digit hour, any
fraction after the seconds) and words its errors after the layout element that failed:
`parsing time "2024-13-01T00:00:00Z": month out of range`,
`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`.
"""

# upstream: Go src/time/format.go (Parse, parse, getnum, skip, parseNanoseconds, ParseError)

from __future__ import annotations

import calendar
from functools import lru_cache

__all__ = ["parse_error"]

_RFC3339 = "2006-01-02T15:04:05Z07:00"
_RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"


class _Bad(Exception):
    """errBad: the value does not match the layout element."""


def _getnum(value: str, fixed: bool) -> tuple[int, str]:
    if not value[:1].isdigit() or not value[:1].isascii():
        raise _Bad
    if not (value[1:2].isdigit() and value[1:2].isascii()):
        if fixed:
            raise _Bad
        return int(value[0]), value[1:]
    return int(value[:2]), value[2:]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_error(value: str, *, micro: bool = False) -> str | None:
    """The error time.Parse gives `value` with the RFC 3339 layout (MicroTime's, micro=True), or None.

    Remembered for the latest distinct values: every write of a run stamps the same few clock
    readings (conditions' transition times, creationTimestamp), decoded again on each write.
    """
    return _parse_error(value, micro) if len(value) <= _CACHED_LENGTH else _parse(value, micro)


_CACHED_LENGTH = 64
"""Longer values are never timestamps; they are checked without being remembered."""


@lru_cache(maxsize=4096)
def _parse_error(value: str, micro: bool) -> str | None:
    return _parse(value, micro)


def _parse(value: str, micro: bool) -> str | None:
    layout = _RFC3339_MICRO if micro else _RFC3339
    chunks = [("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05")]
    if micro:
        chunks.append(("", ".000000"))
    chunks.append(("", "Z07:00"))
    rest = value
    fields: dict[str, int] = {}
    for prefix, std in chunks:
        if not rest.startswith(prefix):
            return f"parsing time {_quote(value)} as {_quote(layout)}: cannot parse {_quote(rest)} as {_quote(prefix)}"
        rest = rest[len(prefix) :]
        hold = rest
        out_of_range = ""
        try:
            if std == "2006":
                if len(rest) < 4 or not rest[:4].isascii() or not rest[:4].isdigit():
                    raise _Bad
                fields["year"], rest = int(rest[:4]), rest[4:]
            elif std in ("01", "02", "15", "04", "05"):
                number, rest = _getnum(rest, std != "15")
                fields[std] = number
                limit = {"01": 12, "02": 31, "15": 23, "04": 59, "05": 59}[std]
                if std == "01" and not 1 <= number <= 12:
                    out_of_range = "month"
                elif number > limit and std != "02":
                    out_of_range = {"15": "hour", "04": "minute", "05": "second"}[std]
                if std == "05" and not micro and len(rest) >= 2 and rest[0] in ".," and rest[1].isdigit():
                    n = 2
                    while n < len(rest) and rest[n].isascii() and rest[n].isdigit():
                        n += 1
                    rest = rest[n:]
            elif std == ".000000":
                if len(rest) < 7 or rest[0] not in ".," or not rest[1:7].isascii() or not rest[1:7].isdigit():
                    raise _Bad
                rest = rest[7:]
            else:  # Z07:00
                if rest[:1] == "Z":
                    rest = rest[1:]
                else:
                    if len(rest) < 6 or rest[3] != ":":
                        raise _Bad
                    hours, _ = _getnum(rest[1:3], True)
                    minutes, _ = _getnum(rest[4:6], True)
                    if hours > 24:
                        out_of_range = "time zone offset hour"
                    if minutes > 60:
                        out_of_range = "time zone offset minute"
                    if rest[0] not in "+-":
                        raise _Bad
                    rest = rest[6:]
        except _Bad:
            if out_of_range:
                return f"parsing time {_quote(value)}: {out_of_range} out of range"
            return f"parsing time {_quote(value)} as {_quote(layout)}: cannot parse {_quote(hold)} as {_quote(std)}"
        if out_of_range:
            return f"parsing time {_quote(value)}: {out_of_range} out of range"
    if rest:
        return f"parsing time {_quote(value)}: extra text: {_quote(rest)}"
    year, month, day = fields["year"], fields["01"], fields["02"]
    if day < 1 or day > calendar.monthrange(year, month)[1]:
        return f"parsing time {_quote(value)}: day out of range"
    return None
