"""The ASGI application of `kubesim serve` (starlette): authentication, limits, dispatch.

Every response is JSON. Failures are metav1.Status objects with kube-apiserver's code and
reason; an unexpected exception is logged and answered as a 500 Status, never a traceback.
Cluster calls run in starlette's thread pool under ServerState.lock, so a long scenario
step never blocks the event loop (watches keep streaming).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
import yaml
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request as HttpRequest
from starlette.responses import Response
from starlette.routing import Route

from kubesim.duplicate_keys import DuplicateKeys, load_json, load_yaml
from kubesim.errors import ApiError, BadRequest, MethodNotSupported, NotFound
from kubesim.input_limits import InputLimitError, SafeLoader
from kubesim.serve import discovery, rest
from kubesim.serve.errors import status_body, status_of
from kubesim.serve.resources import parse_path, resolve
from kubesim.serve.state import Identity, ServerState
from kubesim.serve.watch import DEFAULT_MAX_WATCHES, Watches, is_watch, watch_options

__all__ = ["DEFAULT_MAX_BODY", "build_app", "json_response"]

log = structlog.get_logger(__name__)

DEFAULT_MAX_BODY = 3 * 1024 * 1024
"""Request bodies above this many bytes get 413 (kube-apiserver's limit is 3 MiB too)."""

_JSON = "application/json"
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


def json_response(code: int, body: Any) -> Response:
    """A JSON response (compact, as kube-apiserver writes it)."""
    return Response(json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n", status_code=code,
                    media_type=_JSON)


async def read_body(request: HttpRequest, limit: int) -> bytes:
    """The request body, refused with 413 past `limit` bytes (before reading it all)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RequestTooLarge(f"the request body of {declared} bytes is larger than the limit of {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestTooLarge(f"the request body is larger than the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def media_type(request: HttpRequest) -> str:
    """The request's Content-Type without parameters, lower case."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def decode_object(body: bytes, content_type: str) -> Any:
    """A JSON (or YAML) request body as data; 400 for malformed bodies, 415 for other media types."""
    if content_type not in (_JSON, "", *_YAML):
        raise UnsupportedMediaType(f'the body of the request was in an unknown format - accepted media types '
                                   f'include: {_JSON}, application/yaml (got "{content_type}")')
    try:
        if content_type in _YAML:
            return load_yaml(body.decode("utf-8"), SafeLoader)
        return load_json(body)
    except (ValueError, DuplicateKeys, InputLimitError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the body of the request could not be decoded: {exc}") from None


class Server:
    """Dispatches one HTTP request to discovery or a resource verb."""

    def __init__(self, state: ServerState, max_body: int, max_watches: int = DEFAULT_MAX_WATCHES) -> None:
        self.state = state
        self.max_body = max_body
        self.watches = Watches(state, state.event_log, max_watches)

    async def handle(self, request: HttpRequest) -> Response:
        try:
            who = self._identify(request)
            return await self._dispatch(request, who)
        except ApiError as exc:
            return json_response(exc.code, status_of(exc))
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
            page = self._non_resource(path)
            if page is not None:
                return json_response(200, page)
        info = parse_path(path)
        if info is None:
            raise NotFound("the server could not find the requested resource")
        rt = await run_in_threadpool(self.state.call, lambda c: resolve(c.registry, info))
        req = rest.Request(self.state, rt, info, dict(request.query_params), who)
        if method == "GET" and info.subresource is None and is_watch(req.query, info.watch_prefix):
            return await self.watches.start(rt, req.namespace, watch_options(req.query, info.name))
        handler = _VERBS.get((method, info.name is not None))
        if handler is None:
            raise MethodNotSupported(f"the server does not allow this method on the requested resource "
                                     f"({method})")
        return await handler(self, request, req)

    def _non_resource(self, path: str) -> dict[str, Any] | None:
        if path == "/version":
            return discovery.version_info()
        if path == "/api":
            return discovery.api_versions()
        if path == "/apis":
            return self.state.call(lambda c: discovery.api_group_list(c.registry))
        parts = path.strip("/").split("/")
        if parts[0] == "api" and len(parts) == 2:
            return self.state.call(lambda c: discovery.api_resource_list(c.registry, "", parts[1]))
        if parts[0] == "apis" and len(parts) == 3:
            return self.state.call(lambda c: discovery.api_resource_list(c.registry, parts[1], parts[2]))
        if path in ("/healthz", "/livez", "/readyz"):
            return {}
        return None

    # --- verbs ----------------------------------------------------------------------

    async def _get(self, request: HttpRequest, req: rest.Request) -> Response:
        return json_response(*await run_in_threadpool(rest.get, req))

    async def _list(self, request: HttpRequest, req: rest.Request) -> Response:
        return json_response(*await run_in_threadpool(rest.list_objects, req))

    async def _create(self, request: HttpRequest, req: rest.Request) -> Response:
        body = decode_object(await read_body(request, self.max_body), media_type(request))
        return json_response(*await run_in_threadpool(rest.create, req, body))

    async def _update(self, request: HttpRequest, req: rest.Request) -> Response:
        body = decode_object(await read_body(request, self.max_body), media_type(request))
        return json_response(*await run_in_threadpool(rest.update, req, body))

    async def _patch(self, request: HttpRequest, req: rest.Request) -> Response:
        body = await read_body(request, self.max_body)
        return json_response(*await run_in_threadpool(rest.patch, req, body, media_type(request)))

    async def _delete(self, request: HttpRequest, req: rest.Request) -> Response:
        raw = await read_body(request, self.max_body)
        options = decode_object(raw, media_type(request)) if raw.strip() else {}
        if type(options) is not dict:
            raise BadRequest("DeleteOptions must be a JSON object")
        return json_response(*await run_in_threadpool(rest.delete, req, options))


_Handler = Callable[[Server, HttpRequest, rest.Request], Awaitable[Response]]
# (method, names an object) -> handler
_VERBS: dict[tuple[str, bool], _Handler] = {
    ("GET", True): Server._get,
    ("GET", False): Server._list,
    ("POST", False): Server._create,
    ("PUT", True): Server._update,
    ("PATCH", True): Server._patch,
    ("DELETE", True): Server._delete,
}


def build_app(state: ServerState, *, max_body: int = DEFAULT_MAX_BODY,
              max_watches: int = DEFAULT_MAX_WATCHES) -> Starlette:
    """The ASGI app serving `state`'s cluster (at most `max_watches` open watches, 429 beyond)."""
    server = Server(state, max_body, max_watches)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", server.handle, methods=methods)])
