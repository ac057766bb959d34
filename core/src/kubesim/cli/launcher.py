"""The `kubesim` command's entry point: imports the command, answering SIGINT and SIGTERM from the first moment.

A console script imports its target before calling it; importing the whole command (plugins
included) takes a moment, and an interrupt then must exit 130 without a traceback too.
"""

from __future__ import annotations

import sys

from kubesim.interrupts import catch_interrupts, exit_code, received, signal_name

__all__ = ["main"]


def main() -> None:
    """Run the `kubesim` command (kubesim.cli.main.main); SIGINT (130) or SIGTERM (143) at any
    moment exits without a traceback."""
    try:
        catch_interrupts()
        from kubesim.cli.main import main as command

        command()
    except KeyboardInterrupt as exc:
        _interrupted(exc)
    except Exception:
        interrupt = received()
        if interrupt is None:
            raise
        _interrupted(interrupt)


def _interrupted(exc: KeyboardInterrupt) -> None:
    sys.stderr.write(f"error: interrupted ({signal_name(exc)})\n")
    sys.exit(exit_code(exc))
