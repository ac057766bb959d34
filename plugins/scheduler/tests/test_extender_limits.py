"""Hostile HTTP extenders (issue 11): each failure class against a real server on 127.0.0.1
ends the call fast with upstream's error text, httpTimeout bounds the whole call, the body
size and a run's total wait are bounded, and bad urlPrefix/httpTimeout values are refused
by validation (also through the installed `kubesim validate` and `kubesim run`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from extender_server import LabelExtender, RawReply, closed_port_url, hang, ok_headers, send, serve, serve_raw, trickle
from kubesim.errors import InvalidInput
from kubesim_cli import run_kubesim
from kubesim_scheduler import Scheduler
from kubesim_scheduler import extender_http
from kubesim_scheduler.config import Extender as ExtenderConfig
from kubesim_scheduler.config import load_config
from kubesim_scheduler.extender import build_extenders
from kubesim_scheduler.extender_limits import WaitBudget
from kubesim_scheduler.framework import Code
from scheduler_harness import make_node, make_pod

CAP = {"cpu": "4", "memory": "8Gi", "pods": 10}
FILTER_OK = json.dumps({"NodeNames": ["n1"], "FailedNodes": {}, "Error": ""}).encode()
TIMEOUT_READING_BODY = "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
TIMEOUT_AWAITING_HEADERS = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"


def scheduler(url: str, *, ignorable: bool = False, timeout: float = 1.0, budget: WaitBudget | None = None) -> Scheduler:
    cfg = ExtenderConfig(url_prefix=url, filter_verb="filter", http_timeout=timeout, ignorable=ignorable,
                         node_cache_capable=True)
    s = Scheduler(seed=1, extenders=build_extenders([cfg], budget=budget))
    s.add_node(make_node("n1", CAP))
    return s


def redirect_to_self(sock: Any, stop: Any) -> None:
    sock.sendall(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /scheduler/filter\r\nContent-Length: 0\r\n\r\n")


def body_trickle(body: bytes, every: float) -> RawReply:
    """The headers at once, then the body one byte every `every` seconds."""
    def reply(sock: Any, stop: Any) -> None:
        sock.sendall(ok_headers(len(body)))
        trickle(body, every)(sock, stop)
    return reply


# (id, reply, expected message with {url} for the filter URL, longest acceptable wait in seconds)
CLASSES: list[tuple[str, RawReply, str, float]] = [
    ("body-one-byte-a-second", body_trickle(FILTER_OK, 1.0), TIMEOUT_READING_BODY, 3.0),
    ("headers-one-byte-a-second", trickle(ok_headers(len(FILTER_OK)) + FILTER_OK, 1.0),
     'Post "{url}": ' + TIMEOUT_AWAITING_HEADERS, 3.0),
    ("hangs", hang, 'Post "{url}": ' + TIMEOUT_AWAITING_HEADERS, 3.0),
    ("closes-at-once", send(b""), 'Post "{url}": EOF', 1.0),
    ("garbage-status-line", send(b"garbage\r\n\r\n"),
     'Post "{url}": net/http: HTTP/1.x transport connection broken: malformed HTTP response "garbage"', 1.0),
    ("not-json", send(ok_headers(21) + b"<html>not json</html>"),
     "invalid character '<' looking for beginning of value", 1.0),
    ("cut-short", send(ok_headers(100) + b'{"NodeNames"'), "unexpected EOF", 1.0),
    ("too-large", send(ok_headers(65 * 1024 * 1024), then_close=False),
     "the response of the extender at URL {url} is larger than 64 MiB (a kubesim limit)", 1.0),
    ("nested-too-deep", send(ok_headers(200_000) + b"[" * 200_000),
     "json: the response nests too deep for kubesim to read", 2.0),
    ("redirects-forever", redirect_to_self, 'Post "{url}": stopped after 10 redirects', 1.0),
    ("status-500", send(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"),
     "failed filter with extender at URL {url}, code 500", 1.0),
]


@pytest.mark.parametrize(("reply", "message", "within"), [c[1:] for c in CLASSES], ids=[c[0] for c in CLASSES])
def test_a_failing_extender_is_an_error_of_the_attempt(reply: RawReply, message: str, within: float) -> None:
    """A non-ignorable extender's failure is the attempt's Error status (schedule_one.go
    findNodesThatPassExtenders), in upstream's words, after at most httpTimeout (1 s here)."""
    with serve_raw(reply) as url:
        s = scheduler(url)
        start = time.monotonic()
        a = s.evaluate(make_pod("p"))
        took = time.monotonic() - start
    assert a.status is not None and a.status.code == Code.ERROR
    assert a.message() == message.format(url=url + "/filter")
    assert took < within


