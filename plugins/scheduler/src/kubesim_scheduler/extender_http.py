"""The HTTP client of scheduler extenders: one POST per call, bounded as a whole.

Like Go's http.Client with Timeout (what HTTPExtender.send uses), httpTimeout covers the
whole exchange: connecting, the TLS handshake, sending, and reading the headers and the
whole body, including redirects. Every socket operation waits at most until one deadline,
so a server that trickles a byte a second fails at the deadline. The body is read up to
MAX_RESPONSE_BYTES, and all calls of a run share a WaitBudget (extender_limits).
Errors are ExtenderError with Go's net/http text.
"""

# upstream: pkg/scheduler/extender.go (NewHTTPExtender, makeTransport, send); Go's net/http
# Client.Do (redirects, "Client.Timeout exceeded while awaiting headers") and
# ProxyFromEnvironment

from __future__ import annotations

import base64
import http.client
import io
import ipaddress
import json
import os
import socket
import ssl
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING, Any, cast

from .config.durations import format_duration
from .extender_limits import DEFAULT_EXTENDER_TIMEOUT, MAX_RESPONSE_BYTES, WaitBudget
from .extender_types import ExtenderDecodeError, decode_body

if TYPE_CHECKING:
    from .config import ExtenderTLSConfig

__all__ = ["ExtenderError", "HTTPTransport", "go_quote"]

#: Go's http.Client gives up after this many redirects.
MAX_REDIRECTS = 10
_AWAITING_HEADERS = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
_READING_BODY = "context deadline exceeded (Client.Timeout or context cancellation while reading body)"


class ExtenderError(Exception):
    """A failed extender call; str() is upstream's error text."""


def go_quote(s: str) -> str:
    """%q of a plain string."""
    return json.dumps(s, ensure_ascii=False)


class _BodyError(Exception):
    """The response body could not be read whole; str() is the error text."""


class HTTPTransport:
    """POSTs JSON to `<urlPrefix>/<verb>` within the configured timeout (HTTPExtender.send)."""

    def __init__(
        self, url_prefix: str, timeout: float = 0.0, *, enable_https: bool = False,
        tls: ExtenderTLSConfig | None = None, budget: WaitBudget | None = None,
    ) -> None:
        self.url_prefix = url_prefix
        self.timeout = timeout if timeout > 0 else DEFAULT_EXTENDER_TIMEOUT
        self.budget = budget if budget is not None else WaitBudget()
        self._ssl = _ssl_context(tls, enable_https)
        self._server_name = tls.server_name if tls is not None else ""

    def send(self, verb: str, args: Any) -> Any:
        url = self.url_prefix.rstrip("/") + "/" + verb
        body = json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        left = self.budget.left()
        if left <= 0:
            raise ExtenderError(
                f"Post {go_quote(url)}: kubesim: this run has spent its {format_duration(self.budget.total)} "
                "of waiting on extenders")
        started = self.budget.start()
        try:
            raw = self._post(url, verb, body, time.monotonic() + min(self.timeout, left))
        finally:
            self.budget.charge(started)
        try:
            return decode_body(raw.decode("utf-8", errors="replace"))
        except ExtenderDecodeError as e:
            raise ExtenderError(str(e)) from None

    def _post(self, url: str, verb: str, body: bytes, deadline: float) -> bytes:
        """Client.Do and the body read: follow redirects as Go does, then read the 200 body."""
        method, target = "POST", url
        payload: bytes | None = body
        for _ in range(MAX_REDIRECTS + 1):
            parts = _split(target)
            conn = self._connection(target, parts, deadline)
            resp: http.client.HTTPResponse | None = None
            try:
                try:
                    conn.request(method, _request_target(parts, conn), body=payload,
                                 headers={"Content-Type": "application/json"} if payload is not None else {})
                    resp = conn.getresponse()
                except TimeoutError:
                    raise ExtenderError(f"Post {go_quote(url)}: {_AWAITING_HEADERS}") from None
                except (OSError, http.client.HTTPException) as e:
                    raise ExtenderError(f"Post {go_quote(url)}: {_transport_reason(e, parts)}") from None
                location = resp.getheader("Location")
                if resp.status in (301, 302, 303, 307, 308) and location:
                    if resp.status in (301, 302, 303):
                        method, payload = "GET", None
                    target = urllib.parse.urljoin(target, location)
                    continue
                if resp.status != 200:
                    raise ExtenderError(f"failed {verb} with extender at URL {url}, code {resp.status}")
                try:
                    return _read_body(resp, url)
                except TimeoutError:
                    raise ExtenderError(_READING_BODY) from None
                except (OSError, http.client.HTTPException) as e:
                    raise ExtenderError(_body_reason(e)) from None
                except _BodyError as e:
                    raise ExtenderError(str(e)) from None
            finally:
                if resp is not None:
                    resp.close()
                conn.close()
        raise ExtenderError(f"Post {go_quote(url)}: stopped after {MAX_REDIRECTS} redirects")

    def _connection(
        self, url: str, parts: urllib.parse.SplitResult, deadline: float
    ) -> http.client.HTTPConnection:
        """A connection to the host (or its proxy, as Go's ProxyFromEnvironment picks it)."""
        if parts.scheme not in ("http", "https"):  # Go's http.Client speaks nothing else
            raise ExtenderError(f"Post {go_quote(url)}: unsupported protocol scheme {go_quote(parts.scheme)}")
        host = parts.hostname or ""
        if not host:
            raise ExtenderError(f"Post {go_quote(url)}: http: no Host in request URL")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        proxy = _proxy_for(parts.scheme, host)
        if parts.scheme == "https":
            ctx = self._ssl if self._ssl is not None else ssl.create_default_context()
            if proxy is None:
                return _DeadlineHTTPSConnection(host, port, deadline, ctx, self._server_name or host)
            tunnel = _DeadlineHTTPSConnection(proxy[0], proxy[1], deadline, ctx, self._server_name or host)
            tunnel.set_tunnel(host, port)
            return tunnel
        if proxy is None:
            return _DeadlineHTTPConnection(host, port, deadline)
        conn = _DeadlineHTTPConnection(proxy[0], proxy[1], deadline)
        conn.via_proxy = True
        return conn


