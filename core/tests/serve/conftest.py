"""Fixtures for `kubesim serve` tests: a running server and clients of it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kubesim.testing import KubesimServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[KubesimServer]:
    """A `kubesim serve` on a free loopback port, with every installed plugin."""
    with KubesimServer(tmp_path) as running:
        yield running


@pytest.fixture
def kubectl() -> str:
    """The kubectl binary; a failure (not a skip) when it is missing under CI=true."""
    path = shutil.which("kubectl")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl is not installed (CI must have it)")
        pytest.skip("kubectl is not installed")
    return path


KubectlRun = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def run_kubectl(server: KubesimServer, kubectl: str) -> KubectlRun:
    """Run kubectl against `server` (60 s limit); the completed process, stdout and stderr as text."""
    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), *args], capture_output=True,
                              text=True, timeout=60)
        if check:
            assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done
    return run
