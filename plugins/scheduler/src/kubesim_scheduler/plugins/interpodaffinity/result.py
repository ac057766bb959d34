"""Framework-independent plugin outcomes (codes spelled as upstream's fwk.Code names).

A `None` outcome means success, as a nil *Status does upstream.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ERROR", "SKIP", "UNSCHEDULABLE", "UNSCHEDULABLE_AND_UNRESOLVABLE", "Outcome"]

ERROR = "Error"
UNSCHEDULABLE = "Unschedulable"
UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
SKIP = "Skip"


@dataclass(frozen=True)
class Outcome:
    """A non-success status: code and reasons."""

    code: str
    reasons: tuple[str, ...] = ()

    @classmethod
    def of(cls, code: str, *reasons: str) -> Outcome:
        """Build an outcome from a code and reasons."""
        return cls(code, tuple(reasons))

    def __str__(self) -> str:
        return f"{self.code}: [{' '.join(self.reasons)}]"
