"""Every distribution's wheel ships its package with py.typed (PEP 561), so mypy checks users' code."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(
    p.parent.relative_to(ROOT).as_posix()
    for p in [ROOT / "core" / "pyproject.toml", *ROOT.glob("plugins/*/pyproject.toml"), *ROOT.glob("contrib/*/pyproject.toml")]
)


def test_every_package_directory_is_listed() -> None:
    assert "core" in DISTRIBUTIONS and "plugins/scheduler" in DISTRIBUTIONS and len(DISTRIBUTIONS) >= 9


@pytest.mark.parametrize("dist", DISTRIBUTIONS)
def test_the_wheel_ships_py_typed(dist: str, tmp_path: Path) -> None:
    packages = sorted(p.name for p in (ROOT / dist / "src").iterdir() if (p / "__init__.py").is_file())
    assert packages, f"{dist}: no package under src/"
    wheels = list(WheelBuilder(str(ROOT / dist)).build(directory=str(tmp_path), versions=["standard"]))
    assert len(wheels) == 1
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    for package in packages:
        assert f"{package}/py.typed" in names, f"{dist}: {package}/py.typed is not in the wheel"
