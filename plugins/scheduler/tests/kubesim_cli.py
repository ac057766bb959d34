"""The scheduler tests' `kubesim` runs: kubesim.testing's, with only the scheduler enabled by default."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kubesim.testing import KubesimRun
from kubesim.testing import run_kubesim as _run_kubesim

__all__ = ["run_kubesim"]


def run_kubesim(*args: str, cwd: Path, env: Mapping[str, str] | None = None,
                keep: tuple[str, ...] = ("scheduler",), timeout: float = 900.0) -> KubesimRun:
    """`kubesim ARGS` in `cwd` with the installed plugins in `keep` only (conformance runs take minutes)."""
    return _run_kubesim(*args, cwd=cwd, env=env, plugins=keep, timeout=timeout)
