"""click parameter types for kubesim's flags."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import click

from kubesim.k8s.duration import parse_go_duration, to_timedelta

__all__ = ["BYTES", "DURATION", "TIME", "parse_duration"]

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?", re.ASCII)
"""Go's time.RFC3339 layout (the zone is checked separately for a clearer message)."""


def parse_duration(text: str) -> timedelta:
    """Parse a positive Go duration such as "10s", "1m30s" or "2h" (Go's syntax and int64 bound)."""
    try:
        ns = parse_go_duration(text)
    except ValueError as exc:
        raise ValueError(f"{exc} (expected e.g. 10s, 1m30s, 2h; at most 2562047h)") from None
    if ns <= 0:
        raise ValueError(f"{text!r} must be greater than 0 (e.g. 10s, 1m30s, 2h)")
    if ns < 1000:
        raise ValueError(f"{text!r} is shorter than 1us, the finest step kubesim's clock has")
    return to_timedelta(ns)


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
        text = str(value)
        try:
            if not _RFC3339.fullmatch(text):
                raise ValueError(text)
            t = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            self.fail(f"{value!r} is not an RFC 3339 time (expected e.g. 2025-01-01T00:00:00Z)", param, ctx)
        if t.tzinfo is None:
            self.fail(f"{value!r} has no time zone (add Z or an offset)", param, ctx)
        return t


class _Bytes(click.ParamType):  # type: ignore[type-arg,unused-ignore]
    """A size in bytes as a Kubernetes quantity: 512Mi, 1Gi, 300M, 1000000."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        from kubesim.k8s.quantity import value as quantity_value

        try:
            size = quantity_value(str(value))
        except ValueError:
            self.fail(f"{value!r} is not a size (expected bytes or a quantity such as 512Mi, 2Gi)", param, ctx)
        if size <= 0:
            self.fail(f"{value!r} must be greater than 0 (e.g. 512Mi)", param, ctx)
        return size


BYTES = _Bytes()
DURATION = _Duration()
TIME = _Time()
