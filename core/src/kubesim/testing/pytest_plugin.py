"""The pytest plugin of kubesim.testing (entry point pytest11): the `run_kubesim` and `sim_env` fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

__all__ = ["RunKubesim", "SimEnvFactory", "run_kubesim", "sim_env"]


class RunKubesim(Protocol):
    """`run_kubesim(*args, cwd=tmp_path, plugins=None, env=None, timeout=..., ...)`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


class SimEnvFactory(Protocol):
    """`sim_env(controllers=[...], objects=[...], seed=0, ...)` -> SimEnv."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


@pytest.fixture
def run_kubesim(tmp_path: Path) -> RunKubesim:
    """kubesim.testing.run_kubesim, run in the test's tmp_path unless `cwd` is given."""
    from kubesim.testing.cli import run_kubesim as run

    def bound(*args: Any, cwd: Path | None = None, **kwargs: Any) -> Any:
        return run(*args, cwd=tmp_path if cwd is None else cwd, **kwargs)

    return bound


@pytest.fixture
def sim_env() -> Iterator[SimEnvFactory]:
    """Build SimEnvs (same arguments as SimEnv); each is closed when the test ends."""
    from kubesim.testing.env import SimEnv

    built: list[SimEnv] = []

    def make(*args: Any, **kwargs: Any) -> SimEnv:
        env = SimEnv(*args, **kwargs)
        built.append(env)
        return env

    yield make
    for env in reversed(built):
        env.close()
