"""A small real HTTP scheduler extender for the tests, served on 127.0.0.1 in a thread.

It filters out nodes labelled `reject=true` (Unschedulable) or `reject=forever`
(UnschedulableAndUnresolvable), scores nodes by their `score` label (0..10; the
`prioritize-inverse` verb by 10 minus it), records bindings, narrows preemption to nodes
not labelled reject=true, and keeps every request body. A node-cache-capable extender has no node objects in its requests, so it
reads labels from the nodes it was given at start (its "cache").
"""

from __future__ import annotations

import json
import socket
import socketserver
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LabelExtender", "RawReply", "closed_port_url", "hang", "ok_headers", "send", "serve", "serve_raw", "trickle"]


class LabelExtender:
    """The extender's logic and what it was asked."""

    def __init__(self, nodes: Sequence[Mapping[str, Any]] = (), *, delay: float = 0.0, status: int = 200) -> None:
        self.labels = {n["metadata"]["name"]: dict(n["metadata"].get("labels") or {}) for n in nodes}
        self.delay = delay
        self.status = status
        self.requests: list[tuple[str, Any]] = []
        self.content_types: list[str | None] = []
        self.bindings: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def _node_labels(self, args: Mapping[str, Any]) -> list[tuple[str, dict[str, str]]]:
        if args.get("NodeNames") is not None:
            return [(n, self.labels.get(n, {})) for n in args["NodeNames"]]
        return [(n["metadata"]["name"], n["metadata"].get("labels") or {}) for n in args["Nodes"]["items"]]

    def handle(self, path: str, args: Any, content_type: str | None = None) -> Any:
        with self.lock:
            self.requests.append((path, args))
            self.content_types.append(content_type)
        verb = path.rsplit("/", 1)[-1]
        if verb == "filter":
            nodes = self._node_labels(args)
            failed = {n: f"node {n} is labelled reject" for n, lab in nodes if lab.get("reject") == "true"}
            unresolvable = {n: f"node {n} is gone for good" for n, lab in nodes if lab.get("reject") == "forever"}
            kept = [n for n, _ in nodes if n not in failed and n not in unresolvable]
            out: dict[str, Any] = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unresolvable, "Error": ""}
            if args.get("NodeNames") is not None:
                out["NodeNames"] = kept
            else:
                out["Nodes"] = {"items": [n for n in args["Nodes"]["items"] if n["metadata"]["name"] in kept]}
            return out
        if verb == "prioritize":
            return [{"Host": n, "Score": int(lab.get("score", "0"))} for n, lab in self._node_labels(args)]
        if verb == "prioritize-inverse":
            return [{"Host": n, "Score": 10 - int(lab.get("score", "0"))} for n, lab in self._node_labels(args)]
        if verb == "bind":
            with self.lock:
                self.bindings.append(args)
            return {"Error": ""}
        if verb == "preempt":
            if args.get("NodeNameToMetaVictims") is not None:
                meta = args["NodeNameToMetaVictims"]
            else:
                meta = {
                    node: {"Pods": [{"UID": p["metadata"]["uid"]} for p in v["Pods"]], "NumPDBViolations": v["NumPDBViolations"]}
                    for node, v in args["NodeNameToVictims"].items()
                }
            # keep only nodes not labelled reject
            return {"NodeNameToMetaVictims": {n: v for n, v in meta.items() if self.labels.get(n, {}).get("reject") != "true"}}
        if verb == "garbage":
            return None
        return {"Error": f"unknown verb {verb}"}


def _handler(ext: LabelExtender) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            args = json.loads(body)
            if ext.delay:
                time.sleep(ext.delay)
            if self.path.endswith("/garbage"):
                payload = b"<html>not json</html>"
                code = 200
            else:
                result = ext.handle(self.path, args, self.headers.get("Content-Type"))
                payload = json.dumps(result).encode()
                code = ext.status
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def serve(ext: LabelExtender, *, tls: tuple[str, str] | None = None) -> Iterator[str]:
    """Serve `ext` on 127.0.0.1 (a free port) for the duration of the block; yields its URL.
    With `tls` (certificate and key files) it serves HTTPS."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(ext))
    server.daemon_threads = True
    scheme = "http"
    if tls is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(*tls)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}/scheduler"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port_url() -> str:
    """A loopback URL nothing listens on (a port just bound and released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/scheduler"


# ------------------------------------------------------------- raw replies

#: A raw reply: given the client's socket and an event set when the server stops, it writes
#: whatever bytes it likes (a well-formed response or not) and may wait on the event.
RawReply = Callable[[socket.socket, threading.Event], None]


@contextmanager
def serve_raw(reply: RawReply, seen: list[bytes] | None = None) -> Iterator[str]:
    """Serve `reply` on 127.0.0.1 (a free port): each connection's request is read (headers and
    Content-Length body; its head is appended to `seen`), then `reply` answers it. Yields the
    URL; on exit the event is set, so a reply that hangs ends."""
    stop = threading.Event()

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            sock: socket.socket = self.request
            sock.settimeout(5)
            try:
                head = _read_request(sock)
                if seen is not None:
                    seen.append(head)
                reply(sock, stop)
            except OSError:
                pass  # the client gave up

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/scheduler"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _read_request(sock: socket.socket) -> bytes:
    """Read one request; return its head (request line and headers)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head


def ok_headers(length: int | None) -> bytes:
    """A 200 response's status line and headers (Content-Length when given)."""
    extra = f"Content-Length: {length}\r\n" if length is not None else "Connection: close\r\n"
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}\r\n".encode()


def trickle(data: bytes, every: float) -> RawReply:
    """Send `data` one byte every `every` seconds (until the server stops)."""
    def reply(sock: socket.socket, stop: threading.Event) -> None:
        for i in range(len(data)):
            sock.sendall(data[i:i + 1])
            if stop.wait(every):
                return
    return reply


def send(data: bytes, *, then_close: bool = True) -> RawReply:
    """Send `data` at once, then close the connection (or wait until the server stops)."""
    def reply(sock: socket.socket, stop: threading.Event) -> None:
        sock.sendall(data)
        if not then_close:
            stop.wait()
    return reply


def hang(sock: socket.socket, stop: threading.Event) -> None:
    """Read the request and never answer."""
    stop.wait()
