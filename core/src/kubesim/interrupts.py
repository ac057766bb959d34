"""SIGINT and SIGTERM end a command the same way: the result so far is written, no traceback.

Python raises KeyboardInterrupt on SIGINT. `timeout`, CI cancellation and container runtimes
send SIGTERM, which would kill the process before it writes anything; `catch_sigterm` makes it
raise `Terminated`, a KeyboardInterrupt, so every place that handles an interrupt handles both.
"""

from __future__ import annotations

import signal
from types import FrameType

__all__ = ["Terminated", "catch_sigterm", "exit_code", "signal_name"]


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def catch_sigterm() -> None:
    """From now on, SIGTERM raises Terminated in the main thread."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def signal_name(exc: BaseException) -> str:
    """The signal behind an interrupt: "SIGTERM" or "SIGINT"."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def exit_code(exc: BaseException) -> int:
    """The shell's code for a process ended by that signal: 143 for SIGTERM, 130 for SIGINT."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
