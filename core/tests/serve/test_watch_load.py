"""A short load test: 16 writers and 20 watchers for ~10 s; every acknowledged write is seen by
every watcher exactly once, in resourceVersion order (benchmarks/serve_load.py runs it long)."""

from __future__ import annotations

from kubesim.testing import KubesimServer
from kubesim.testing.serveload import run_load


def test_concurrent_writers_and_watchers_lose_nothing(server: KubesimServer) -> None:
    result = run_load(server.url, clients=16, watches=20, seconds=10)
    assert result.problems == [], result.problems
    assert result.writes > 100, result.summary()
    # each watcher saw every write, plus the final one
    assert result.events_delivered >= 20 * (result.writes + 1), result.summary()
