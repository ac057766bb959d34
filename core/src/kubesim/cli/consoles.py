"""Rich consoles for the CLI's tables: never cut when the output is piped or logged.

A rich Console that is not a terminal assumes 80 columns and shortens what does not
fit ("kubesim-sched…"); a table read by a script or in a CI log must be whole.
"""

from __future__ import annotations

from typing import IO

from rich.console import Console

__all__ = ["PIPE_WIDTH", "console"]

PIPE_WIDTH = 1000
"""The width assumed when not writing to a terminal: tables are as wide as their content."""


def console(*, stderr: bool = False, file: IO[str] | None = None) -> Console:
    """A Console for stdout (or stderr, or `file`): the terminal's width on a terminal,
    PIPE_WIDTH columns and no colour codes otherwise."""
    probe = Console(stderr=stderr, file=file)
    if probe.is_terminal:
        return probe
    return Console(stderr=stderr, file=file, width=PIPE_WIDTH, color_system=None)
