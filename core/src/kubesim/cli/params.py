"""click parameter types for kubesim's flags."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import click

__all__ = ["DURATION", "TIME", "parse_duration"]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def parse_duration(text: str) -> timedelta:
    """Parse a Go-style duration such as "10s", "1m30s" or "2h"."""
    pos, total = 0, 0.0
    for m in _DURATION.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"{text!r} is not a duration (expected e.g. 10s, 1m30s, 2h)")
    return timedelta(seconds=total)


class _Duration(click.ParamType):  # type: ignore[type-arg,unused-ignore]
    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> timedelta:
        if isinstance(value, timedelta):
            return value
        try:
            return parse_duration(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class _Time(click.ParamType):  # type: ignore[type-arg,unused-ignore]
    name = "time"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            t = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            self.fail(f"{value!r} is not an RFC 3339 time (expected e.g. 2025-01-01T00:00:00Z)", param, ctx)
        if t.tzinfo is None:
            self.fail(f"{value!r} has no time zone (add Z or an offset)", param, ctx)
        return t


DURATION = _Duration()
TIME = _Time()