def _split(url: str) -> urllib.parse.SplitResult:
    """urlsplit, with Go's url.Parse errors for what it cannot parse."""
    if any(ch < " " or ch == "\x7f" for ch in url):
        raise ExtenderError(f"parse {go_quote(url)}: net/url: invalid control character in URL")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises for a bad port
    except ValueError as e:
        why = "missing ']' in host" if "IPv6" in str(e) else "invalid port after host"
        raise ExtenderError(f"parse {go_quote(url)}: {why}") from None
    return parts


def _request_target(parts: urllib.parse.SplitResult, conn: http.client.HTTPConnection) -> str:
    """The path and query; the whole URL when a plain HTTP proxy forwards the request."""
    if getattr(conn, "via_proxy", False):
        path = urllib.parse.quote(parts.path or "/", safe=_PATH_SAFE)
        return urllib.parse.urlunsplit(parts._replace(path=path, fragment=""))
    path = urllib.parse.quote(parts.path or "/", safe=_PATH_SAFE)  # as Go's URL.EscapedPath
    return urllib.parse.urlunsplit(("", "", path, parts.query, ""))


#: Characters Go leaves unescaped in a path (besides letters and digits), and `%` of escapes kept.
_PATH_SAFE = "/%!$&'()*+,;=:@-._~"


