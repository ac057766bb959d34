"""Score normalisation (DefaultNormalizeScore) and Go's truncating int64 division on arrays."""

# upstream: pkg/scheduler/framework/plugins/helper/normalize_score.go

from __future__ import annotations

import numpy as np

from .interface import MAX_NODE_SCORE, NodeScore

__all__ = ["go_div", "go_div_int", "default_normalize", "default_normalize_scores"]


def go_div_int(a: int, b: int) -> int:
    """Go's a / b on int64: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_div(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Element-wise Go int64 division (truncates toward zero; numpy's // floors)."""
    a = np.asarray(a, dtype=np.int64)
    b_arr = np.asarray(b, dtype=np.int64)
    if (b_arr > 0).all() and (a >= 0).all():
        return a // b_arr
    q = np.abs(a) // np.abs(b_arr)
    neg = (a < 0) != (b_arr < 0)
    result: np.ndarray = np.where(neg, -q, q)
    return result


def default_normalize(scores: np.ndarray, max_priority: int = MAX_NODE_SCORE, reverse: bool = False) -> np.ndarray:
    """helper.DefaultNormalizeScore on an int64 array: scale to [0, max] by the maximum."""
    if len(scores) == 0:
        return scores
    max_count = int(scores.max())
    if max_count <= 0:
        # upstream's maxCount starts at 0: all scores <= 0 leave them untouched (or max if reverse)
        if reverse:
            return np.full_like(scores, max_priority)
        return scores
    out = go_div(scores * max_priority, max_count)
    if reverse:
        out = max_priority - out
    return out


def default_normalize_scores(scores: list[NodeScore], max_priority: int = MAX_NODE_SCORE, reverse: bool = False) -> None:
    """In-place DefaultNormalizeScore on a NodeScore list (per-node plugins)."""
    arr = default_normalize(np.array([s.score for s in scores], dtype=np.int64), max_priority, reverse)
    for s, v in zip(scores, arr):
        s.score = int(v)
