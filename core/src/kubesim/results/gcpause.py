"""Pausing Python's cyclic garbage collector while large results are built or folded.

Reading a 10,000-pod result creates millions of small acyclic objects (dicts, lists,
attrs instances); each collection of the oldest generation walks all of them, which
doubles the time to load and analyze. Nothing built here forms reference cycles, so
the collector may wait until the work is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the block (re-enabled after, if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
