"""The README's first command works with any Python >= 3.10, and CI runs that command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def first_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"```sh\n(.*?)\n```", readme, flags=re.S).group(1)  # type: ignore[union-attr]


def test_the_first_command_names_no_python_minor_version() -> None:
    command = first_command()
    assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements-dev.txt")
    assert "Python 3.10 or newer" in (ROOT / "README.md").read_text(encoding="utf-8").split("```sh")[0]


def test_ci_creates_the_venv_with_the_same_python() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "PY=${PYTHON:-python3}\n" in script
    assert '"$PY" -m venv .venv\n' in script
    assert "pip install --quiet -r requirements-dev.txt\n" in script


def test_every_distribution_supports_python_3_10() -> None:
    projects = sorted(ROOT.glob("core/pyproject.toml")) + sorted(ROOT.glob("plugins/*/pyproject.toml")) + sorted(
        ROOT.glob("contrib/*/pyproject.toml"))
    assert len(projects) >= 9
    for path in projects:
        # (tomllib is 3.11+: a plain search keeps this test running on 3.10)
        assert re.search(r'^requires-python = ">=3\.10"$', path.read_text(encoding="utf-8"), flags=re.M), path
