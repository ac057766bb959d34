"""Running the `kubesim` command for a property: in-process (cheap) or installed (a subprocess).

In-process runs call `kubesim.cli.main.main(argv)`, the function the installed script runs,
with stdout/stderr captured and a wall-clock bound (SIGALRM); the installed command goes
through kubesim.testing's `run_kubesim` with the same bound. Both give an Outcome that
`check_clean` holds to issue 11's rules: an exit code in the allowed set, no traceback and
no Python internals on stderr.
"""

from __future__ import annotations

import contextlib
import gc
import io
import re
import signal
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

import attrs
from kubesim.cli.main import main
from kubesim.testing import KubesimTimeout, run_kubesim

__all__ = [
    "BOUND_SECONDS",
    "EXAMPLES",
    "INTERNALS",
    "Outcome",
    "TimeBoundExceeded",
    "check_clean",
    "count",
    "in_process",
    "installed",
]

BOUND_SECONDS = 20.0
"""Wall-clock seconds one command may take (a clear error takes milliseconds; this is a hang)."""

EXAMPLES: Counter[str] = Counter()
"""Examples run per property (conftest prints them at the end of the session)."""

INTERNALS = re.compile(
    r"Traceback \(most recent call last\)|\bFile \"[^\"]+\.py\", line|"
    r"\b(dict|NoneType|tuple|set_int_max_str_digits|integer ratio|__\w+__)\b|"
    r"'(str|int|float|list|bool)' object|object has no attribute|unhashable type|"
    r"\b(TypeError|KeyError|IndexError|AttributeError|ValueError|RecursionError|OverflowError|"
    r"ZeroDivisionError|UnicodeError|MemoryError|AssertionError)\b|<class '|<built-in|0x[0-9a-f]{8,}>"
)
"""What a message for a user must not hold: a traceback or the names of Python's internals."""


def count(prop: str) -> None:
    """Record that one example of property `prop` ran."""
    EXAMPLES[prop] += 1


class TimeBoundExceeded(BaseException):
    """A command did not end within its bound (a BaseException: kubesim's handlers must not catch it)."""


@attrs.frozen
class Outcome:
    """One finished command: its arguments, exit code, output and duration."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        """The command and its result, for an assertion message."""
        return (f"kubesim {' '.join(self.args)} -> exit {self.code} in {self.seconds:.2f}s\n"
                f"stdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-3000:]}")


@contextlib.contextmanager
def _bounded(seconds: float, args: Sequence[str]) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeBoundExceeded(f"kubesim {' '.join(args)} did not end within {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    return exc.code if isinstance(exc.code, int) else 1


def in_process(*args: str | Path, bound: float = BOUND_SECONDS) -> Outcome:
    """Run `kubesim ARGS` in this process (paths should be absolute) and return its Outcome.

    An exception escaping main() is what a user would see as a traceback: it propagates,
    failing the property with kubesim's own stack.
    """
    argv = tuple(str(a) for a in args)
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    code = 0
    try:
        with _bounded(bound, argv), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(list(argv))
    except SystemExit as exc:
        code = _exit_code(exc)
    finally:
        gc.unfreeze()  # main() freezes the heap for a fast process exit; this process goes on
    return Outcome(argv, code, out.getvalue(), err.getvalue(), time.perf_counter() - started)


def installed(*args: str | Path, cwd: Path, bound: float = BOUND_SECONDS) -> Outcome:
    """Run the installed `kubesim ARGS` in `cwd` through kubesim.testing.run_kubesim."""
    argv = tuple(str(a) for a in args)
    started = time.perf_counter()
    try:
        run = run_kubesim(*argv, cwd=cwd, timeout=bound, allow_traceback=True)
    except KubesimTimeout as exc:
        raise AssertionError(str(exc)) from None
    return Outcome(argv, run.returncode, run.stdout, run.stderr, time.perf_counter() - started)


def check_clean(outcome: Outcome, allowed: Sequence[int] = (0, 1, 2)) -> None:
    """The exit code is one of `allowed`; stderr has no traceback, no Python internals;
    an exit 2 says why in an `error:` line (or click's usage error)."""
    assert outcome.code in allowed, f"exit code not in {tuple(allowed)}:\n{outcome.describe()}"
    found = INTERNALS.search(outcome.stderr)
    assert found is None, f"Python internals ({found.group(0)!r}) on stderr:\n{outcome.describe()}"
    if outcome.code == 2:
        assert "error:" in outcome.stderr.lower(), f"exit 2 without an error message:\n{outcome.describe()}"
