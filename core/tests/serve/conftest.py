"""Fixtures for `kubesim serve` tests: a running server and clients of it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
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
