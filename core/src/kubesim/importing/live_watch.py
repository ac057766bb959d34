"""Watching a live cluster for `kubesim record`: list every imported kind, then watch it
from the list's resourceVersion until the recording ends.

One thread per kind (and namespace) reads its watch with the official client; events reach
the recording through one queue, in arrival order. A watch that ends is started again from
the last resourceVersion seen (bookmarks included); one that expired (410 Gone) lists the kind
again and the differences become changes (k8s.io/client-go tools/cache/reflector.go).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from .kinds import IMPORTED_KINDS, KindSpec
from .live import (REQUEST_TIMEOUT, LiveImportError, _api_message, _connect, _pages, _served_versions, _skip_not_found,
                   list_function)
from .record import Change, Recording

__all__ = ["MAX_CHANGES", "RecordingStopped", "record_cluster"]

MAX_CHANGES = 1_000_000
"""At most this many watch events are recorded (a bound on memory)."""
WATCH_SECONDS = 300
"""The longest one watch request lasts before it is started again (timeoutSeconds)."""
_MAX_RESTARTS = 10_000
_JOIN_SECONDS = 3.0

Clock = Callable[[], float]


class RecordingStopped(Exception):
    """The recording ended early (a limit, a watch that failed); what was recorded is kept."""

    def __init__(self, message: str, recording: Recording) -> None:
        super().__init__(message)
        self.recording = recording


class _KindWatch(threading.Thread):
    """Watches one kind (in one namespace, or all) and puts ("change", Change) or
    ("relist", items) or ("error", message) on the queue until `stop` is set."""

    def __init__(self, client: Any, spec: KindSpec, version: str, namespace: str | None, selector: str | None,
                  rv: str, out: queue.Queue[tuple[Any, ...]], stop: threading.Event, start: float,
                 deadline: float, clock: Clock) -> None:
        super().__init__(daemon=True, name=f"record-{spec.plural}")
        self.client, self.spec, self.version, self.namespace = client, spec, version, namespace
        self.selector, self.rv, self.out, self.stop, self.start_time, self.deadline, self.clock = (
            selector, rv, out, stop, start, deadline, clock)
        self.api_version = f"{spec.group}/{version}" if spec.group else version

    def _typed(self, obj: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": self.api_version, "kind": self.spec.kind, **obj}

    def run(self) -> None:
        try:
            for _ in range(_MAX_RESTARTS):
                if self.stop.is_set() or self.clock() >= self.deadline:
                    return
                if not self._watch_once():
                    items, self.rv = _list(self.client, self.spec, self.version, self.namespace, self.selector)
                    self.out.put(("relist", self.api_version, self.spec.kind, self.namespace,
                                  [self._typed(o) for o in items], self.clock() - self.start_time))
            self.out.put(("error", f"the watch of {self.spec.plural} was restarted {_MAX_RESTARTS} times"))
        except LiveImportError as exc:
            self.out.put(("error", str(exc)))
        except Exception as exc:  # noqa: BLE001 - reported, the recording keeps what it has
            self.out.put(("error", f"watching {self.spec.plural}: {type(exc).__name__}: {exc}"))

    def _watch_once(self) -> bool:
        """One watch request; False when it expired (410) and the kind must be listed again."""
        # the server ends the watch at the recording's end (timeoutSeconds), so no thread lingers
        timeout = max(1, min(WATCH_SECONDS, int(self.deadline - self.clock()) + 1))
        options: dict[str, Any] = {"watch": True, "resource_version": self.rv, "allow_watch_bookmarks": True,
                                   "timeout_seconds": timeout, "_preload_content": False,
                                   "_request_timeout": (REQUEST_TIMEOUT, timeout + REQUEST_TIMEOUT)}
        if self.selector and self.spec.namespaced:
            options["label_selector"] = self.selector
        response = list_function(self.client, self.spec, self.version, self.namespace)(**options)
        try:
            for line in _lines(response):
                if self.stop.is_set():
                    return True
                event = json.loads(line)
                kind, obj = event.get("type"), event.get("object") or {}
                if kind == "ERROR":
                    if obj.get("code") == 410:
                        return False
                    raise LiveImportError(f"watching {self.spec.plural}: {obj.get('message')}")
                self.rv = str((obj.get("metadata") or {}).get("resourceVersion") or self.rv)
                if kind != "BOOKMARK":
                    self.out.put(("change", Change(kind, self._typed(obj), self.clock() - self.start_time)))
        finally:
            response.release_conn()
        return True


def _lines(response: Any) -> Any:
    """The newline-separated JSON events of a watch response."""
    buffer = b""
    for chunk in response.stream(64 * 1024):
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line.strip():
                yield line


def _collect(recording: Recording, events: queue.Queue[tuple[Any, ...]], stop: threading.Event,
             deadline: float, max_changes: int, clock: Clock) -> None:
    """Feed the watches' messages to the recording until the deadline (or a limit, an error)."""
    changes = 0
    while not stop.is_set() and clock() < deadline:
        try:
            message = events.get(timeout=min(0.2, max(deadline - clock(), 0.001)))
        except queue.Empty:
            continue
        if message[0] == "error":
            raise RecordingStopped(f"the recording stopped early: {message[1]}", recording)
        if message[0] == "relist":
            recording.relist(message[4], message[1], message[2], message[3], message[5])
            continue
        recording.add(message[1])
        changes += 1
        if changes >= max_changes:
            raise RecordingStopped(f"the recording stopped early: it holds {max_changes} changes "
                                   f"(the limit, --max-changes)", recording)