@pytest.mark.parametrize("reply", [c[1] for c in CLASSES], ids=[c[0] for c in CLASSES])
def test_a_failing_ignorable_extender_is_skipped(reply: RawReply) -> None:
    with serve_raw(reply) as url:
        a = scheduler(url, ignorable=True).evaluate(make_pod("p"))
    assert a.succeeded and a.node == "n1"


def test_a_refused_connection() -> None:
    dead = closed_port_url()
    port = dead.split(":")[2].split("/")[0]
    start = time.monotonic()
    a = scheduler(dead).evaluate(make_pod("p"))
    assert time.monotonic() - start < 1.0
    assert a.message() == f'Post "{dead}/filter": dial tcp 127.0.0.1:{port}: connect: connection refused'


def test_a_streamed_body_over_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body without Content-Length is cut off once it passes the limit (64 MiB; 1 KiB here)."""
    monkeypatch.setattr(extender_http, "MAX_RESPONSE_BYTES", 1024)
    with serve_raw(send(ok_headers(None) + b" " * 4096)) as url:
        a = scheduler(url).evaluate(make_pod("p"))
    assert a.message() == f"the response of the extender at URL {url}/filter is larger than 0 MiB (a kubesim limit)"


def test_a_body_at_the_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extender_http, "MAX_RESPONSE_BYTES", 1024)
    body = FILTER_OK + b" " * (1024 - len(FILTER_OK))
    with serve_raw(send(ok_headers(None) + body)) as url:
        a = scheduler(url).evaluate(make_pod("p"))
    assert a.succeeded and a.node == "n1"


def test_a_slow_but_timely_trickle_succeeds() -> None:
    """The deadline is the whole call's: a body trickled well within httpTimeout is read."""
    with serve_raw(body_trickle(FILTER_OK, 0.001)) as url:
        a = scheduler(url, timeout=5.0).evaluate(make_pod("p"))
    assert a.succeeded and a.node == "n1"


def test_the_whole_call_is_bounded_not_each_read() -> None:
    """One byte a second with httpTimeout 2s fails after about 2 s (a per-read timeout never would)."""
    reply = trickle(ok_headers(len(FILTER_OK)) + FILTER_OK, 0.5)
    with serve_raw(reply) as url:
        start = time.monotonic()
        a = scheduler(url, timeout=2.0).evaluate(make_pod("p"))
        took = time.monotonic() - start
    assert a.message() == f'Post "{url}/filter": {TIMEOUT_AWAITING_HEADERS}'
    assert 1.8 < took < 3.5


def test_a_run_s_extender_waits_share_one_budget() -> None:
    """Once a run's budget for waiting on extenders is spent, calls fail at once (kubesim's bound)."""
    budget = WaitBudget(1.0)
    with serve_raw(hang) as url:
        s = scheduler(url, timeout=5.0, budget=budget)
        start = time.monotonic()
        first = s.evaluate(make_pod("p"))
        assert 0.8 < time.monotonic() - start < 2.5  # the budget (1 s), not httpTimeout (5 s)
        start = time.monotonic()
        second = s.evaluate(make_pod("q"))
        assert time.monotonic() - start < 0.5
    assert first.message() == f'Post "{url}/filter": {TIMEOUT_AWAITING_HEADERS}'
    assert second.message() == f'Post "{url}/filter": kubesim: this run has spent its 1s of waiting on extenders'
    assert budget.left() == 0.0


# ------------------------------------------------------------- validation


def extender_config(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "extenders": [{"filterVerb": "filter", **fields}]}


