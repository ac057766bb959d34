"""Go's `sort.Slice`: pattern-defeating quicksort, comparison for comparison.

kube-scheduler orders preemption victims with `sort.Slice`, which is not stable above 12
elements, and its less function (MoreImportantPod) is not even consistent for pods that
have not started (each call reads the clock). Which of several tied pods ends up first
therefore depends on the exact sequence of Less and Swap calls Go makes; Python's stable
sort gives other answers. This is a line-by-line port so that the same calls happen in the
same order: insertion sort up to 12 elements, choosePivot (median of three, Tukey's
ninther from 50), partialInsertionSort, partitionEqual for runs of duplicates,
breakPatterns with Go's xorshift seeded by the length, and the heapsort fallback.
"""

# upstream: go/src/sort/slice.go (Slice), sort.go (xorshift, nextPowerOfTwo),
# zsortfunc.go (pdqsort_func and its helpers), as in Go 1.19 to 1.25.

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from typing import TypeVar

__all__ = ["sort_slice", "pdqsort_func", "LessFunc", "SwapFunc"]

T = TypeVar("T")

#: Less(i, j): whether the element at index i sorts before the element at index j
LessFunc = Callable[[int, int], bool]
#: Swap(i, j): exchange the elements at indexes i and j
SwapFunc = Callable[[int, int], None]

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2
_U64 = (1 << 64) - 1


def sort_slice(items: MutableSequence[T], less: Callable[[T, T], bool]) -> None:
    """sort.Slice(items, func(i, j int) bool { return less(items[i], items[j]) }), in place."""

    def less_idx(i: int, j: int) -> bool:
        return less(items[i], items[j])

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    n = len(items)
    pdqsort_func(less_idx, swap, 0, n, n.bit_length())


def pdqsort_func(less: LessFunc, swap: SwapFunc, a: int, b: int, limit: int) -> None:
    """pdqsort_func: sort [a, b); `limit` bad pivots are allowed before heapsort takes over."""
    was_balanced = True
    was_partitioned = True
    while True:
        length = b - a
        if length <= _MAX_INSERTION:
            _insertion_sort(less, swap, a, b)
            return
        if limit == 0:
            _heap_sort(less, swap, a, b)
            return
        if not was_balanced:
            _break_patterns(swap, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(less, swap, a, b)
        if hint == _DECREASING_HINT:
            _reverse_range(swap, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING_HINT
        if was_balanced and was_partitioned and hint == _INCREASING_HINT:
            if _partial_insertion_sort(less, swap, a, b):
                return
        if a > 0 and not less(a - 1, pivot):
            a = _partition_equal(less, swap, a, b, pivot)
            continue
        mid, already_partitioned = _partition(less, swap, a, b, pivot)
        was_partitioned = already_partitioned
        left_len, right_len = mid - a, b - mid
        balance_threshold = length // 8
        if left_len < right_len:
            was_balanced = left_len >= balance_threshold
            pdqsort_func(less, swap, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right_len >= balance_threshold
            pdqsort_func(less, swap, mid + 1, b, limit)
            b = mid


def _insertion_sort(less: LessFunc, swap: SwapFunc, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _sift_down(less: LessFunc, swap: SwapFunc, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(first + child, first + child + 1):
            child += 1
        if not less(first + root, first + child):
            return
        swap(first + root, first + child)
        root = child


def _heap_sort(less: LessFunc, swap: SwapFunc, a: int, b: int) -> None:
    first, lo, hi = a, 0, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(less, swap, i, hi, first)
    for i in range(hi - 1, -1, -1):
        swap(first, first + i)
        _sift_down(less, swap, lo, i, first)


def _partition(less: LessFunc, swap: SwapFunc, a: int, b: int, pivot: int) -> tuple[int, bool]:
    """data[i] < p left of the new pivot index, >= p right of it; also whether nothing moved."""
    swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and less(i, a):
        i += 1
    while i <= j and not less(j, a):
        j -= 1
    if i > j:
        swap(j, a)
        return j, True
    swap(i, j)
    i += 1
    j -= 1
    while True:
        while i <= j and less(i, a):
            i += 1
        while i <= j and not less(j, a):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i += 1
        j -= 1
    swap(j, a)
    return j, False


def _partition_equal(less: LessFunc, swap: SwapFunc, a: int, b: int, pivot: int) -> int:
    """Elements equal to the pivot, then greater ones; returns where the greater ones start."""
    swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(a, i):
            i += 1
        while i <= j and less(a, j):
            j -= 1
        if i > j:
            return i
        swap(i, j)
        i += 1
        j -= 1


def _partial_insertion_sort(less: LessFunc, swap: SwapFunc, a: int, b: int) -> bool:
    """Fix at most 5 adjacent inversions; whether [a, b) is sorted afterwards."""
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        swap(i, i - 1)
        if i - a >= 2:
            # Go's loop runs down to index 1, not a+1: kept as is
            for j in range(i - 1, 0, -1):
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
        if b - i >= 2:
            for j in range(i + 1, b):
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
    return False


def _break_patterns(swap: SwapFunc, a: int, b: int) -> None:
    """Swap three elements around the middle with xorshift positions seeded by the length."""
    length = b - a
    if length < 8:
        return
    random = length
    modulus = 1 << length.bit_length()
    idx = a + (length // 4) * 2 - 1
    while idx <= a + (length // 4) * 2 + 1:
        random ^= (random << 13) & _U64
        random ^= random >> 17
        random ^= (random << 5) & _U64
        other = random & (modulus - 1)
        if other >= length:
            other -= length
        swap(idx, a + other)
        idx += 1


def _choose_pivot(less: LessFunc, swap: SwapFunc, a: int, b: int) -> tuple[int, int]:
    """A pivot index and a hint whether [a, b) looks increasing or decreasing."""
    n = b - a
    swaps = [0]
    i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
    if n >= 8:
        if n >= _SHORTEST_NINTHER:
            i = _median(less, i - 1, i, i + 1, swaps)
            j = _median(less, j - 1, j, j + 1, swaps)
            k = _median(less, k - 1, k, k + 1, swaps)
        j = _median(less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING_HINT
    if swaps[0] == _MAX_SWAPS:
        return j, _DECREASING_HINT
    return j, _UNKNOWN_HINT


def _order2(less: LessFunc, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(less: LessFunc, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(less, a, b, swaps)
    b, c = _order2(less, b, c, swaps)
    a, b = _order2(less, a, b, swaps)
    return b


def _reverse_range(swap: SwapFunc, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        swap(i, j)
        i += 1
        j -= 1
