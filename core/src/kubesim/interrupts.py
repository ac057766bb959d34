"""SIGINT and SIGTERM end a command the same way: the result so far is written, no traceback.

Python raises KeyboardInterrupt on SIGINT. `timeout`, CI cancellation and container runtimes
send SIGTERM, which would kill the process before it writes anything; `catch_interrupts` makes it
raise `Terminated`, a KeyboardInterrupt, so every place that handles an interrupt handles both.

An interrupt that lands in code whose exceptions Python ignores (a weakref callback inside the
import system, a `__del__`) would be printed as "Exception ignored in ..." with a traceback and
then lost; `catch_interrupts` has such an interrupt delivered again a moment later instead.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
from types import FrameType
from typing import Any

__all__ = ["Terminated", "catch_interrupts", "exit_code", "received", "signal_name"]

_received: list[signal.Signals] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    _received.append(signal.SIGTERM)
    raise Terminated()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    _received.append(signal.SIGINT)
    raise KeyboardInterrupt()


def received() -> KeyboardInterrupt | None:
    """The interrupt last received, if any (an interrupt inside the import system can surface as
    another exception, e.g. a TypeError from a half-built ImportError)."""
    if not _received:
        return None
    return Terminated() if _received[-1] == signal.SIGTERM else KeyboardInterrupt()


def _redeliver(unraisable: Any, previous: Any = sys.unraisablehook) -> None:
    """sys.unraisablehook: an interrupt Python could not raise is sent again, from a thread, so
    that the main thread raises it where it can; anything else goes to the previous hook.

    The signal goes to the main thread itself, so that a sleep or a read there ends at once;
    the thread is started without waiting for it (threading.Thread.start waits, and the
    signal would then land inside this hook)."""
    exc = unraisable.exc_value
    if isinstance(exc, KeyboardInterrupt):
        sig = signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT
        _thread.start_new_thread(signal.pthread_kill, (threading.main_thread().ident, sig))
        return
    previous(unraisable)


def catch_interrupts() -> None:
    """From now on SIGTERM raises Terminated in the main thread, and no interrupt is lost."""
    signal.signal(signal.SIGTERM, _raise_terminated)
    signal.signal(signal.SIGINT, _raise_interrupt)
    sys.unraisablehook = _redeliver


def signal_name(exc: BaseException) -> str:
    """The signal behind an interrupt: "SIGTERM" or "SIGINT"."""
    return "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"


def exit_code(exc: BaseException) -> int:
    """The shell's code for a process ended by that signal: 143 for SIGTERM, 130 for SIGINT."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
