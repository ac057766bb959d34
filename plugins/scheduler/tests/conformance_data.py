"""The 300 reference decisions of kube-scheduler v1.34 (tests/data/conformance, see its README).

The data lives in the repository so a fresh clone's tests read nothing outside it; a missing
file is an error, never a skip.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["CONFORMANCE_DIR", "cases", "expected", "cases_involving"]

CONFORMANCE_DIR = Path(__file__).resolve().parent / "data" / "conformance"


def _read(name: str) -> list[dict[str, Any]]:
    return json.loads((CONFORMANCE_DIR / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _expected() -> tuple[dict[str, Any], ...]:
    return tuple(_read("expected.json"))


def cases() -> list[dict[str, Any]]:
    """Every case (nodes, existingPods, pod) in the file's order; a fresh copy per call, so a
    test module that changes an object cannot change another's."""
    return _read("cases.json")


def expected() -> dict[str, dict[str, Any]]:
    """Upstream's decision for each case, by case name (read once: do not change them)."""
    return {e["name"]: e for e in _expected()}


def cases_involving(*plugins: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(case, expected) pairs where one of `plugins` rejected a node or scored one."""
    by_name = {c["name"]: c for c in cases()}
    return [(by_name[e["name"]], e) for e in _expected()
            if any(p in f for f in e["filter"].values() for p in plugins)
            or any(p in s for s in e["scores"].values() for p in plugins)]
