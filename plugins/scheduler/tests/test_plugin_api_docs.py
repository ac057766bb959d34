"""docs/scheduler-plugin-api.md's example runs: its plugins work and its unit tests pass."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[3] / "docs" / "scheduler-plugin-api.md"


def test_the_documented_example_passes_its_own_tests() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 2, "expected the plugin block and its test block"
    namespace: dict[str, Any] = {"__name__": "scheduler_plugin_api_doc"}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the document's own code
    tests = [fn for name, fn in namespace.items() if name.startswith("test_")]
    assert len(tests) == 2
    for fn in tests:
        fn()


def test_the_documented_names_are_the_api() -> None:
    import kubesim_scheduler.api as api
    import kubesim_scheduler.helper as helper
    import kubesim_scheduler.testing as testing

    text = re.sub(r"```.*?```", "", DOC.read_text(encoding="utf-8"), flags=re.S)  # prose, no code blocks
    # identifiers inside `code spans` (the reference names every stable name that way)
    documented = {word for span in re.findall(r"`([^`]+)`", text) for word in re.findall(r"\w+", span)}
    for module in (api, helper, testing):
        missing = [name for name in module.__all__ if name not in documented]
        assert not missing, f"{module.__name__}: undocumented {missing}"