def _list(client: Any, spec: KindSpec, version: str, namespace: str | None,
          selector: str | None) -> tuple[list[dict[str, Any]], str]:
    """A kind's objects and the list's resourceVersion (the first page's: the snapshot's)."""
    items: list[dict[str, Any]] = []
    rv = ""
    for page in _skip_not_found(_pages(client, spec, version, namespace, selector)):
        rv = rv or str((page.get("metadata") or {}).get("resourceVersion") or "")
        items.extend(page.get("items") or [])
    return items, rv


def record_cluster(kubeconfig: str | None, context: str | None, namespaces: Sequence[str], selector: str | None,
                   seconds: float, step_seconds: float, max_changes: int = MAX_CHANGES,
                   clock: Clock = time.monotonic, stop: threading.Event | None = None,
                   keep: Callable[[dict[str, Any]], bool] = lambda _obj: True,
                   started: Callable[[int], None] = lambda _objects: None) -> Recording:
    """Record the cluster for `seconds` (or until `stop` is set); `started(n)` is called once
    the n initial objects are read and the watches run. RecordingStopped (with the recording
    in `.recording`) when a limit or a failed watch ends it early."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    client = _connect(kubeconfig, context)
    stop = stop or threading.Event()
    events: queue.Queue[tuple[Any, ...]] = queue.Queue()
    watches: list[_KindWatch] = []
    try:
        initial: list[dict[str, Any]] = []
        served = _served_versions(client)
        start = clock()
        for spec in IMPORTED_KINDS:
            version = next((v for v in served.get(spec.group, []) if v in spec.versions), None)
            if version is None:
                continue
            api_version = f"{spec.group}/{version}" if spec.group else version
            scopes: Sequence[str | None] = sorted(set(namespaces)) if namespaces and spec.namespaced else [None]
            for namespace in scopes:
                items, rv = _list(client, spec, version, namespace, selector)
                if spec.kind == "Namespace" and namespaces:
                    items = [o for o in items if (o.get("metadata") or {}).get("name") in namespaces]
                initial.extend({"apiVersion": api_version, "kind": spec.kind, **o} for o in items)
                watches.append(_KindWatch(client, spec, version, namespace, selector, rv, events, stop, start,
                                          start + seconds, clock))
        recording = Recording(initial, step_seconds, keep)
        for watch in watches:
            watch.start()
        started(len(recording.initial))
        deadline = start + seconds
        try:
            _collect(recording, events, stop, deadline, max_changes, clock)
        except KeyboardInterrupt:  # Ctrl-C ends the recording early; what it holds is kept
            raise RecordingStopped("the recording was interrupted", recording) from None
        finally:
            recording.seconds = min(clock(), deadline) - start
        return recording
    except ApiException as exc:
        raise LiveImportError(f"the API server refused a request: {_api_message(exc)}") from None
    except (HTTPError, OSError) as exc:
        raise LiveImportError(f"cannot reach the API server: {exc}") from None
    finally:
        stop.set()
        ends = clock() + _JOIN_SECONDS  # the watches end with their timeoutSeconds; daemons otherwise
        for watch in watches:
            watch.join(timeout=max(ends - clock(), 0.0))
        client.close()
