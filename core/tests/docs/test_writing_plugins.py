"""docs/writing-plugins.md: its controller and its tests written with kubesim.testing pass as shown."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubesim.testing import KubesimRun
from kubesim.testing.pytest_plugin import RunKubesim, SimEnvFactory

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "writing-plugins.md"


def python_blocks(title: str) -> list[str]:
    """The ```python blocks of the guide's `## <n>. <title>` section."""
    text = GUIDE.read_text(encoding="utf-8")
    body = re.split(rf"\n## \d+\. {re.escape(title)}\n", text, maxsplit=1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


@pytest.fixture
def plugin_package(tmp_path: Path) -> Iterator[Path]:
    """The guide's controller as the package my_kubesim_plugin (hooks.py), importable."""
    package = tmp_path / "site" / "my_kubesim_plugin"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(python_blocks("A controller")[0])
    sys.path.insert(0, str(package.parent))
    yield package.parent
    sys.path.remove(str(package.parent))
    for name in [m for m in sys.modules if m.split(".")[0] == "my_kubesim_plugin"]:
        del sys.modules[name]


def test_the_guides_plugin_tests_pass(
    plugin_package: Path, sim_env: SimEnvFactory, run_kubesim: RunKubesim, tmp_path: Path
) -> None:
    tests: dict[str, Any] = {}
    exec(compile("\n".join(python_blocks("Test it")), str(GUIDE), "exec"), tests)
    tests["test_a_labelled_config_map_gets_a_mirror"](sim_env)

    def as_if_installed(*args: str, plugins: list[str], **kwargs: Any) -> KubesimRun:
        assert plugins == ["my-plugin"]
        return run_kubesim(
            *args, plugins=(), modules=["my_kubesim_plugin.hooks"], pythonpath=[plugin_package], **kwargs
        )

    tests["test_the_mirror_is_in_the_timeline"](as_if_installed, tmp_path)
