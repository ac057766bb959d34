"""Headless Chromium for tests that look at a report page as a person would.

`chromium()` finds the binary: without it a test fails under CI (CI set in the
environment) and is skipped elsewhere. `headless(...)` runs it once (dump the DOM, take
a screenshot) with a bounded timeout, no network and its own profile directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["CHROMIUM_TIMEOUT", "chromium", "dump_dom", "headless", "screenshot"]

CHROMIUM_TIMEOUT = 180.0
"""Seconds one Chromium run may take before the test fails."""


def chromium() -> str:
    """The Chromium binary; under CI its absence is a failure, elsewhere a skip."""
    import pytest

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs Debian's chromium package")
    pytest.skip("chromium is not installed (apt-get install chromium)")
    raise AssertionError("unreachable")


def headless(*args: str, profile: Path, window: tuple[int, int] | None = None,
             virtual_time_ms: int = 10000) -> str:
    """Run headless Chromium with `args` (e.g. "--dump-dom", page URI); its stdout.

    `window` is the viewport in CSS pixels; `virtual_time_ms` lets the page's scripts and
    timers run that long in virtual time before the DOM is dumped or the screenshot taken.
    """
    size = [f"--window-size={window[0]},{window[1]}", "--hide-scrollbars"] if window else []
    proc = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", f"--virtual-time-budget={virtual_time_ms}", *size, *args],
        capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def dump_dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The DOM of `page` (opened with `#fragment` when given) once its scripts ran."""
    return headless("--dump-dom", page.as_uri() + (f"#{fragment}" if fragment else ""), profile=profile)


def screenshot(page: Path, png: Path, profile: Path, fragment: str = "", size: tuple[int, int] = (1400, 2000)) -> Path:
    """A PNG of `page` at `size` (width, height) pixels; returns `png`."""
    headless(f"--screenshot={png}", page.as_uri() + (f"#{fragment}" if fragment else ""), profile=profile, window=size)
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no screenshot written to {png}"
    return png
