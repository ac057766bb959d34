"""docs/pod-migration.md: its Python example prints what the page says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "pod-migration.md"


def test_python_example_prints_the_documented_commands() -> None:
    [block] = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    expected = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(DOC), "exec"), {})  # noqa: S102 - the page's own example
    assert out.getvalue().splitlines() == expected
