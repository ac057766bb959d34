"""Shared fixtures: run the installed `kubesim` command like a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
KUBESIM = Path(sys.executable).parent / "kubesim"

RunKubesim = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def kubesim(tmp_path: Path) -> RunKubesim:
    """Run `kubesim ARGS` in tmp_path with the test plugin loadable; returns the completed process."""

    def run(*args: str, env: dict[str, str] | None = None, plugins: bool = True) -> subprocess.CompletedProcess[str]:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("KUBESIM_")}
        # hermetic: the plugins installed in this environment (the scheduler, ...) stay out
        full_env["KUBESIM_DISABLED_PLUGINS"] = ",".join(sorted(ep.name for ep in entry_points(group="kubesim")))
        if plugins:
            full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(DATA / "plugins"), full_env.get("PYTHONPATH")]))
            full_env["KUBESIM_PLUGINS"] = "kubesim_testplugin"
        full_env.update(env or {})
        return subprocess.run([str(KUBESIM), *args], cwd=tmp_path, env=full_env, capture_output=True,
                              text=True, timeout=300, check=False)

    return run
