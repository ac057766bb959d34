"""The example is written against the stable plugin API only (what a third party may rely on)."""

from __future__ import annotations

import ast
from pathlib import Path

import kubesim_custom_score_example

STABLE = {"kubesim", "kubesim_scheduler.api", "kubesim_scheduler.helper"}


def test_the_plugin_imports_only_the_stable_api() -> None:
    package = Path(kubesim_custom_score_example.__file__).parent
    imported: set[str] = set()
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
    kubesim_modules = {m for m in imported if m.split(".")[0].startswith("kubesim") and not m.startswith("kubesim_custom")}
    assert kubesim_modules, "the example no longer imports kubesim at all"
    assert kubesim_modules <= STABLE, sorted(kubesim_modules - STABLE)
