"""Watch requests: a chunked stream of `{"type","object"}` JSON lines read from the event log.

Follows kube-apiserver: the handler (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go)
writes one JSON watch event per line; the cacher (pkg/storage/cacher/cacher.go, cache_watcher.go,
watch_cache.go) starts from a resourceVersion (exclusive; "" or "0": the current state as
ADDED events first), answers a resourceVersion older than its window with an ERROR event
holding 410 Expired "too old resource version: X (Y)", applies label and field selectors
to the object before and after each change (stops matching: DELETED, starts matching:
ADDED), sends BOOKMARK events when asked, and with sendInitialEvents=true the current state
then a BOOKMARK annotated `k8s.io/initial-events-end: "true"` (client-go's WatchList).
A watcher that falls behind the ring, or a reset of the cluster, ends the watch with 410.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any

import attrs
import structlog
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from kubesim.api.scenario import API_VERSION as SCENARIO_API_VERSION, KIND as SCENARIO_KIND
from kubesim.cluster.events import ADDED, DELETED, MODIFIED
from kubesim.cluster.registry import ResourceType
from kubesim.errors import ApiError, BadRequest, Invalid
from kubesim.k8s.selectors import FieldSelector, LabelSelector
from kubesim.serve.errors import status_body
from kubesim.serve.eventlog import EventLog, LogEntry, encode
from kubesim.serve.field_labels import checked_field_selector
from kubesim.serve.negotiation import pick_as
from kubesim.serve.partial_metadata import METADATA_VERSIONS, partial_metadata_response
from kubesim.serve.state import ServerState
from kubesim.serve.tables import table_content_type, table_response, wants_table

__all__ = ["DEFAULT_MAX_WATCHES", "WatchOptions", "Watches", "is_watch", "parse_bool", "watch_options"]

log = structlog.get_logger(__name__)

DEFAULT_MAX_WATCHES = 1000
"""Open watches beyond this many get 429 (kube-apiserver limits in-flight requests too)."""
DEFAULT_TIMEOUT = 1800.0
"""A watch without timeoutSeconds ends after this long (kube-apiserver's --min-request-timeout)."""
BOOKMARK_INTERVAL = 60.0
"""Seconds between BOOKMARK events (cacher.go's bookmarkFrequency is one minute)."""
BOOKMARK_BEFORE_END = 2.0
"""A bookmark is due this long before a watch's timeout (cache_watcher.go nextBookmarkTime)."""
BATCH = 500
"""At most this many events go in one chunk of the stream."""
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def parse_bool(value: str | None) -> bool:
    """A query flag as Go's strconv.ParseBool reads it (1, t, true, ...); BadRequest otherwise."""
    if value is None or value == "":
        return False
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise BadRequest(f'strconv.ParseBool: parsing "{value}": invalid syntax')


def is_watch(query: Mapping[str, str], watch_prefix: bool) -> bool:
    """Whether a GET is a watch: the old /watch/ prefix, or watch=true."""
    return watch_prefix or parse_bool(query.get("watch"))


@attrs.frozen
class WatchOptions:
    """What a watch asks for (metav1.ListOptions' watch fields)."""

    resource_version: int | None
    """Start after this resourceVersion; None: the current state as ADDED events first."""
    initial_events: bool
    """Send the current state as ADDED events first."""
    initial_events_end: bool
    """sendInitialEvents=true: a BOOKMARK annotated k8s.io/initial-events-end ends the initial events."""
    bookmarks: bool
    timeout: float
    labels: LabelSelector | None
    fields: FieldSelector | None


def watch_options(query: Mapping[str, str], name: str | None, rt: ResourceType) -> WatchOptions:
    """Parse and validate a watch's query (pkg/apis/meta/internalversion/validation); field
    selectors as a list checks them (the kind's field labels)."""
    rv_text = query.get("resourceVersion", "")
    match = query.get("resourceVersionMatch", "")
    send_initial = query.get("sendInitialEvents")
    initial = parse_bool(send_initial)
    if send_initial not in (None, "") and match != "NotOlderThan":
        raise Invalid("resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
                      "resourceVersionMatch to NotOlderThan")
    if match and send_initial in (None, ""):
        raise Invalid("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch "
                      "unless sendInitialEvents is provided")
    if rv_text in ("", "0"):
        rv = None
    else:
        try:
            rv = int(rv_text)
        except ValueError:
            raise BadRequest(f'invalid resource version: strconv.ParseUint: parsing "{rv_text}": '
                             f"invalid syntax") from None
        if rv < 0:
            raise BadRequest(f'invalid resource version: "{rv_text}"')
    timeout_text = query.get("timeoutSeconds", "")
    timeout = DEFAULT_TIMEOUT
    if timeout_text:
        try:
            timeout = float(int(timeout_text))
        except ValueError:
            raise BadRequest(f'timeoutSeconds: invalid value "{timeout_text}"') from None
        if timeout <= 0:
            timeout = DEFAULT_TIMEOUT
    label_text = query.get("labelSelector") or ""
    field_text = query.get("fieldSelector") or ""
    if name is not None:  # a watch of one object: metadata.name=NAME (watch of a named resource)
        field_text = f"metadata.name={name}" + (f",{field_text}" if field_text else "")
    labels = LabelSelector.parse(label_text) if label_text else None
    fields = checked_field_selector(rt.group, rt.kind, field_text) if field_text else None
    # sendInitialEvents decides when given; otherwise "" and "0" start with the current state
    initial_events = initial if send_initial not in (None, "") else rv is None
    return WatchOptions(rv, initial_events, initial, parse_bool(query.get("allowWatchBookmarks")),
                        timeout, labels if labels is not None and not labels.empty else None,
                        fields if fields is not None and not fields.empty else None)


class _Filter:
    """Which events a watch wants: its kind, namespace and selectors (cache_watcher.go's filter)."""

    def __init__(self, rt: ResourceType, namespace: str | None, options: WatchOptions) -> None:
        self.group = rt.group
        self.kind = rt.kind
        self.namespace = namespace
        self.labels = options.labels
        self.fields = options.fields

    def passes(self, obj: Mapping[str, Any]) -> bool:
        if self.labels is not None and not self.labels.matches(obj["metadata"].get("labels")):
            return False
        return self.fields is None or self.fields.matches(obj)

    def line(self, entry: LogEntry) -> bytes | None:
        """The stream line for `entry`, None when this watch does not see it (convertToWatchEvent)."""
        if entry.kind != self.kind or entry.group != self.group:
            return None
        if self.namespace is not None and entry.namespace != self.namespace:
            return None
        if self.labels is None and self.fields is None:
            return _line(entry.type, entry.object_json())
        old = entry.old_object
        cur_passes = entry.type != DELETED and self.passes(entry.object)
        old_passes = old is not None and self.passes(old)
        if entry.type == ADDED:
            return _line(ADDED, entry.object_json()) if cur_passes else None
        if cur_passes and old_passes:
            return _line(MODIFIED, entry.object_json())
        if cur_passes:
            return _line(ADDED, entry.object_json())
        if old_passes:
            if entry.type == DELETED:
                return _line(DELETED, entry.object_json())
            assert old is not None  # the old object with the new resourceVersion, as the cacher sends
            gone = {**old, "metadata": {**old["metadata"], "resourceVersion": str(entry.rv)}}
            return _line(DELETED, encode(gone))
        return None


def _line(kind: str, object_json: bytes) -> bytes:
    return b'{"type":"' + kind.encode() + b'","object":' + object_json + b"}\n"


def _error_line(code: int, message: str) -> bytes:
    return _line("ERROR", encode(status_body(code, message)))


def _bookmark(rt: ResourceType, rv: int, end_of_initial: bool = False) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(rv)}
    if end_of_initial:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    return _line("BOOKMARK", encode({"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta}))


class TooManyWatches(ApiError):
    code = 429
    reason = "TooManyRequests"


async def _release_after(stream: AsyncIterator[bytes], release: Callable[[], Awaitable[None]]
                         ) -> AsyncIterator[bytes]:
    """`stream`, then `release()` however it ends (also when the client goes and it is cancelled)."""
    try:
        async for chunk in stream:
            yield chunk
    finally:
        await release()


def _transform(chunk: bytes, convert: Callable[[str, dict[str, Any]], dict[str, Any]]) -> bytes:
    """The stream lines of `chunk` with each event's object converted (ERROR Status objects stay)."""
    out = []
    for raw in chunk.splitlines():
        event = json.loads(raw)
        obj = event["object"] if event["type"] == "ERROR" else convert(event["type"], event["object"])
        out.append(_line(event["type"], encode(obj)))
    return b"".join(out)


class ServiceUnavailable(ApiError):
    code = 503
    reason = "ServiceUnavailable"


def _survives_reset(rt: ResourceType) -> bool:
    """Scenario watches go on across the reset at a scenario's start (the Scenarios are kept, the
    started one is written again), so that `kubectl get scenarios -w` follows a queue of
    scenarios; their resourceVersions start again lower. Every other watch ends with 410."""
    return rt.api_version == SCENARIO_API_VERSION and rt.kind == SCENARIO_KIND


class Watches:
    """The open watches of a server: the event log they read and the limit on how many."""

    def __init__(self, state: ServerState, event_log: EventLog, max_watches: int = DEFAULT_MAX_WATCHES,
                 bookmark_interval: float = BOOKMARK_INTERVAL) -> None:
        self.state = state
        self.log = event_log
        self.max_watches = max_watches
        self.bookmark_interval = bookmark_interval
        self.open = 0

    async def start(self, rt: ResourceType, namespace: str | None, options: WatchOptions,
                    accept: str | None = None, include_object: str | None = None) -> StreamingResponse:
        """The streaming response of a watch (429 past the limit); where it starts is taken under the lock."""
        if self.log.closed:
            raise ServiceUnavailable("the server is shutting down")
        if self.open >= self.max_watches:
            raise TooManyWatches(f"too many open watches (the limit is {self.max_watches}), please try "
                                 f"again later")
        self.open += 1  # on the event loop only, as the decrement
        try:
            start = await self.state.run(self._snapshot, rt, namespace, options)
        except BaseException:
            self.open -= 1
            raise
        initial, position, start_rv, generation, floor = start
        stream: AsyncIterator[bytes]
        if position is None:  # the cacher answers with an error watcher: one ERROR event
            stream = self._one(_error_line(410, f"too old resource version: {start_rv} ({floor})"))
        elif position < 0:  # storage.NewTooLargeResourceVersionError: client-go relists
            assert options.resource_version is not None
            stream = self._one(_line("ERROR", encode(status_body(
                504, f"Timeout: Too large resource version: {options.resource_version}, current: {start_rv}",
                "Timeout", {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                            "retryAfterSeconds": 1}))))
        else:
            stream = self._stream(rt, _Filter(rt, namespace, options), options, initial, position, start_rv,
                                  generation)
        released = False

        async def release() -> None:  # once: when the stream ends, or after the response if it never ran
            nonlocal released
            if not released:
                released = True
                self.open -= 1

        media = "application/json"
        if wants_table(accept) is not None:  # kubectl get -w: each event's object as a one-row Table
            stream = self._as_tables(stream, rt, accept, include_object)
            media = table_content_type(accept)
        else:
            partial = pick_as(accept, "meta.k8s.io", "PartialObjectMetadata", METADATA_VERSIONS)
            if partial is not None:
                stream = self._as_metadata(stream, accept)
                media = partial.header()
        return StreamingResponse(_release_after(stream, release), media_type=media,
                                 headers={"Cache-Control": "no-cache, private"}, background=BackgroundTask(release))

    def _snapshot(self, rt: ResourceType, namespace: str | None, options: WatchOptions
                  ) -> tuple[list[dict[str, Any]], int | None, int, int, int]:
        """(initial objects, log position, resourceVersion, generation, floor) at the watch's start.

        Position None: the resourceVersion is too old; -1: newer than the cluster's (then the
        resourceVersion returned is the cluster's)."""
        event_log = self.log
        with self.state.locked() as cluster:
            initial: list[dict[str, Any]] = []
            if options.initial_events:
                initial = list(cluster.list(rt.api_version, rt.kind, namespace, label_selector=options.labels,
                                            field_selector=options.fields))
            if options.resource_version is None or options.initial_events:
                return (initial, event_log.head, int(cluster.resource_version), event_log.generation,
                        event_log.floor)
            rv = options.resource_version
            current = int(cluster.resource_version)
            if rv > current:  # only after a reset (a scenario start): the client's state is gone
                return [], -1, current, event_log.generation, event_log.floor
            return [], event_log.position_after(rv), rv, event_log.generation, event_log.floor

    async def _one(self, line: bytes) -> AsyncIterator[bytes]:
        yield line

    async def _stream(self, rt: ResourceType, flt: _Filter, options: WatchOptions,
                      initial: Iterable[dict[str, Any]], position: int, last_rv: int,
                      generation: int) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        event_log = self.log
        now = loop.time()
        deadline = now + options.timeout
        next_bookmark = self._next_bookmark(now, deadline)
        try:
            batch: list[bytes] = []
            for obj in initial:
                batch.append(_line(ADDED, encode(obj)))
                if len(batch) >= BATCH:
                    yield b"".join(batch)
                    batch = []
                    await asyncio.sleep(0)
            if options.initial_events_end and options.bookmarks:
                batch.append(_bookmark(rt, last_rv, end_of_initial=True))
            if batch:
                yield b"".join(batch)
            while True:
                changed = event_log.changed()
                if event_log.closed:  # the server stops: the stream ends, clients re-watch elsewhere
                    return
                if event_log.generation != generation:
                    if not _survives_reset(rt):
                        yield _error_line(410, "the cluster was reset (a scenario started): the resource "
                                               "versions started again; relist")
                        return
                    generation, position, last_rv = event_log.generation, event_log.start, event_log.floor
                now = loop.time()
                if now >= deadline:  # also under a constant stream of events
                    return
                if position < event_log.head:
                    if position < event_log.oldest():
                        yield _error_line(410, f"too old resource version: {last_rv} ({event_log.floor}): "
                                               f"the watch fell too far behind")
                        return
                    lines, position, last_rv, behind = self._read(flt, position, last_rv)
                    if behind:
                        yield _error_line(410, f"too old resource version: {last_rv} ({event_log.floor}): "
                                               f"the watch fell too far behind")
                        return
                    if lines:
                        yield b"".join(lines)
                    await asyncio.sleep(0)  # let the other watches and requests run between batches
                    continue
                if options.bookmarks and now >= next_bookmark:
                    yield _bookmark(rt, last_rv)
                    next_bookmark = self._next_bookmark(now, deadline)
                    continue
                wake = min(deadline, next_bookmark) if options.bookmarks else deadline
                try:
                    await asyncio.wait_for(asyncio.shield(changed), max(0.0, wake - now))
                except TimeoutError:
                    pass
        except Exception:  # a bug: logged, the stream ends (the client re-watches)
            log.exception("a watch failed", kind=rt.kind)

    async def _as_tables(self, stream: AsyncIterator[bytes], rt: ResourceType, accept: str | None,
                         include_object: str | None) -> AsyncIterator[bytes]:
        """Each event's object as a meta.k8s.io Table (handlers/watch.go with response.go's transformObject):
        column definitions in the first event only, as the API server sends them to kubectl."""
        first = True

        def table(event_type: str, obj: dict[str, Any]) -> dict[str, Any]:
            nonlocal first
            if event_type == "BOOKMARK":
                return obj
            converted = table_response(self.state, rt, obj, accept, include_object, no_headers=not first)
            first = False
            return converted or obj

        async for chunk in stream:
            yield await run_in_threadpool(_transform, chunk, table)

    async def _as_metadata(self, stream: AsyncIterator[bytes], accept: str | None) -> AsyncIterator[bytes]:
        """Each event's object (bookmarks too) as PartialObjectMetadata (metadata informers)."""

        def partial(event_type: str, obj: dict[str, Any]) -> dict[str, Any]:
            converted = partial_metadata_response(obj, accept)
            return obj if converted is None else converted[0]

        async for chunk in stream:
            yield _transform(chunk, partial)

    def _next_bookmark(self, now: float, deadline: float) -> float:
        due = now + self.bookmark_interval
        before_end = deadline - BOOKMARK_BEFORE_END
        return before_end if now < before_end < due else due

    def _read(self, flt: _Filter, position: int, last_rv: int) -> tuple[list[bytes], int, int, bool]:
        """Up to BATCH visible events from `position`: (lines, new position, last rv, fell behind)."""
        event_log = self.log
        lines: list[bytes] = []
        end = min(event_log.head, position + 20 * BATCH)
        while position < end and len(lines) < BATCH:
            entry = event_log.entry(position)
            if entry is None:
                return lines, position, last_rv, True
            line = flt.line(entry)
            if line is not None:
                lines.append(line)
            position += 1
            last_rv = entry.rv
        return lines, position, last_rv, False
