"""The property suite's Hypothesis profile, and the number of examples run, printed at the end."""

from __future__ import annotations

import pytest

import profiles
from command_runs import EXAMPLES

profiles.load()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per property with the examples it ran, and the total (issue 11's closing note)."""
    if not EXAMPLES:
        return
    terminalreporter.section(f"kubesim properties: {sum(EXAMPLES.values())} examples "
                             f"(profile {profiles.PROFILE})")
    for prop, n in sorted(EXAMPLES.items()):
        terminalreporter.write_line(f"{n:6d}  {prop}")
