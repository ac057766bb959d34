"""A load test of `kubesim serve`: concurrent writers and watchers, then a check of what each saw.

Writers create, update and delete pods as fast as the server answers; every watcher
(started from one list's resourceVersion) must see every acknowledged write exactly once,
in resourceVersion order. Used by core/tests/serve/test_watch_load.py (short) and
benchmarks/serve_load.py (long, printing figures). Every network call has a timeout.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import attrs

from kubesim.testing.watchstream import WatchStream, connection, request_json

__all__ = ["LoadResult", "run_load"]

_NS = "/api/v1/namespaces/load/pods"
_SENTINEL = "load-end"


@attrs.define
class _Watcher:
    stream: WatchStream
    seen: list[tuple[str, str, int]] = attrs.field(factory=list)
    """(type, name, resourceVersion) in arrival order."""
    error: str | None = None


@attrs.define
class _Writer:
    created: list[tuple[str, int]] = attrs.field(factory=list)
    updated: list[tuple[str, int]] = attrs.field(factory=list)
    deleted: list[str] = attrs.field(factory=list)
    latencies: list[float] = attrs.field(factory=list)
    error: str | None = None


@attrs.frozen
class LoadResult:
    """What the load did and every problem found (empty `problems`: nothing lost, nothing twice)."""

    seconds: float
    writes: int
    events_delivered: int
    watchers: int
    latency_p50_ms: float
    latency_p99_ms: float
    problems: list[str]

    def summary(self) -> str:
        return (f"{self.writes} writes in {self.seconds:.1f} s ({self.writes / self.seconds:.0f}/s), "
                f"write latency p50 {self.latency_p50_ms:.1f} ms p99 {self.latency_p99_ms:.1f} ms; "
                f"{self.watchers} watchers received {self.events_delivered} events "
                f"({self.events_delivered / self.seconds:.0f}/s); problems: {len(self.problems)}")


def _pod(name: str, generation: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"load": "yes", "generation": str(generation)}},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}


def _write(url: str, index: int, deadline: float, out: _Writer) -> None:
    conn = connection(url, 30)
    n = 0
    try:
        while time.monotonic() < deadline:
            name = f"w{index}-{n}"
            n += 1
            start = time.perf_counter()
            status, body = request_json(url, "POST", _NS, _pod(name, 0), via=conn, timeout=30)
            out.latencies.append(time.perf_counter() - start)
            if status != 201:
                raise RuntimeError(f"create {name}: {status} {body}")
            out.created.append((name, int(body["metadata"]["resourceVersion"])))
            if n % 3 == 0:  # every third pod: updated, then deleted
                status, body = request_json(url, "PUT", f"{_NS}/{name}", _pod(name, 1), via=conn, timeout=30)
                if status != 200:
                    raise RuntimeError(f"update {name}: {status} {body}")
                out.updated.append((name, int(body["metadata"]["resourceVersion"])))
                status, body = request_json(url, "DELETE", f"{_NS}/{name}", {"gracePeriodSeconds": 0},
                                            via=conn, timeout=30)
                if status != 200:
                    raise RuntimeError(f"delete {name}: {status} {body}")
                out.deleted.append(name)
    except Exception as exc:  # noqa: BLE001 - reported as a problem
        out.error = f"writer {index}: {exc!r}"
    finally:
        conn.close()


def _read(watcher: _Watcher) -> None:
    try:
        for event in watcher.stream.events():
            meta = event["object"].get("metadata", {})
            if event["type"] == "ERROR":
                raise RuntimeError(f"ERROR event: {event['object']}")
            watcher.seen.append((event["type"], meta.get("name", ""), int(meta["resourceVersion"])))
            if meta.get("name") == _SENTINEL:
                return
        raise RuntimeError("the stream ended before the last write")
    except Exception as exc:  # noqa: BLE001 - reported as a problem
        watcher.error = repr(exc)


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000


def run_load(url: str, *, clients: int, watches: int, seconds: float) -> LoadResult:
    """`clients` writers for `seconds`, `watches` watchers of the namespace; then every check."""
    status, body = request_json(url, "POST", "/api/v1/namespaces", {"metadata": {"name": "load"}})
    if status not in (201, 409):
        raise RuntimeError(f"cannot create the namespace: {status} {body}")
    status, listed = request_json(url, "GET", _NS)
    rv = listed["metadata"]["resourceVersion"]
    timeout = seconds + 120
    watchers = [_Watcher(WatchStream(url, f"{_NS}?watch=1&resourceVersion={rv}&timeoutSeconds={int(timeout)}",
                                     timeout=60)) for _ in range(watches)]
    readers = [threading.Thread(target=_read, args=(w,), daemon=True) for w in watchers]
    for thread in readers:
        thread.start()
    writers = [_Writer() for _ in range(clients)]
    start = time.monotonic()
    threads = [threading.Thread(target=_write, args=(url, i, start + seconds, w), daemon=True)
               for i, w in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 60)
    elapsed = time.monotonic() - start
    status, body = request_json(url, "POST", _NS, _pod(_SENTINEL, 0))
    problems = [f"the last write failed: {status} {body}"] if status != 201 else []
    for thread in readers:
        thread.join(60)
    for watcher in watchers:
        watcher.stream.close()
    problems += [w.error for w in writers if w.error] + ["a writer still runs" for t in threads if t.is_alive()]
    created = {rv: name for w in writers for name, rv in w.created}
    updated = {rv: name for w in writers for name, rv in w.updated}
    deleted = [name for w in writers for name in w.deleted]
    for i, watcher in enumerate(watchers):
        problems += _check(i, watcher, created, updated, deleted)
    latencies = [x for w in writers for x in w.latencies]
    return LoadResult(elapsed, len(created) + len(updated) + len(deleted), sum(len(w.seen) for w in watchers),
                      watches, _percentile(latencies, 0.5), _percentile(latencies, 0.99), problems)


def _check(index: int, watcher: _Watcher, created: dict[int, str], updated: dict[int, str],
           deleted: list[str]) -> list[str]:
    label = f"watcher {index}"
    if watcher.error:
        return [f"{label}: {watcher.error}"]
    problems = []
    rvs = [rv for _, _, rv in watcher.seen]
    if any(b <= a for a, b in zip(rvs, rvs[1:])):
        problems.append(f"{label}: events out of resourceVersion order or repeated")
    by_rv = {rv: (kind, name) for kind, name, rv in watcher.seen}
    for rv, name in created.items():
        if by_rv.get(rv) != ("ADDED", name):
            problems.append(f"{label}: the create of {name} (rv {rv}) was not seen as ADDED: {by_rv.get(rv)}")
    for rv, name in updated.items():
        if by_rv.get(rv) != ("MODIFIED", name):
            problems.append(f"{label}: the update of {name} (rv {rv}) was not seen as MODIFIED: {by_rv.get(rv)}")
    gone = [name for kind, name, _ in watcher.seen if kind == "DELETED"]
    if sorted(gone) != sorted(deleted):
        problems.append(f"{label}: {len(gone)} DELETED events for {len(deleted)} deletes")
    return problems[:10]
