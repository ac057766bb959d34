"""Results of pure checks remembered by the exact content they were computed from.

A scenario's objects are checked twice: once before the run (`kubesim run` and `kubesim
validate` reject a bad scenario before anything happens) and again by the cluster when the
engine creates them; and many objects share the same spec (a workload's pods). Decoding and
pod-spec validation are pure functions of the JSON tree, so their answer for a tree seen
before is looked up instead of worked out again.

The key is a digest of `marshal.dumps(tree, 2)`: marshal writes exact types (True is not 1,
1.0 is not 1, a tuple is not a list, dict order is kept) and refuses anything that is not a
plain built-in value, so two trees with the same key are the same value to any check; a tree
marshal refuses is simply not remembered. Format version 2 because later versions write
back-references for objects referenced more than once, which would make the bytes depend on
reference counts rather than on the value alone. A memo holds at most `limit` keys (16 bytes each)
and starts afresh when full, so memory stays bounded whatever the scenario's size.
"""

from __future__ import annotations

import hashlib
import marshal
from typing import Any, Generic, TypeVar

__all__ = ["ContentMemo", "content_key"]

T = TypeVar("T")
_VALUE_ONLY_VERSION = 2
_MISSING: Any = object()


def content_key(tree: Any) -> bytes | None:
    """A 16-byte digest of a JSON tree's exact content; None when it holds non-plain values."""
    try:
        data = marshal.dumps(tree, _VALUE_ONLY_VERSION)
    except ValueError:
        return None
    return hashlib.blake2b(data, digest_size=16).digest()


class ContentMemo(Generic[T]):
    """Answers by content key, at most `limit` of them (then forgotten all at once)."""

    __slots__ = ("_answers", "limit")

    def __init__(self, limit: int = 1_000_000) -> None:
        self.limit = limit
        self._answers: dict[bytes, T] = {}

    def get(self, key: bytes | None) -> T | None:
        """The answer remembered for `key`, None when there is none (or key is None)."""
        if key is None:
            return None
        answer: T | None = self._answers.get(key, _MISSING)
        return None if answer is _MISSING else answer

    def put(self, key: bytes | None, answer: T) -> None:
        """Remember `answer` for `key` (nothing when key is None)."""
        if key is None:
            return
        if len(self._answers) >= self.limit:
            self._answers.clear()
        self._answers[key] = answer

    def __len__(self) -> int:
        return len(self._answers)
