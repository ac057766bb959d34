"""Counts per (topologyKey, value) pair, held as one numpy array per topology key.

Upstream's preFilterState keeps `topologyToMatchedTermCount` maps (existingAntiAffinityCounts,
affinityCounts, antiAffinityCounts) keyed by pair. A hostname key has one pair per node, so
building that map in Python each cycle and spreading it back onto nodes in Filter cost
O(nodes) interpreted steps per pod. PairCounts keeps, per key, the counts over the key's
Domain (the index's values of that key) and is read by Filter as arrays; it still behaves
as the upstream map (a MutableMapping of the non-zero pairs) for the AddPod/RemovePod
extensions, the unit tables and anything else that reads pairs one by one.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

import numpy as np

from .podindex import ClusterIndex, Domain

__all__ = ["Pair", "PairCounts"]

Pair = tuple[str, str]


class PairCounts(MutableMapping[Pair, int]):
    """pair -> count with zero counts absent (a pair reaching 0 is deleted, as upstream).

    Keys filled through `add_domain` are dense (an int64 array over the domain's values);
    a pair of a dense key whose value is not in that domain moves the key to the sparse map.
    """

    __slots__ = ("_dense", "_sparse")

    def __init__(self, items: dict[Pair, int] | None = None) -> None:
        self._dense: dict[str, tuple[Domain, np.ndarray]] = {}
        self._sparse: dict[Pair, int] = {}
        if items:
            for pair, n in items.items():
                self[pair] = n

    # ----- building and vectorised reads ------------------------------------------------------
    def add_domain(self, key: str, dom: Domain, sums: np.ndarray) -> None:
        """Add per-domain totals (aligned with dom.values) for `key`."""
        hit = self._dense.get(key)
        if hit is not None and hit[0] is dom:
            hit[1][:] += sums
            return
        if hit is not None or any(k == key for k, _ in self._sparse):
            for j in np.flatnonzero(sums).tolist():  # mixed origins: fall back to pairs
                self[(key, dom.values[j])] = self.get((key, dom.values[j]), 0) + int(sums[j])
            return
        self._dense[key] = (dom, np.asarray(sums, dtype=np.int64).copy())

    def per_slot(self, index: ClusterIndex, key: str) -> np.ndarray:
        """The count of each node slot's pair for `key` (0 where the node lacks the key)."""
        dom = index.domain(key)
        hit = self._dense.get(key)
        arr = np.zeros(len(dom.values) + 1, dtype=np.int64)
        if hit is not None and hit[0] is dom:
            arr[:-1] = hit[1]
        else:
            for (k, v), c in self.items():
                if k == key:
                    j = dom.pos.get(v)
                    if j is not None:
                        arr[j] = c
        result: np.ndarray = arr[dom.ids]  # id -1 picks the trailing zero
        return result

    def topology_keys(self) -> list[str]:
        """Keys with at least one non-zero pair, sorted."""
        keys = {k for k, (_, a) in self._dense.items() if a.any()}
        keys.update(k for k, _ in self._sparse)
        return sorted(keys)

    def copy(self) -> PairCounts:
        """An independent copy (domains are shared, arrays copied)."""
        out = PairCounts()
        out._dense = {k: (d, a.copy()) for k, (d, a) in self._dense.items()}
        out._sparse = dict(self._sparse)
        return out

    # ----- the mapping --------------------------------------------------------------------------
    def __bool__(self) -> bool:
        return bool(self._sparse) or any(a.any() for _, a in self._dense.values())

    def __len__(self) -> int:
        return len(self._sparse) + sum(int(np.count_nonzero(a)) for _, a in self._dense.values())

    def __iter__(self) -> Iterator[Pair]:
        for key, (dom, a) in self._dense.items():
            for j in np.flatnonzero(a).tolist():
                yield (key, dom.values[j])
        yield from self._sparse

    def __getitem__(self, pair: Pair) -> int:
        hit = self._dense.get(pair[0])
        if hit is None:
            return self._sparse[pair]
        j = hit[0].pos.get(pair[1])
        n = 0 if j is None else int(hit[1][j])
        if n == 0:
            raise KeyError(pair)
        return n

    def __setitem__(self, pair: Pair, n: int) -> None:
        hit = self._dense.get(pair[0])
        if hit is not None:
            j = hit[0].pos.get(pair[1])
            if j is not None:
                hit[1][j] = n
                return
            self._to_sparse(pair[0])
        if n == 0:
            self._sparse.pop(pair, None)
        else:
            self._sparse[pair] = n

    def __delitem__(self, pair: Pair) -> None:
        self[pair]  # KeyError when absent, as dict
        self[pair] = 0

    def _to_sparse(self, key: str) -> None:
        dom, a = self._dense.pop(key)
        for j in np.flatnonzero(a).tolist():
            self._sparse[(key, dom.values[j])] = int(a[j])

    def __repr__(self) -> str:
        return f"PairCounts({dict(self.items())!r})"
