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
    """A `kubesim serve` on a free loopback port, with every installed plugin; --no-live: the
    in-process controllers do not react to writes between scenarios (API tests see only their own
    writes; Scenarios still run). tests/serve/test_live.py starts servers with live mode on."""
    with KubesimServer(tmp_path, "--no-live") as running:
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
    """Run kubectl against `server` (60 s limit); the completed process, stdout and stderr as text.

    Its discovery cache is the server's own (a later server on the same port must not see it)."""
    cache = server.workdir / "kubectl-cache"

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([kubectl, "--kubeconfig", str(server.kubeconfig), "--cache-dir", str(cache), *args],
                              capture_output=True, text=True, timeout=60)
        if check:
            assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done
    return run
