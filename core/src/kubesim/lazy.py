"""Package attributes imported on first use (PEP 562), so that importing a package stays cheap.

`kubesim` and `kubesim.testing` re-export names from heavy modules; the `kubesim` command
must start (and answer SIGINT) fast, and pytest loads `kubesim.testing` into every session.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, namespace: dict[str, Any], names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `names[name]` (a module path) on first use and caches
    the attribute in `namespace` (the package's globals())."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
