"""Raw HTTP clients of `kubesim serve` for tests and benchmarks: JSON requests and watch streams.

    events = WatchStream(server.url, "/api/v1/pods?watch=1&resourceVersion=0")
    for event in events.read(until=lambda e: e["type"] == "DELETED", timeout=10):
        ...

Every call has a bounded timeout; a watch stream is parsed line by line from the chunked body.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["WatchStream", "connection", "get", "request_json"]


def connection(url: str, timeout: float = 10.0) -> http.client.HTTPConnection:
    """A connected keep-alive connection with TCP_NODELAY (as urllib3 and client-go set it: http.client
    sends headers and body in two writes, which Nagle's algorithm and delayed ACKs hold ~40 ms)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    conn.connect()
    assert conn.sock is not None
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def request_json(url: str, method: str, path: str, body: Any = None, *, token: str | None = None,
                 timeout: float = 10.0, via: http.client.HTTPConnection | None = None
                 ) -> tuple[int, Any]:
    """One request with a JSON body (if any); (status, decoded JSON answer). `via`: a keep-alive connection."""
    conn = via or connection(url, timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        data = response.read()
    finally:
        if via is None:
            conn.close()
    return response.status, json.loads(data) if data else None


def get(url: str, path: str, accept: str | None = None, *, timeout: float = 10.0) -> tuple[str, bytes]:
    """A GET (Accept `accept` if given); (Content-Type, body). Raises urllib.error.HTTPError for >= 400."""
    import urllib.request

    headers = {"Accept": accept} if accept else {}
    with urllib.request.urlopen(urllib.request.Request(url + path, headers=headers), timeout=timeout) as reply:
        return str(reply.headers["Content-Type"]), reply.read()


class WatchStream:
    """A watch request's open response: its status and headers, then its events as they arrive."""

    def __init__(self, url: str, path: str, *, token: str | None = None, timeout: float = 10.0) -> None:
        self.conn = connection(url, timeout)
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request("GET", path, headers=headers)
        self._sock = self.conn.sock
        self._closed = False
        self.response = self.conn.getresponse()
        self.status = self.response.status

    def read(self, until: Callable[[dict[str, Any]], bool] | None = None, *, count: int | None = None,
             timeout: float = 10.0) -> list[dict[str, Any]]:
        """Events until `until(event)` holds (inclusive), `count` events, or the stream ends.

        Raises TimeoutError when `timeout` seconds pass first (each read also times out).
        """
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        for event in self.events():
            events.append(event)
            if (until is not None and until(event)) or (count is not None and len(events) >= count):
                return events
            if time.monotonic() > deadline:
                raise TimeoutError(f"no end of the watch within {timeout} s; got {len(events)} events")
        return events

    def events(self) -> Iterator[dict[str, Any]]:
        """Each event (a decoded line) until the server ends the stream."""
        while True:
            try:
                line = self.response.readline(4 * 1024 * 1024)
            except (OSError, ValueError, AttributeError):
                if self._closed:  # close() from another thread: the end
                    return
                raise
            if not line:
                return
            if line.strip():
                yield json.loads(line)

    def close(self) -> None:
        """Close the connection; a thread blocked reading the stream sees its end."""
        self._closed = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.conn.close()

    def __enter__(self) -> WatchStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
