"""Shared fixtures: run the installed `kubesim` command like a user does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from kubesim.testing import KubesimRun
from kubesim.testing.pytest_plugin import RunKubesim as RunKubesimFixture

DATA = Path(__file__).parent / "data"

RunKubesim = Callable[..., KubesimRun]


@pytest.fixture
def kubesim(run_kubesim: RunKubesimFixture) -> RunKubesim:
    """`kubesim ARGS` in tmp_path, hermetic (no installed plugin), with the test plugin loadable."""

    def run(*args: str, env: dict[str, str] | None = None, plugins: bool = True) -> KubesimRun:
        if not plugins:
            return run_kubesim(*args, env=env, plugins=())
        return run_kubesim(*args, env=env, plugins=(), pythonpath=[DATA / "plugins"],
                           modules=["kubesim_testplugin"])

    return run
