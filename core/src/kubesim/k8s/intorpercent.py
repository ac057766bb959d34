"""IntOrString values such as maxSurge "25%" or maxUnavailable 2, scaled against a total.

Ports k8s.io/apimachinery pkg/util/intstr (GetScaledValueFromIntOrPercent: percentages
rounded up or down with math.Ceil/Floor of value*total/100) and pkg/util/validation
(IsValidPercent).
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["IntOrPercentError", "is_valid_percent", "scaled_value"]

_PERCENT_FMT = "[0-9]+%"
_PERCENT = re.compile(_PERCENT_FMT)
_PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"
_ATOI = re.compile(r"[+-]?[0-9]+")


class IntOrPercentError(ValueError):
    """An IntOrString that is neither an integer nor a percentage."""


def is_valid_percent(value: str) -> list[str]:
    """validation.IsValidPercent: problems with a percentage string."""
    if _PERCENT.fullmatch(value):
        return []
    return [f"{_PERCENT_MSG} (e.g. '1%' or '93%', regex used for validation is '{_PERCENT_FMT}')"]


def scaled_value(value: Any, total: int, round_up: bool) -> int:
    """GetScaledValueFromIntOrPercent; None counts as nil (an error, as upstream)."""
    if value is None:
        raise IntOrPercentError("nil value for IntOrString")
    if isinstance(value, bool):
        raise IntOrPercentError("invalid value for IntOrString: invalid type: neither int nor percentage")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        if not value.endswith("%"):
            raise IntOrPercentError("invalid value for IntOrString: invalid type: string is not a percentage")
        digits = value[:-1]
        if not _ATOI.fullmatch(digits):
            raise IntOrPercentError(
                f'invalid value for IntOrString: invalid value "{value}": strconv.Atoi: parsing '
                f'"{digits}": invalid syntax'
            )
        v = int(digits)
        return math.ceil(v * total / 100) if round_up else math.floor(v * total / 100)
    raise IntOrPercentError("invalid value for IntOrString: invalid type: neither int nor percentage")
