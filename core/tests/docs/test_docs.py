"""Every hook is documented, and the docs name only hooks that exist."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from kubesim.plugins import hook_names, hookspecs

DOCS = Path(__file__).resolve().parents[3] / "docs"


def documented_hooks() -> list[str]:
    return re.findall(r"^## (kubesim_\w+)$", (DOCS / "hooks.md").read_text(), flags=re.M)


def test_every_hook_has_a_section_in_the_hook_reference() -> None:
    assert sorted(documented_hooks()) == sorted(hook_names())


def test_every_section_shows_the_hook_signature() -> None:
    text = (DOCS / "hooks.md").read_text()
    for name in hook_names():
        params = list(inspect.signature(getattr(hookspecs, name)).parameters)
        section = text.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"`{name}(" in section, name
        for param in params:
            assert param in section, f"{name}: parameter {param} is not documented"


def test_every_hookspec_has_a_docstring_with_return() -> None:
    for name in hook_names():
        doc = getattr(hookspecs, name).__doc__ or ""
        assert ":return:" in doc, name