SCHEME = "must be an http or https URL with a host (kubesim check: {})"
BAD_CONFIGS = [
    ({"urlPrefix": "ftp://127.0.0.1:1/x"},
     'extenders[0].urlPrefix: Invalid value: "ftp://127.0.0.1:1/x": ' + SCHEME.format('the scheme is "ftp"')),
    ({"urlPrefix": "localhost:8888"},
     'extenders[0].urlPrefix: Invalid value: "localhost:8888": ' + SCHEME.format('the scheme is "localhost"')),
    ({"urlPrefix": "http://"}, 'extenders[0].urlPrefix: Invalid value: "http://": ' + SCHEME.format("it has no host")),
    ({"urlPrefix": "http://[::1"},
     'extenders[0].urlPrefix: Invalid value: "http://[::1": ' + SCHEME.format("it does not parse as a URL")),
    ({"urlPrefix": "http://h:99999/x"},
     'extenders[0].urlPrefix: Invalid value: "http://h:99999/x": ' + SCHEME.format("it does not parse as a URL")),
    ({"urlPrefix": "http://127.0.0.1/a\tb"},
     'extenders[0].urlPrefix: Invalid value: "http://127.0.0.1/a\\tb": ' + SCHEME.format("it has a control character")),
    ({"urlPrefix": "http://127.0.0.1/x", "httpTimeout": "100000h"},
     'extenders[0].httpTimeout: Invalid value: "100000h0m0s": must be at most 10m0s '
     "(kubesim's bound on one extender call)"),
    ({"urlPrefix": "http://127.0.0.1/x", "httpTimeout": "10m0.001s"},
     'extenders[0].httpTimeout: Invalid value: "10m0.001s": must be at most 10m0s '
     "(kubesim's bound on one extender call)"),
    ({"urlPrefix": "http://127.0.0.1/x", "httpTimeout": "-1s"},
     'extenders[0].httpTimeout: Invalid value: "-1s": must be zero (the default, 5s) or positive '
     "(kubesim check: kube-scheduler would never time out)"),
    ({"urlPrefix": "http://127.0.0.1/x", "httpTimeout": "100000000h"},
     'extenders[0].httpTimeout: time: invalid duration "100000000h"'),
]


@pytest.mark.parametrize(("fields", "message"), BAD_CONFIGS, ids=[m.split(":")[0] + "=" + str(f) for f, m in BAD_CONFIGS])
def test_bad_extender_configs(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput) as err:
        load_config(extender_config(**fields))
    assert [str(p) for p in err.value.problems] == [message]


@pytest.mark.parametrize("fields", [
    {"urlPrefix": "http://127.0.0.1/x", "httpTimeout": "10m"},
    {"urlPrefix": "https://extender.example:8443/x", "httpTimeout": "0s"},
    {"urlPrefix": "http://[::1]:80/x"},
])
def test_good_extender_configs(fields: dict[str, Any]) -> None:
    assert load_config(extender_config(**fields)).extenders[0].url_prefix == fields["urlPrefix"]


def test_every_config_duration_overflows_as_go_does() -> None:
    """metav1.Duration fields outside extenders too (DynamicResources filterTimeout)."""
    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
               {"name": "DynamicResources", "args": {"filterTimeout": "100000000h"}}]}]}
    with pytest.raises(InvalidInput) as err:
        load_config(cfg)
    assert [str(p) for p in err.value.problems] == [
        'profiles[0].pluginConfig[0].args.filterTimeout: time: invalid duration "100000000h"']


# ------------------------------------------------------------ kubesim command


def scenario() -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": "True"}]}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p0", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x"}]}}
    node2 = {**node, "metadata": {"name": "n2"}}
    return {"apiVersion": "simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1", "kind": "Scenario",
            "metadata": {"name": "hostile-extender"},
            "spec": {"controllers": {"simulationControllers": {"enabled": [{"name": "scheduler"}]}}, "operations": [
                {"id": "node", "step": 0, "createOperation": {"object": node}},
                {"id": "pod", "step": 1, "createOperation": {"object": pod}},
                # a cluster change: the scheduler tries the pod again (after its error backoff)
                {"id": "node2", "step": 3, "createOperation": {"object": node2}},
                {"id": "done", "step": 5, "doneOperation": {}}]}}


