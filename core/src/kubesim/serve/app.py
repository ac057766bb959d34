"""The ASGI application of `kubesim serve` (starlette): authentication, limits, dispatch.

Every response is JSON. Failures are metav1.Status objects with kube-apiserver's code and
reason; an unexpected exception is logged and answered as a 500 Status, never a traceback.
Cluster calls run under ServerState.lock through ServerState.run: on the event loop when the
lock is free, else in starlette's thread pool, so a long scenario step never blocks the event
loop (watches keep streaming).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request as HttpRequest
from starlette.responses import Response
from starlette.routing import Route

from kubesim.duplicate_keys import DuplicateKeys, load_json, load_yaml
from kubesim.errors import ApiError, BadRequest, MethodNotSupported, NotFound
from kubesim.input_limits import InputLimitError, SafeLoader
from kubesim.serve import discovery, rest, subresources
from kubesim.serve.catalog import catalog_of
from kubesim.serve.controllers import CHECKPOINT_PREFIX, retry_after_header
from kubesim.serve.errors import status_body, status_of
from kubesim.serve.negotiation import media_ranges, pick_as
from kubesim.serve.openapi import V2_PROTOBUF, V2_PROTOBUF_DOCUMENT, OpenAPIDocs, content_hash
from kubesim.serve.partial_metadata import partial_metadata_response
from kubesim.serve.resources import parse_path, resolve
from kubesim.serve.state import WRITER, Identity, ServerState
from kubesim.serve.tables import table_content_type, table_response
from kubesim.serve.watch import DEFAULT_MAX_WATCHES, Watches, is_watch, watch_options

__all__ = ["DEFAULT_MAX_BODY", "build_app", "health_check", "json_response"]

log = structlog.get_logger(__name__)

DEFAULT_MAX_BODY = 3 * 1024 * 1024
"""Request bodies above this many bytes get 413 (kube-apiserver's limit is 3 MiB too)."""

DRAIN_LIMIT = 64 * 1024 * 1024
"""How much of a too-large body is read (and dropped) before the 413 is sent."""

DRAIN_IDLE = 1.0
"""Seconds without a chunk of a too-large body after which the 413 is sent anyway."""

_JSON = "application/json"
_PROTOBUF = "application/vnd.kubernetes.protobuf"
_YAML = ("application/yaml", "application/x-yaml", "text/yaml")


class RequestTooLarge(ApiError):
    code = 413
    reason = "RequestEntityTooLarge"


class UnsupportedMediaType(ApiError):
    code = 415
    reason = "UnsupportedMediaType"


class Unauthorized(ApiError):
    code = 401
    reason = "Unauthorized"


def json_response(code: int, body: Any, content_type: str = _JSON, *, vary: bool = False) -> Response:
    """A JSON response (compact, as kube-apiserver writes it); `vary`: the body depends on Accept."""
    return Response(json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n", status_code=code,
                    media_type=content_type, headers={"Vary": "Accept"} if vary else None)


async def read_body(request: HttpRequest, limit: int) -> bytes:
    """The request body, refused with 413 past `limit` bytes. What is sent beyond the limit is
    read and dropped while it keeps arriving (up to DRAIN_LIMIT bytes, each chunk within
    DRAIN_IDLE seconds), so that a client still sending its body reads the 413 instead of a
    broken pipe, and one that declared a large body and waits for the answer gets it at once
    after the idle time; nothing past `limit` is kept."""
    declared = request.headers.get("content-length")
    too_large = declared is not None and declared.isdigit() and int(declared) > limit
    chunks, size = [], 0
    stream = request.stream().__aiter__()
    while True:
        try:
            chunk = await (asyncio.wait_for(stream.__anext__(), DRAIN_IDLE) if too_large else stream.__anext__())
        except ClientDisconnect:
            if too_large:
                break
            raise BadRequest("the client closed the connection before the request body was complete") from None
        except (StopAsyncIteration, asyncio.TimeoutError):
            break
        size += len(chunk)
        if size > limit:
            too_large = True
        if too_large:
            if size > DRAIN_LIMIT:
                break
            continue
        chunks.append(chunk)
    if too_large:
        shown = f" of {declared} bytes" if declared is not None and declared.isdigit() else ""
        raise RequestTooLarge(f"the request body{shown} is larger than the limit of {limit} bytes")
    return b"".join(chunks)


def media_type(request: HttpRequest) -> str:
    """The request's Content-Type without parameters, lower case."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def decode_object(body: bytes, content_type: str, kind: str = "") -> Any:
    """A JSON (or YAML) request body as data; 400 for malformed bodies, 415 for other media types.

    With the `kind` the URL expects, a malformed body gets create.go's transformDecodeError wording.
    """
    if content_type == _PROTOBUF:
        raise UnsupportedMediaType(f'the body of the request was in an unknown format - accepted media types '
                                   f'include: {_JSON}, application/yaml (kubesim serve does not decode '
                                   f'protobuf: send the request body as JSON; with kubectl, create the '
                                   f'object from a manifest: kubectl create -f FILE)')
    if content_type not in (_JSON, "", *_YAML):
        raise UnsupportedMediaType(f'the body of the request was in an unknown format - accepted media types '
                                   f'include: {_JSON}, application/yaml (got "{content_type}")')
    try:
        if content_type in _YAML:
            return load_yaml(body.decode("utf-8"), SafeLoader)
        return load_json(body)
    except (ValueError, DuplicateKeys, InputLimitError, yaml.YAMLError, UnicodeDecodeError) as exc:
        if kind:
            text = body[:30].decode("utf-8", "replace") + ("..." if len(body) > 30 else "")
            raise BadRequest(f"the object provided is unrecognized (must be of type {kind}): couldn't get "
                             f"version/kind; json parse error: {exc} ({text})") from None
        raise BadRequest(f"the body of the request could not be decoded: {exc}") from None


class Server:
    """Dispatches one HTTP request to discovery or a resource verb."""

    def __init__(self, state: ServerState, max_body: int, max_watches: int = DEFAULT_MAX_WATCHES) -> None:
        self.state = state
        self.max_body = max_body
        self.watches = Watches(state, state.event_log, max_watches)
        self.openapi = OpenAPIDocs()

    async def handle(self, request: HttpRequest) -> Response:
        try:
            who = self._identify(request)
            return await self._dispatch(request, who)
        except ApiError as exc:
            response = json_response(exc.code, status_of(exc))
            response.headers.update(retry_after_header(exc))
            return response
        except Exception:  # a bug: logged here, a Status for the client
            log.exception("request failed", method=request.method, path=request.url.path)
            return json_response(500, status_body(500, "an internal error occurred in kubesim serve; "
                                                       "see the server's log"))

    def _identify(self, request: HttpRequest) -> Identity:
        header = request.headers.get("authorization")
        token = None
        if header is not None:
            scheme, _, value = header.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                raise Unauthorized("Unauthorized")
            token = value.strip()
        who = self.state.identify(token)
        if who is None:
            raise Unauthorized("Unauthorized")
        return who

    async def _dispatch(self, request: HttpRequest, who: Identity) -> Response:
        path = request.url.path.rstrip("/") or "/"
        method = request.method
        if method == "GET":
            health = health_check(path, "verbose" in request.query_params)
            if health is not None:  # answered without the cluster lock: a long step does not fail probes
                return Response(health, media_type="text/plain; charset=utf-8")
            page = await self.state.run(self._non_resource, path, request)
            if page is not None:
                return page
        if method == "POST" and path.startswith(CHECKPOINT_PREFIX) and path.endswith("/checkpoint"):
            return await self._checkpoint(path[len(CHECKPOINT_PREFIX):-len("/checkpoint")], request, who)
        info = parse_path(path)
        if info is None:
            raise NotFound("the server could not find the requested resource")
        rt = await self.state.run(lambda: resolve(self.state.cluster.registry, info))
        rest.check_scope(rt, info, method)
        req = rest.Request(self.state, rt, info, dict(request.query_params), who)
        if method != "GET":
            WRITER.set(who)  # an outside controller's write waits for its turn (ServerState.locked)
        if method == "GET" and info.subresource is None and is_watch(req.query, info.watch_prefix):
            return await self._watch(request, req)
        if info.subresource is not None:
            return await self._subresource(request, req)
        handler = _VERBS.get((method, info.name is not None))
        if handler is None:
            raise MethodNotSupported(rest.NOT_ALLOWED)
        return await handler(self, request, req)

    def _non_resource(self, path: str, request: HttpRequest) -> Response | None:
        """Discovery, OpenAPI and /version (k8s.io/apiserver pkg/server/routes)."""
        accept = request.headers.get("accept")
        if path == "/version":
            return json_response(200, discovery.version_info())
        if path.startswith("/openapi/"):
            return self._openapi(path, request)
        parts = path.strip("/").split("/")
        if parts[0] not in ("api", "apis") or len(parts) > 3 or (parts[0] == "api" and len(parts) > 2):
            return None
        catalog = catalog_of(self.state)
        if len(parts) == 1:
            wanted = pick_as(accept, "apidiscovery.k8s.io", "APIGroupDiscoveryList", discovery.AGGREGATED_VERSIONS)
            if wanted is not None:
                # with an ETag and 304s, as pkg/endpoints/discovery/aggregated/handler.go serves it
                body = discovery.aggregated(catalog, parts[0] == "api", wanted.params["v"])
                raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                headers = {"ETag": f'"{content_hash(raw)}"', "Vary": "Accept"}
                if request.headers.get("if-none-match") == headers["ETag"]:
                    return Response(status_code=304, headers=headers)
                return Response(raw, media_type=wanted.header(), headers=headers)
            doc = discovery.api_versions() if parts[0] == "api" else discovery.api_group_list(catalog)
            return json_response(200, doc, vary=True)
        if parts[0] == "apis" and len(parts) == 2:
            page = discovery.api_group(catalog, parts[1])
        else:
            group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
            page = discovery.api_resource_list(catalog, group, version)
        if page is None:
            raise NotFound("the server could not find the requested resource")
        return json_response(200, page)

    def _openapi(self, path: str, request: HttpRequest) -> Response | None:
        """/openapi/v2, /openapi/v3 and /openapi/v3/<group version> as JSON, with ETags (304 for a
        matching If-None-Match) and, for v3 documents, k8s.io/kube-openapi pkg/handler3's ?hash=
        handling: the current hash is immutable, a stale one is redirected to the current URL.
        /openapi/v2 asked for in protobuf only: see openapi.V2_PROTOBUF_DOCUMENT."""
        catalog = catalog_of(self.state)
        ranges = media_ranges(request.headers.get("accept"))
        if path == "/openapi/v2" and ranges and ranges[0].media_type == V2_PROTOBUF:
            # kube-openapi pkg/handler answers protobuf as application/octet-stream
            return Response(V2_PROTOBUF_DOCUMENT, media_type="application/octet-stream")
        gv = path.removeprefix("/openapi/v3/") if path.startswith("/openapi/v3/") else None
        if path == "/openapi/v2":
            doc: bytes | None = self.openapi.v2(catalog)
        elif path == "/openapi/v3":
            doc = self.openapi.v3_index(catalog)
        elif gv is not None:
            doc = self.openapi.v3(catalog, gv)
        else:
            doc = None
        if doc is None:
            raise NotFound("the server could not find the requested resource")
        digest = content_hash(doc)
        headers = {"ETag": f'"{digest}"', "Cache-Control": "no-cache, private"}
        asked = request.query_params.get("hash")
        if gv is not None and asked is not None:
            if asked != digest:
                return Response(status_code=301, headers={"Location": f"/openapi/v3/{gv}?hash={digest}"})
            headers["Cache-Control"] = "public, immutable"
        if request.headers.get("if-none-match") == headers["ETag"]:
            return Response(status_code=304, headers=headers)
        return Response(doc, media_type=_JSON, headers=headers)

    async def _checkpoint(self, name: str, request: HttpRequest, who: Identity) -> Response:
        """An outside controller's end of loop (serve/controllers.py); blocks while it is paused."""
        outside = self.state.outside
        if outside is None or "/" in name:
            raise NotFound("the server could not find the requested resource")
        query = dict(request.query_params)
        return json_response(200, await run_in_threadpool(outside.checkpoint, who, name, query))

    # --- verbs ----------------------------------------------------------------------

    async def _get(self, request: HttpRequest, req: rest.Request) -> Response:
        return await self._read(request, req, rest.get)

    async def _list(self, request: HttpRequest, req: rest.Request) -> Response:
        return await self._read(request, req, rest.list_objects)

    async def _read(self, request: HttpRequest, req: rest.Request,
                    verb: Callable[[rest.Request], tuple[int, dict[str, Any]]]) -> Response:
        """GET one or a list, in the representation the Accept header asks for."""
        accept = request.headers.get("accept")
        return json_response(*await self.state.run(lambda: self._represent(req, accept, *verb(req))))

    def _represent(self, req: rest.Request, accept: str | None, code: int,
                   body: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
        """A GET's answer as a meta.k8s.io Table or PartialObjectMetadata(List) when the Accept header asks
        for one, else itself (k8s.io/apiserver pkg/endpoints/handlers/response.go transformObject)."""
        if code != 200:
            return code, body, _JSON
        table = table_response(self.state, req.rt, body, accept, req.query.get("includeObject"))
        if table is not None:
            return code, table, table_content_type(accept)
        partial = partial_metadata_response(body, accept)
        if partial is not None:
            return code, *partial
        return code, body, _JSON

    async def _create(self, request: HttpRequest, req: rest.Request) -> Response:
        body = decode_object(await read_body(request, self.max_body), media_type(request), req.rt.kind)
        return json_response(*await self.state.run(rest.create, req, body))

    async def _update(self, request: HttpRequest, req: rest.Request) -> Response:
        body = decode_object(await read_body(request, self.max_body), media_type(request), req.rt.kind)
        return json_response(*await self.state.run(rest.update, req, body))

    async def _patch(self, request: HttpRequest, req: rest.Request) -> Response:
        body = await read_body(request, self.max_body)
        return json_response(*await self.state.run(rest.patch, req, body, media_type(request)))

    async def _delete_options(self, request: HttpRequest) -> dict[str, Any]:
        raw = await read_body(request, self.max_body)
        options = decode_object(raw, media_type(request)) if raw.strip() else {}
        if type(options) is not dict:
            raise BadRequest("DeleteOptions must be a JSON object")
        return options

    async def _delete(self, request: HttpRequest, req: rest.Request) -> Response:
        options = await self._delete_options(request)
        return json_response(*await self.state.run(rest.delete, req, options))

    async def _delete_collection(self, request: HttpRequest, req: rest.Request) -> Response:
        options = await self._delete_options(request)
        return json_response(*await self.state.run(rest.delete_collection, req, options))

    async def _subresource(self, request: HttpRequest, req: rest.Request) -> Response:
        """NAME/SUBRESOURCE (status, scale, binding, eviction; others 404): serve/subresources.py."""
        method, body, raw = request.method, None, b""
        if method in ("POST", "PUT", "PATCH"):
            raw = await read_body(request, self.max_body)
            if method != "PATCH":
                body = decode_object(raw, media_type(request))
        accept = request.headers.get("accept")

        def run() -> tuple[int, dict[str, Any], str]:
            code, answer = subresources.serve(req, method, body, raw, media_type(request))
            return self._represent(req, accept, code, answer) if method == "GET" else (code, answer, _JSON)
        return json_response(*await self.state.run(run))

    async def _watch(self, request: HttpRequest, req: rest.Request) -> Response:
        """GET with watch=1/true or under /watch/: a stream of watch events (serve/watch.py)."""
        return await self.watches.start(req.rt, req.namespace, watch_options(req.query, req.info.name, req.rt),
                                        request.headers.get("accept"), req.query.get("includeObject"))


_HEALTH_CHECKS = ("/healthz", "/livez", "/readyz")


def health_check(path: str, verbose: bool) -> str | None:
    """/healthz, /livez, /readyz and their /ping check, as k8s.io/apiserver pkg/server/healthz answers
    them ("ok"; with ?verbose each check and "<name> check passed"); None for other paths."""
    for root in _HEALTH_CHECKS:
        if path == f"{root}/ping":
            return "ok"
        if path == root:
            return f"[+]ping ok\n{root[1:]} check passed\n" if verbose else "ok"
    return None


_Handler = Callable[[Server, HttpRequest, rest.Request], Awaitable[Response]]
# (method, names an object) -> handler
_VERBS: dict[tuple[str, bool], _Handler] = {
    ("GET", True): Server._get,
    ("GET", False): Server._list,
    ("POST", False): Server._create,
    ("PUT", True): Server._update,
    ("PATCH", True): Server._patch,
    ("DELETE", True): Server._delete,
    ("DELETE", False): Server._delete_collection,
}


def build_app(state: ServerState, *, max_body: int = DEFAULT_MAX_BODY,
              max_watches: int = DEFAULT_MAX_WATCHES) -> Starlette:
    """The ASGI app serving `state`'s cluster (at most `max_watches` open watches, 429 beyond)."""
    server = Server(state, max_body, max_watches)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", server.handle, methods=methods)])
