"""The pdqsort port against orders Go's own sort.Slice produced (tests/data/gosort)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from kubesim_scheduler.gosort import sort_slice

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "gosort" / "gosort_expected.json").read_text()
)["Cases"]


def _go_order(case: dict[str, Any]) -> tuple[list[int], int]:
    """Sort indexes with the case's less function, as gen.go does; the order and Less calls."""
    keys: list[int] = case["keys"]
    starts: list[int] = case.get("starts") or []
    idx = list(range(len(keys)))
    clock = [1_000_000]
    calls = [0]

    def start_of(e: int) -> int:
        if starts[e] >= 0:
            return starts[e]
        clock[0] += 1
        return clock[0]

    def less(a: int, b: int) -> bool:
        calls[0] += 1
        if case["mode"] == "keys":
            return keys[a] < keys[b]
        if keys[a] != keys[b]:
            return keys[a] > keys[b]
        ta = start_of(a)
        tb = start_of(b)
        return ta < tb

    sort_slice(idx, less)
    return idx, calls[0]


def test_fixture_covers_ties_and_sizes() -> None:
    assert len(CASES) == 312
    assert max(len(c["keys"]) for c in CASES) > 300  # beyond insertion sort and the ninther
    assert sum(1 for c in CASES if c["mode"] == "clock") == 156


@pytest.mark.parametrize("i", range(len(CASES)))
def test_same_order_and_comparisons_as_go(i: int) -> None:
    case = CASES[i]
    order, calls = _go_order(case)
    assert (order, calls) == (case["order"], case["calls"]), f"case {i}: {case['mode']} n={len(case['keys'])}"


def test_sorts_consistent_keys() -> None:
    rng = random.Random(7)
    for n in (0, 5, 13, 60, 500):
        items = [rng.randrange(4) for _ in range(n)]
        sort_slice(items, lambda a, b: a < b)
        assert items == sorted(items)


def test_not_stable_above_twelve_elements() -> None:
    # 7 ones then 6 zeros: the pivot hint says "decreasing", the range is reversed, and the
    # tied ones come out in neither order (Go 1.19.8 printed this very order)
    keys = [1] * 7 + [0] * 6
    idx = list(range(13))
    sort_slice(idx, lambda a, b: keys[a] < keys[b])
    assert idx == [7, 12, 11, 10, 9, 8, 3, 6, 5, 4, 0, 2, 1]
    small = [(0, i) for i in range(12)]
    sort_slice(small, lambda a, b: a[0] < b[0])
    assert [i for _, i in small] == list(range(12))  # insertion sort: stable
