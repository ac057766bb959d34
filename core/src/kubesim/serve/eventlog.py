"""The watch cache of `kubesim serve`: a bounded ring of recent events that watchers read.

Like kube-apiserver's watch cache (staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go),
every committed write lands in one ring of recent events, in commit order, each with its
resourceVersion. Each watch reads the ring at its own position, so a slow watcher never slows
a writer: one that falls behind the ring's oldest entry is ended with 410 Expired.

`EventLog.record` is the cluster's watch handler: it runs in the writer's thread, under the
cluster lock, and never blocks (it appends, then schedules one wake-up on the event loop).
Objects are the stored ones (immutable by contract); each is encoded to JSON once, lazily,
and the bytes are shared by every watcher.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from kubesim.cluster.events import WatchEvent

__all__ = ["DEFAULT_CAPACITY", "EventLog", "LogEntry", "encode"]

DEFAULT_CAPACITY = 100_000
"""Events the ring keeps (kube-apiserver sizes its watch cache per resource; one ring here)."""


def encode(obj: Any) -> bytes:
    """Compact JSON, as kube-apiserver writes it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


class LogEntry:
    """One committed change: its position (`seq`), resourceVersion, type, kind and objects."""

    __slots__ = ("_json", "group", "kind", "name", "namespace", "object", "old_object", "rv", "seq", "type")

    def __init__(self, seq: int, event: WatchEvent) -> None:
        obj = event.object
        meta = obj["metadata"]
        api_version: str = obj.get("apiVersion", "")
        self.seq = seq
        self.rv = int(meta["resourceVersion"])
        self.type = event.type
        self.group = api_version.rpartition("/")[0]
        self.kind: str = obj.get("kind", "")
        self.namespace: str | None = meta.get("namespace")
        self.name: str = meta.get("name", "")
        self.object = obj
        self.old_object = event.old_object
        self._json: bytes | None = None

    def object_json(self) -> bytes:
        """The object as JSON, encoded at most once (watchers share the bytes)."""
        data = self._json
        if data is None:
            data = self._json = encode(self.object)
        return data


class EventLog:
    """The bounded ring of recent events, and the wake-up of the watchers on the event loop."""

    def __init__(self, resource_version: int, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("the event log needs a capacity of at least 1")
        self.capacity = capacity
        self._ring: list[LogEntry | None] = [None] * capacity
        self.head = 0
        """The `seq` the next event gets; entries head-capacity .. head-1 are in the ring."""
        self.floor = resource_version
        """Every event with a resourceVersion above this one is still in the ring."""
        self.start = 0
        """The `seq` of the first event after the latest reset."""
        self.generation = 0
        """Counts resets: a watch started in an older generation is over."""
        self.closed = False
        """The server is stopping: every watch ends (its stream closes)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._future: asyncio.Future[None] | None = None
        self._wake_pending = False

    # --- the writer side (any thread, under the cluster lock) ------------------------

    def record(self, event: WatchEvent) -> None:
        """The cluster's watch handler: append `event` and wake the watchers (never blocks)."""
        seq = self.head
        slot = seq % self.capacity
        evicted = self._ring[slot]
        if evicted is not None:
            self.floor = evicted.rv
        self._ring[slot] = LogEntry(seq, event)
        self.head = seq + 1
        self._wake()

    def reset(self, resource_version: int) -> None:
        """Forget every event and end every open watch (call it, under the lock, after cluster.reset()).

        Watchers see 410 Expired and relist, as after an API server restart with a new
        etcd: resourceVersions start again at `resource_version`.
        """
        self._ring = [None] * self.capacity
        self.start = self.head
        self.floor = resource_version
        self.generation += 1
        self._wake()

    def close(self) -> None:
        """End every open watch now (the server stops); safe from a signal handler or any thread."""
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        loop = self._loop
        if loop is None or self._wake_pending:
            return
        self._wake_pending = True
        try:
            loop.call_soon_threadsafe(self._release)
        except RuntimeError:  # the loop closed: the server is stopping
            self._wake_pending = False

    # --- the watcher side (the event loop) ---------------------------------------------

    def _release(self) -> None:
        self._wake_pending = False
        future, self._future = self._future, None
        if future is not None and not future.done():
            future.set_result(None)

    def changed(self) -> asyncio.Future[None]:
        """A future done after the next record() or reset(); take it BEFORE reading the ring."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        future = self._future
        if future is None:
            future = self._future = self._loop.create_future()
        return future

    def entry(self, seq: int) -> LogEntry | None:
        """The entry at `seq`; None once it left the ring (the reader fell behind) or before a reset."""
        entry = self._ring[seq % self.capacity]
        return entry if entry is not None and entry.seq == seq else None

    def oldest(self) -> int:
        """The `seq` of the oldest entry still kept."""
        return max(self.start, self.head - self.capacity)

    def position_after(self, resource_version: int) -> int | None:
        """The `seq` of the first event newer than `resource_version`; None when it is too old."""
        if resource_version < self.floor:
            return None
        low, high = self.oldest(), self.head
        while low < high:  # the first kept entry with rv > resource_version
            mid = (low + high) // 2
            entry = self.entry(mid)
            if entry is not None and entry.rv <= resource_version:
                low = mid + 1
            else:
                high = mid
        return low