def _read_body(resp: http.client.HTTPResponse, url: str) -> bytes:
    """The whole body, refusing one over MAX_RESPONSE_BYTES (announced or read)."""
    too_big = _BodyError(f"the response of the extender at URL {url} is larger than "
                         f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB (a kubesim limit)")
    length = resp.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > MAX_RESPONSE_BYTES:
        raise too_big
    out = bytearray()
    while True:
        chunk = resp.read(min(1 << 16, MAX_RESPONSE_BYTES + 1 - len(out)))
        if not chunk:
            return bytes(out)
        out += chunk
        if len(out) > MAX_RESPONSE_BYTES:
            raise too_big


def _body_reason(e: BaseException) -> str:
    """Go's error for a body read that failed (json.Decoder passes it on)."""
    if isinstance(e, http.client.IncompleteRead):
        return "unexpected EOF"
    if isinstance(e, ConnectionResetError):
        return "read: connection reset by peer"
    return str(e) or type(e).__name__


# ------------------------------------------------------------ connections


class _DeadlineSocket:
    """A connected socket whose every send and receive waits at most until `deadline`."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self._readers = 0  # open makefile() readers: like socket.close, close when the last one does
        self._closed = False

    def _arm(self) -> None:
        self.sock.settimeout(_left(self.deadline))

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        self._arm()
        return self.sock.recv_into(buffer, nbytes, flags)

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        self._arm()
        return self.sock.recv(bufsize, flags)

    def sendall(self, data: Any, flags: int = 0) -> None:
        self._arm()  # sendall's timeout bounds the whole send
        self.sock.sendall(data, flags)

    def makefile(self, mode: str = "rb", *_: Any, **__: Any) -> io.BufferedReader:
        self._readers += 1
        return io.BufferedReader(socket.SocketIO(self, "rb"))  # type: ignore[arg-type]

    def _decref_socketios(self) -> None:
        """Called by SocketIO.close."""
        self._readers = max(0, self._readers - 1)
        if self._closed and not self._readers:
            self.sock.close()

    def close(self) -> None:
        self._closed = True
        if not self._readers:
            self.sock.close()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("timed out")
    return left


def _open(host: str, port: int, deadline: float) -> socket.socket:
    """socket.create_connection, with the name lookup and each connect within the deadline."""
    error: OSError = OSError(f"no address for {host}")
    for family, kind, proto, _, address in _resolve(host, port, deadline):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(_left(deadline))
            sock.connect(address)
        except OSError as e:
            sock.close()
            if isinstance(e, TimeoutError):
                raise
            error = e
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    raise error


_Addresses = list[tuple[Any, Any, int, str, Any]]


def _resolve(host: str, port: int, deadline: float) -> _Addresses:
    """getaddrinfo, waiting at most until the deadline: a name is looked up in a daemon
    thread (getaddrinfo itself cannot time out), an IP address at once."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[_Addresses | OSError] = []

    def lookup() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as e:
            found.append(e)

    worker = threading.Thread(target=lookup, name=f"kubesim-lookup-{host}", daemon=True)
    worker.start()
    worker.join(_left(deadline))
    if not found:
        raise TimeoutError("timed out")
    if isinstance(found[0], OSError):
        raise found[0]
    return found[0]


class _DeadlineHTTPConnection(http.client.HTTPConnection):
    """HTTPConnection whose connect, tunnel, send and reads share one deadline."""

    via_proxy = False

    def __init__(self, host: str, port: int, deadline: float) -> None:
        super().__init__(host, port)
        self.deadline = deadline

    def connect(self) -> None:
        self.sock = _DeadlineSocket(_open(self.host, self.port, self.deadline), self.deadline)
        if self._tunnel_host:  # type: ignore[attr-defined]
            self._tunnel()  # type: ignore[attr-defined]


class _DeadlineHTTPSConnection(_DeadlineHTTPConnection):
    """The same over TLS; the handshake waits until the deadline in all (CPython's do_handshake)."""

    def __init__(self, host: str, port: int, deadline: float, context: ssl.SSLContext, server_name: str) -> None:
        super().__init__(host, port, deadline)
        self.context = context
        self.server_name = server_name
        self.default_port = http.client.HTTPS_PORT

    def connect(self) -> None:
        super().connect()
        raw = cast("_DeadlineSocket", self.sock).sock
        raw.settimeout(_left(self.deadline))
        self.sock = _DeadlineSocket(self.context.wrap_socket(raw, server_hostname=self.server_name), self.deadline)


def _proxy_for(scheme: str, host: str) -> tuple[str, int] | None:
    """ProxyFromEnvironment: the proxy for `scheme` unless NO_PROXY matches; never for loopback."""
    if _is_loopback(host):
        return None
    proxy = urllib.request.getproxies_environment().get(scheme)
    if not proxy or urllib.request.proxy_bypass_environment(host):  # type: ignore[attr-defined]
        return None
    parts = urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)
    if not parts.hostname:
        return None
    return parts.hostname, parts.port or 80


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _transport_reason(e: BaseException, parts: urllib.parse.SplitResult) -> str:
    """Go's net/http error text for the common transport failures."""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname or ""
    hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if isinstance(e, ConnectionRefusedError):
        return f"dial tcp {hostport}: connect: connection refused"
    if isinstance(e, socket.gaierror):
        return f"dial tcp: lookup {host}: no such host"
    if isinstance(e, http.client.RemoteDisconnected):  # a ConnectionResetError too
        return "EOF"
    if isinstance(e, ConnectionResetError):
        return f"read tcp {hostport}: read: connection reset by peer"
    if isinstance(e, http.client.BadStatusLine):
        line = str(e.args[0]).strip() if e.args else ""
        return f"net/http: HTTP/1.x transport connection broken: malformed HTTP response {go_quote(line)}"
    if isinstance(e, http.client.LineTooLong):
        return "net/http: HTTP/1.x transport connection broken: header line too long"
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"tls: failed to verify certificate: x509: {_x509_reason(e, host)}"
    if isinstance(e, ssl.SSLError):
        return f"tls: {e.reason or e}"
    return str(e) or type(e).__name__


