"""Run the installed `kubesim` command with only the plugins an end-to-end test needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

KUBESIM = Path(sys.executable).parent / "kubesim"


def require_plugins(*names: str) -> None:
    """Skip the test unless every named kubesim plugin is installed."""
    installed = {ep.name for ep in entry_points(group="kubesim")}
    missing = sorted(set(names) - installed)
    if missing:
        pytest.skip(f"kubesim plugins not installed: {', '.join(missing)}")


def run_kubesim(*args: str, cwd: Path, keep: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """`kubesim ARGS` in `cwd` with every installed plugin except `keep` disabled."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBESIM_")}
    env["KUBESIM_DISABLED_PLUGINS"] = ",".join(
        sorted(ep.name for ep in entry_points(group="kubesim") if ep.name not in keep))
    return subprocess.run([str(KUBESIM), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def timeline_events(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every timeline event in order (MajorStep keys ascending)."""
    timeline = result["status"]["scenarioResult"]["timeline"]
    return [e for major in sorted(timeline, key=int) for e in timeline[major]]


def load(path: Path) -> Any:
    return json.loads(path.read_text())
