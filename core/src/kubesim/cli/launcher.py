"""The `kubesim` command's entry point: imports the command, answering SIGINT from the first moment.

A console script imports its target before calling it; importing the whole command (plugins
included) takes a moment, and an interrupt then must exit 130 without a traceback too.
"""

from __future__ import annotations

import sys

__all__ = ["main"]

EXIT_INTERRUPTED = 130


def main() -> None:
    """Run the `kubesim` command (kubesim.cli.main.main); SIGINT at any moment exits 130."""
    try:
        from kubesim.cli.main import main as command

        command()
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
