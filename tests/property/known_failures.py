"""Mutation families whose properties fail on main today, each with its FINDINGS entry.

Their parametrized cases are left out so that the suite stays green; remove an entry
once its fix is merged (or set KUBESIM_HYPOTHESIS_ALL=1 to run them all by hand).
tests/property/FINDINGS.md holds the reproducers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["AWAITING_FIX", "enabled"]

# (property, family) -> the finding that keeps it out
AWAITING_FIX: dict[tuple[str, str], str] = {}


def enabled(prop: str, families: Iterable[str]) -> list[str]:
    """The families of property `prop` to run: all but those awaiting a fix."""
    if os.environ.get("KUBESIM_HYPOTHESIS_ALL") == "1":
        return list(families)
    return [f for f in families if (prop, f) not in AWAITING_FIX]