def write_inputs(tmp_path: Path, extender: dict[str, Any]) -> None:
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(scenario()))
    (tmp_path / "sched.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "extenders": [{"filterVerb": "filter", **extender}]}))


def unscheduled(tmp_path: Path) -> list[tuple[int, str]]:
    result = json.loads((tmp_path / "result.json").read_text())
    return [(e["step"]["major"], e["podUnscheduled"]["scheduleResult"][0]["message"])
            for events in result["status"]["scenarioResult"]["timeline"].values()
            for e in events if "podUnscheduled" in e]


def test_kubesim_run_with_a_trickling_extender(tmp_path: Path) -> None:
    """One byte a second, httpTimeout 2s: every attempt fails after ~2 s and the run ends."""
    with serve_raw(body_trickle(FILTER_OK, 1.0)) as url:
        write_inputs(tmp_path, {"urlPrefix": url, "httpTimeout": "2s"})
        start = time.monotonic()
        proc = run_kubesim("run", "s.yaml", "--scheduler-config", "sched.yaml", "-o", "result.json", cwd=tmp_path,
                           timeout=120)
        took = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    events = unscheduled(tmp_path)
    # two tries when the pod comes (the KEP's rule), two more after the node is added at step 3
    assert events == [(1, TIMEOUT_READING_BODY)] * 2 + [(3, TIMEOUT_READING_BODY)] * 2
    assert took < 4 * 2 + 20


def test_kubesim_run_with_a_refused_port(tmp_path: Path) -> None:
    dead = closed_port_url()
    write_inputs(tmp_path, {"urlPrefix": dead})
    start = time.monotonic()
    proc = run_kubesim("run", "s.yaml", "--scheduler-config", "sched.yaml", "-o", "result.json", cwd=tmp_path,
                       timeout=60)
    assert time.monotonic() - start < 30
    assert proc.returncode == 0, proc.stderr
    port = dead.split(":")[2].split("/")[0]
    message = f'Post "{dead}/filter": dial tcp 127.0.0.1:{port}: connect: connection refused'
    assert unscheduled(tmp_path) == [(1, message)] * 2 + [(3, message)] * 2


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize(("fields", "message"), [BAD_CONFIGS[0], BAD_CONFIGS[6], BAD_CONFIGS[9]],
                         ids=["ftp", "100000h", "overflow"])
def test_kubesim_refuses_bad_extender_configs(tmp_path: Path, command: str, fields: dict[str, Any], message: str) -> None:
    write_inputs(tmp_path, fields)
    proc = run_kubesim(command, "s.yaml", "--scheduler-config", "sched.yaml", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert f"sched.yaml: {message}" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------ error backoff


def test_an_extender_error_sends_the_pod_to_error_backoff() -> None:
    """The failed pod waits out its backoff: Pop does not take it from the error backoff queue
    (backoff_queue.go popBackoff), only the flush once its backoff completes does."""
    now = [10.0]
    dead = closed_port_url()
    cfg = ExtenderConfig(url_prefix=dead, filter_verb="filter")
    s = Scheduler(seed=1, extenders=build_extenders([cfg]), now=lambda: now[0])
    s.add_node(make_node("n1", CAP))
    s.add_pod(make_pod("p"))
    first = s.schedule_one()
    assert first is not None and first.status is not None and first.status.code == Code.ERROR
    assert len(s.queue.error_backoff) == 1 and not s.queue.active and not s.queue.backoff
    assert s.schedule_one() is None  # same instant: still backing off
    assert s.run() == []  # and run() does not spin on it
    now[0] = 12.0  # 1 s backoff from 10 s, aligned to the 1 s window
    again = s.schedule_one()
    assert again is not None and again.status is not None and again.status.code == Code.ERROR
    (qpi,) = s.queue.error_backoff.items.values()
    assert qpi.consecutive_errors_count == 2 and s.queue.backoff_duration(2) == 2.0


# ------------------------------------------------------------------ HTTPS

TLS_DIR = Path(__file__).parent / "data" / "tls"


def https_scheduler(url: str, **fields: Any) -> Scheduler:
    cfg = load_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                       "extenders": [{"urlPrefix": url, "filterVerb": "filter", "httpTimeout": "2s", **fields}]})
    s = Scheduler(seed=1, extenders=build_extenders(cfg.extenders))
    s.add_node(make_node("n1", CAP))
    return s


