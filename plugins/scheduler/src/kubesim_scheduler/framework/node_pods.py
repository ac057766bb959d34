"""NodePods: the pods on one node, in the order upstream's NodeInfo.Pods slice has them.

The order decides ties in preemption (victims are sorted by an unstable sort), so it must
follow upstream exactly: AddPod appends; RemovePod moves the last pod into the removed
pod's slot and shortens the slice. Since the cache turns every pod update (and the
confirmation of an assumed pod) into remove + add, an updated pod goes to the end and the
pod that was last takes its old place.
"""

# upstream: pkg/scheduler/framework/types.go (NodeInfo.AddPodInfo, RemovePod, removeFromSlice)

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pod_info import PodInfo

__all__ = ["NodePods"]


class NodePods(MutableMapping[str, "PodInfo"]):
    """pod key -> PodInfo, iterated in slice order; deleting swaps the last pod in (O(1))."""

    __slots__ = ("_keys", "_pods", "_index")

    def __init__(self, items: Iterable[tuple[str, PodInfo]] = ()) -> None:
        self._keys: list[str] = []
        self._pods: list[PodInfo] = []
        self._index: dict[str, int] = {}
        for k, v in items:
            self[k] = v

    def __getitem__(self, key: str) -> PodInfo:
        return self._pods[self._index[key]]

    def __setitem__(self, key: str, pod_info: PodInfo) -> None:
        """Append a new pod (AddPodInfo); a known key is replaced where it is."""
        i = self._index.get(key)
        if i is not None:
            self._pods[i] = pod_info
            return
        self._index[key] = len(self._keys)
        self._keys.append(key)
        self._pods.append(pod_info)

    def __delitem__(self, key: str) -> None:
        """removeFromSlice: the last pod moves into the removed pod's slot."""
        i = self._index.pop(key)
        last = len(self._keys) - 1
        if i != last:
            moved = self._keys[last]
            self._keys[i] = moved
            self._pods[i] = self._pods[last]
            self._index[moved] = i
        self._keys.pop()
        self._pods.pop()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys))

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def clear(self) -> None:
        self._keys.clear()
        self._pods.clear()
        self._index.clear()

    def pod_list(self) -> list[PodInfo]:
        """The pods in slice order (a copy)."""
        return list(self._pods)

    def move_to_end(self, key: str) -> None:
        """Remove + add of the same pod (the cache's updatePod): only the order changes."""
        pod_info = self[key]
        del self[key]
        self[key] = pod_info

    def reorder(self, keys: Iterable[str]) -> None:
        """Put the pods in the order of `keys` (the same set of keys)."""
        order = list(keys)
        if len(order) != len(self._keys) or set(order) != self._index.keys():
            raise ValueError("reorder needs exactly the keys held")
        pods = {k: self._pods[i] for k, i in self._index.items()}
        self.clear()
        for k in order:
            self[k] = pods[k]

    def __repr__(self) -> str:
        return f"NodePods({self._keys!r})"
