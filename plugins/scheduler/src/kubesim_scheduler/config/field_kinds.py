"""attrs field helpers that tell the converter how Go typed a field (int32, duration, ...).

The Go decoder rejects a number that does not fit its int32/int64 field and reads
metav1.Duration from a string; these markers let the converter do the same.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["DURATION", "INTERNAL", "INT_BITS", "JSON_NAME", "duration", "int32", "int64", "internal"]

INT_BITS = "kubesim.int_bits"
DURATION = "kubesim.duration"
JSON_NAME = "kubesim.json_name"
INTERNAL = "kubesim.internal"


def int32(default: Any = attrs.NOTHING, **kw: Any) -> Any:
    """An int32 field (Go `int32`/`*int32`)."""
    return attrs.field(default=default, metadata={INT_BITS: 32}, **kw)


def int64(default: Any = attrs.NOTHING, **kw: Any) -> Any:
    """An int64 field (Go `int64`/`*int64`)."""
    return attrs.field(default=default, metadata={INT_BITS: 64}, **kw)


def duration(default: Any = attrs.NOTHING, **kw: Any) -> Any:
    """A metav1.Duration field: a Go duration string in JSON, float seconds here."""
    return attrs.field(default=default, metadata={DURATION: True}, **kw)


def internal(default: Any = None) -> Any:
    """A field kubesim keeps for itself: never read from or written to JSON, not compared."""
    return attrs.field(default=default, eq=False, repr=False, metadata={INTERNAL: True})
