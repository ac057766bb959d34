"""Headless Chromium for tests of the HTML report: the page's DOM after its scripts ran, and screenshots.

Chromium is Debian's `chromium` package (.ci/run installs it). Without it a test fails
when CI is set (a check that silently does not run is no check) and is skipped elsewhere.
Every call is bounded by a timeout and uses no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["CHROMIUM_TIMEOUT", "chromium_binary", "dump_dom", "screenshot"]

CHROMIUM_TIMEOUT = 120.0


def chromium_binary() -> str:
    """The Chromium binary; under CI its absence is a failure, elsewhere a skip."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("chromium is not installed: .ci/run installs Debian's chromium package")
    pytest.skip("chromium is not installed (apt-get install chromium)")
    raise AssertionError("unreachable")


def _run(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [chromium_binary(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=10000", *args],
        capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def dump_dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The DOM of `page` (opened with `#fragment` when given) once its scripts ran."""
    return _run(["--dump-dom", page.as_uri() + (f"#{fragment}" if fragment else "")], profile).stdout


def screenshot(page: Path, png: Path, profile: Path, fragment: str = "", size: tuple[int, int] = (1400, 2000)) -> Path:
    """A PNG of `page` at `size` (width, height) pixels; returns `png`."""
    _run([f"--window-size={size[0]},{size[1]}", "--hide-scrollbars", f"--screenshot={png}",
          page.as_uri() + (f"#{fragment}" if fragment else "")], profile)
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"no screenshot written to {png}"
    return png
