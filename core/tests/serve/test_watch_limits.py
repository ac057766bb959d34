"""Watch limits that need the server's state at hand: reset, a small ring, the open-watch limit.

The server runs in-process (uvicorn in a thread, real HTTP on a loopback port) so the test can
call `ServerState.reset_cluster()` and choose a small event log; the clients are real.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from kubesim.serve.app import build_app
from kubesim.serve.state import ServerState
from kubesim.testing.watchstream import WatchStream, connection, request_json


class _Served:
    def __init__(self, state: ServerState, url: str) -> None:
        self.state = state
        self.url = url


def _serve(capacity: int = 100_000, max_watches: int = 1000) -> Iterator[_Served]:
    state = ServerState.create(None, event_log_capacity=capacity)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    config = uvicorn.Config(build_app(state, max_watches=max_watches), log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield _Served(state, f"http://127.0.0.1:{sock.getsockname()[1]}")
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def served() -> Iterator[_Served]:
    yield from _serve()


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def test_reset_ends_open_watches_with_410(served: _Served) -> None:
    with WatchStream(served.url, "/api/v1/pods?watch=1&timeoutSeconds=20") as stream:
        assert request_json(served.url, "POST", "/api/v1/namespaces/default/pods", _pod("a"))[0] == 201
        assert stream.read(count=1)[0]["type"] == "ADDED"
        served.state.reset_cluster()
        events = stream.read(timeout=10)  # the ERROR event, then the end of the stream
    assert [e["type"] for e in events] == ["ERROR"]
    assert events[0]["object"]["code"] == 410
    # a watch from a resourceVersion of before the reset: 504 too large (client-go relists)
    with WatchStream(served.url, "/api/v1/pods?watch=1&resourceVersion=99999") as old:
        status = old.read(timeout=10)[0]["object"]
    assert (status["code"], status["reason"]) == (504, "Timeout")
    assert status["message"].startswith("Timeout: Too large resource version: 99999, current: ")
    assert status["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
    # resourceVersions restarted: the new history serves new watches
    with WatchStream(served.url, "/api/v1/pods?watch=1&timeoutSeconds=20") as again:
        request_json(served.url, "POST", "/api/v1/namespaces/default/pods", _pod("b"))
        assert [e["object"]["metadata"]["name"] for e in again.read(count=1)] == ["b"]


def test_a_watcher_behind_the_ring_gets_410_and_writers_never_wait() -> None:
    for served in _serve(capacity=50):
        slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
        slow.settimeout(10)
        slow.connect(("127.0.0.1", int(served.url.rsplit(":", 1)[1])))
        slow.sendall(b"GET /api/v1/pods?watch=1&timeoutSeconds=20 HTTP/1.1\r\nHost: x\r\n\r\n")
        conn = connection(served.url)
        big = {"padding": "x" * 10_000}
        start = time.monotonic()
        for i in range(1000):  # 10 MB: far more than the ring and the socket buffers hold
            pod = _pod(f"p{i}")
            pod["metadata"]["annotations"] = big
            assert request_json(served.url, "POST", "/api/v1/namespaces/default/pods", pod, via=conn)[0] == 201
        conn.close()
        assert time.monotonic() - start < 30  # the writer never waited for the watcher
        # now read: what was buffered, then an ERROR 410 and the end of the stream
        data = b""
        slow.settimeout(10)
        while True:
            chunk = slow.recv(65536)
            if not chunk:
                break
            data += chunk
        slow.close()
        assert b'"code":410' in data and b"too old resource version" in data
        assert data.count(b'"type":"ADDED"') < 1000


def test_open_watches_are_limited_with_429() -> None:
    for served in _serve(max_watches=2):
        with WatchStream(served.url, "/api/v1/pods?watch=1&timeoutSeconds=20"), \
                WatchStream(served.url, "/api/v1/pods?watch=1&timeoutSeconds=20"):
            status, body = request_json(served.url, "GET", "/api/v1/pods?watch=1&timeoutSeconds=20")
            assert status == 429 and body["reason"] == "TooManyRequests"
        # clients that go at once (before reading a byte) free their places too
        port = int(served.url.rsplit(":", 1)[1])
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as gone:
                gone.sendall(b"GET /api/v1/pods?watch=1&timeoutSeconds=20 HTTP/1.1\r\nHost: x\r\n\r\n")
        # closed watches free their places
        deadline = time.monotonic() + 10
        while True:
            with WatchStream(served.url, "/api/v1/pods?watch=1&timeoutSeconds=1") as stream:
                if stream.status == 200:
                    break
            assert time.monotonic() < deadline, "closed watches still count"
            time.sleep(0.1)