# -------------------------------------------------------------------- TLS

#: OpenSSL verify codes for an issuer that is not trusted (self-signed, unknown CA).
_UNKNOWN_AUTHORITY = {18, 19, 20, 21}
#: OpenSSL verify codes for a certificate that does not name the host (or IP address).
_NAME_MISMATCH = {62, 64}


def _x509_reason(e: ssl.SSLCertVerificationError, host: str) -> str:
    """Go's crypto/x509 wording for the common verification failures."""
    if e.verify_code in _UNKNOWN_AUTHORITY:
        return "certificate signed by unknown authority"
    if e.verify_code in _NAME_MISMATCH:
        return f"certificate is not valid for {host}"
    return str(e.verify_message or e.reason or e)



def _ssl_context(tls: ExtenderTLSConfig | None, enable_https: bool) -> ssl.SSLContext | None:
    """makeTransport: verify with the given CA, or not at all when insecure (enableHTTPS
    without a CA means insecure, as upstream)."""
    if tls is None and not enable_https:
        return None
    insecure = bool(tls is not None and tls.insecure)
    has_ca = bool(tls is not None and (tls.ca_file or tls.ca_data))
    if enable_https and not has_ca:
        insecure = True
    ctx = ssl.create_default_context()
    if tls is not None:
        if tls.ca_file:
            ctx.load_verify_locations(cafile=tls.ca_file)
        if tls.ca_data:
            ctx.load_verify_locations(cadata=_pem(tls.ca_data))
        if tls.cert_file or tls.cert_data:
            _load_client_cert(ctx, tls)
    if insecure:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _pem(data: str) -> str:
    """A *Data field: base64 of PEM in JSON/YAML; PEM text is taken as is."""
    if "-----BEGIN" in data:
        return data
    return base64.b64decode(data).decode("ascii")


def _load_client_cert(ctx: ssl.SSLContext, tls: ExtenderTLSConfig) -> None:
    if not tls.cert_data and not tls.key_data:
        ctx.load_cert_chain(tls.cert_file, tls.key_file or None)
        return
    with tempfile.TemporaryDirectory() as d:
        cert, key = tls.cert_file, tls.key_file
        if tls.cert_data:
            cert = os.path.join(d, "cert.pem")
            with open(cert, "w", encoding="ascii") as f:
                f.write(_pem(tls.cert_data))
        if tls.key_data:
            key = os.path.join(d, "key.pem")
            with open(key, "w", encoding="ascii") as f:
                f.write(_pem(tls.key_data))
        ctx.load_cert_chain(cert, key or None)
