"""Run the installed `kubesim` command with the scheduler and nothing else installed."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

KUBESIM = Path(sys.executable).parent / "kubesim"


def run_kubesim(*args: str, cwd: Path, env: dict[str, str] | None = None,
                keep: tuple[str, ...] = ("scheduler",), timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """`kubesim ARGS` in `cwd`, with every installed plugin but `keep` disabled."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("KUBESIM_")}
    full["KUBESIM_DISABLED_PLUGINS"] = ",".join(
        sorted(ep.name for ep in entry_points(group="kubesim") if ep.name not in keep))
    full.update(env or {})
    return subprocess.run([str(KUBESIM), *args], cwd=cwd, env=full, capture_output=True, text=True,
                          timeout=timeout, check=False)