def test_https_extenders() -> None:
    """makeTransport: enableHTTPS without a CA does not verify; a CA verifies the certificate
    against tlsConfig.serverName (the certificate is for extender.test, the URL is 127.0.0.1)."""
    ca = (TLS_DIR / "cert.pem").read_text()
    with serve(LabelExtender(), tls=(str(TLS_DIR / "cert.pem"), str(TLS_DIR / "key.pem"))) as url:
        assert url.startswith("https://127.0.0.1:")
        insecure = https_scheduler(url, enableHTTPS=True).evaluate(make_pod("p"))
        named = https_scheduler(url, tlsConfig={"caData": ca, "serverName": "extender.test"}).evaluate(make_pod("p"))
        unnamed = https_scheduler(url, tlsConfig={"caData": ca}).evaluate(make_pod("p"))
        untrusted = https_scheduler(url, tlsConfig={"serverName": "extender.test"}).evaluate(make_pod("p"))
    assert insecure.succeeded and named.succeeded
    assert unnamed.status is not None and unnamed.status.code == Code.ERROR
    assert unnamed.message() == (
        f'Post "{url}/filter": tls: failed to verify certificate: x509: certificate is not valid for 127.0.0.1')
    assert untrusted.status is not None and untrusted.message() == (
        f'Post "{url}/filter": tls: failed to verify certificate: x509: certificate signed by unknown authority')


def test_a_tls_handshake_that_never_ends_is_bounded() -> None:
    """A server that accepts the connection and never speaks TLS: the handshake is within httpTimeout."""
    with serve_raw(hang) as url:
        start = time.monotonic()
        a = https_scheduler(url.replace("http://", "https://"), enableHTTPS=True).evaluate(make_pod("p"))
        took = time.monotonic() - start
    assert a.message() == f'Post "{url.replace("http://", "https://")}/filter": {TIMEOUT_AWAITING_HEADERS}'
    assert took < 3.5


def test_a_proxy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """ProxyFromEnvironment: http_proxy carries the request (absolute URL) within the same
    deadline; no_proxy and loopback hosts go direct."""
    seen: list[bytes] = []
    with serve_raw(send(ok_headers(len(FILTER_OK)) + FILTER_OK), seen) as proxy:
        monkeypatch.setenv("http_proxy", proxy.rsplit("/", 1)[0])
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        a = scheduler("http://extender.test:8080/x").evaluate(make_pod("p"))
        assert a.succeeded and a.node == "n1"
        assert seen[0].split(b"\r\n")[0] == b"POST http://extender.test:8080/x/filter HTTP/1.1"
        monkeypatch.setenv("no_proxy", "extender.test")
        bypassed = scheduler("http://extender.test:8080/x").evaluate(make_pod("p"))
        assert len(seen) == 1 and bypassed.status is not None and bypassed.status.code == Code.ERROR
    with serve_raw(hang) as proxy:
        monkeypatch.setenv("http_proxy", proxy.rsplit("/", 1)[0])
        monkeypatch.delenv("no_proxy")
        start = time.monotonic()
        slow = scheduler("http://extender.test:8080/x").evaluate(make_pod("p"))
        assert time.monotonic() - start < 2.5
    assert slow.message() == f'Post "http://extender.test:8080/x/filter": {TIMEOUT_AWAITING_HEADERS}'


def test_a_slow_name_lookup_is_within_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """getaddrinfo cannot time out: kubesim stops waiting for it at the call's deadline."""
    import socket

    real = socket.getaddrinfo

    def slow(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "slow-dns.test":
            time.sleep(3)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    start = time.monotonic()
    a = scheduler("http://slow-dns.test/x").evaluate(make_pod("p"))
    assert time.monotonic() - start < 2.0
    assert a.message() == f'Post "http://slow-dns.test/x/filter": {TIMEOUT_AWAITING_HEADERS}'


def test_the_request_path_is_escaped_as_go_does() -> None:
    seen: list[bytes] = []
    with serve_raw(send(ok_headers(len(FILTER_OK)) + FILTER_OK), seen) as url:
        a = scheduler(url + "/a b%2F~c").evaluate(make_pod("p"))
    assert a.succeeded
    assert seen[0].split(b"\r\n")[0] == b"POST /scheduler/a%20b%2F~c/filter HTTP/1.1"
    control = scheduler("http://127.0.0.1:1/a\nb").evaluate(make_pod("p"))  # the Python API does not validate
    assert control.message() == 'parse "http://127.0.0.1:1/a\\nb/filter": net/url: invalid control character in URL'
